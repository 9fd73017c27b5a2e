//! Data movement (CONCATENATION, PAD, TRANSPOSE, SLICE, STRIDED_SLICE,
//! SPLIT, PACK, UNPACK): one strided copy kernel, driven by walks the
//! compiler computes per op.

/// A box of up to 6 dimensions walked in row-major order, with a signed
/// element stride per dimension in the source and in the destination.
#[derive(Clone, Copy, Debug)]
pub struct Copy6 {
    /// Extents (1 for unused leading dims).
    pub dims: [usize; 6],
    /// Source strides (negative for reversed strided slices).
    pub src: [isize; 6],
    /// Destination strides.
    pub dst: [isize; 6],
}

/// Copies the box: `dst[dst_base + Σ i·dst] = src[src_base + Σ i·src]`.
#[inline(never)]
pub fn copy<T: Copy>(src: &[T], src_base: usize, dst: &mut [T], dst_base: usize, c: &Copy6) {
    let d = &c.dims;
    let (s0, t0) = (src_base as isize, dst_base as isize);
    for i0 in 0..d[0] as isize {
        let (s1, t1) = (s0 + i0 * c.src[0], t0 + i0 * c.dst[0]);
        for i1 in 0..d[1] as isize {
            let (s2, t2) = (s1 + i1 * c.src[1], t1 + i1 * c.dst[1]);
            for i2 in 0..d[2] as isize {
                let (s3, t3) = (s2 + i2 * c.src[2], t2 + i2 * c.dst[2]);
                for i3 in 0..d[3] as isize {
                    let (s4, t4) = (s3 + i3 * c.src[3], t3 + i3 * c.dst[3]);
                    for i4 in 0..d[4] as isize {
                        let (s5, t5) = (s4 + i4 * c.src[4], t4 + i4 * c.dst[4]);
                        if c.src[5] == 1 && c.dst[5] == 1 {
                            // The innermost run is contiguous on both sides.
                            let (s, t) = (s5 as usize, t5 as usize);
                            dst[t..t + d[5]].copy_from_slice(&src[s..s + d[5]]);
                        } else {
                            for i5 in 0..d[5] as isize {
                                dst[(t5 + i5 * c.dst[5]) as usize] = src[(s5 + i5 * c.src[5]) as usize];
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Fills `dst` with `v` (the padding of PAD).
#[inline(never)]
pub fn fill<T: Copy>(dst: &mut [T], v: T) {
    dst.fill(v);
}

/// RESIZE_NEAREST_NEIGHBOR: output pixel (y, x) copies the `C` channels of
/// input pixel (`ys[y]`, `xs[x]`); the maps are computed at compile time.
#[inline(never)]
pub fn resize_nearest<T: Copy, const N: usize, const IH: usize, const IW: usize, const C: usize>(
    src: &[T],
    dst: &mut [T],
    ys: &[u32],
    xs: &[u32],
) {
    let mut o = 0;
    for b in 0..N {
        for &y in ys {
            for &x in xs {
                let s = ((b * IH + y as usize) * IW + x as usize) * C;
                dst[o..o + C].copy_from_slice(&src[s..s + C]);
                o += C;
            }
        }
    }
}

/// GATHER along an axis (batch_dims 0): for each of `OUTER` blocks, each
/// index `k` copies the `INNER` elements of slice `indices[k]`. An index
/// outside `0..AXIS` (which TFLM rejects at run time, and which cannot
/// fail here) yields zeros.
#[inline(never)]
pub fn gather<T: Copy + Default, I: Copy + Into<i64>, const OUTER: usize, const AXIS: usize, const INNER: usize>(
    params: &[T],
    indices: &[I],
    output: &mut [T],
) {
    let params = &params[..OUTER * AXIS * INNER];
    let n = indices.len();
    let output = &mut output[..OUTER * n * INNER];
    for o in 0..OUTER {
        for (k, &i) in indices.iter().enumerate() {
            let dst = &mut output[(o * n + k) * INNER..(o * n + k + 1) * INNER];
            let i: i64 = i.into();
            if (0..AXIS as i64).contains(&i) {
                let s = (o * AXIS + i as usize) * INNER;
                dst.copy_from_slice(&params[s..s + INNER]);
            } else {
                dst.fill(T::default());
            }
        }
    }
}
