//! Data movement (CONCATENATION, PAD, TRANSPOSE, SLICE, STRIDED_SLICE,
//! SPLIT, PACK, UNPACK): one strided copy kernel, driven by walks the
//! compiler computes per op; and CIRCULAR_BUFFER's row shift.

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
    runs(c, src_base, dst_base, |s, t, contiguous| {
        if contiguous {
            dst[t..t + c.dims[5]].copy_from_slice(&src[s..s + c.dims[5]]);
        } else {
            for i5 in 0..c.dims[5] as isize {
                dst[(t as isize + i5 * c.dst[5]) as usize] = src[(s as isize + i5 * c.src[5]) as usize];
            }
        }
    });
}

/// [`copy`] through a table of the 256 int8 values (a uint8 model's
/// CONCATENATION input rescaled to the output's quantization, computed at
/// compile time).
#[inline(never)]
pub fn copy_mapped(src: &[i8], src_base: usize, dst: &mut [i8], dst_base: usize, c: &Copy6, table: &[i8]) {
    let table: &[i8; 256] = table.first_chunk().expect("a table of 256 entries");
    runs(c, src_base, dst_base, |s, t, _| {
        for i5 in 0..c.dims[5] as isize {
            let v = src[(s as isize + i5 * c.src[5]) as usize];
            dst[(t as isize + i5 * c.dst[5]) as usize] = table[(v as u8 ^ 0x80) as usize];
        }
    });
}

/// Calls `run(source start, destination start, contiguous)` for each
/// innermost run of the box, in order.
#[inline(always)]
fn runs(c: &Copy6, src_base: usize, dst_base: usize, mut run: impl FnMut(usize, usize, bool)) {
    let d = &c.dims;
    let contiguous = c.src[5] == 1 && c.dst[5] == 1;
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
                        run(s5 as usize, t5 as usize, contiguous);
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
pub fn gather<
    T: Copy + Default,
    I: Copy + Into<i64>,
    const BATCH: usize,
    const OUTER: usize,
    const AXIS: usize,
    const INNER: usize,
>(
    params: &[T],
    indices: &[I],
    output: &mut [T],
) {
    let params = &params[..BATCH * OUTER * AXIS * INNER];
    let n = indices.len() / BATCH;
    let output = &mut output[..BATCH * OUTER * n * INNER];
    for b in 0..BATCH {
        let coords = &indices[b * n..(b + 1) * n];
        for o in 0..OUTER {
            let row = b * OUTER + o;
            for (k, &i) in coords.iter().enumerate() {
                let dst = &mut output[(row * n + k) * INNER..(row * n + k + 1) * INNER];
                let i: i64 = i.into();
                if (0..AXIS as i64).contains(&i) {
                    let s = (row * AXIS + i as usize) * INNER;
                    dst.copy_from_slice(&params[s..s + INNER]);
                } else {
                    dst.fill(T::default());
                }
            }
        }
    }
}

/// GATHER_ND: index tuple `k` (`ND` indices) copies the `SLICE` elements
/// at `sum(index[j] * counts[j])`. As TFLM, only that flat position is
/// checked; a slice outside the `LEN` params (which fails TFLM's invoke)
/// yields zeros.
#[inline(never)]
pub fn gather_nd<
    T: Copy + Default,
    I: Copy + Into<i64>,
    const ND: usize,
    const SLICE: usize,
    const SLICES: usize,
    const LEN: usize,
>(
    params: &[T],
    indices: &[I],
    output: &mut [T],
    counts: &[usize; ND],
) {
    let params = &params[..LEN];
    let output = &mut output[..SLICES * SLICE];
    for (tuple, dst) in indices[..SLICES * ND].chunks_exact(ND.max(1)).zip(output.chunks_exact_mut(SLICE)) {
        let at = tuple.iter().zip(counts).fold(0i64, |at, (&i, &n)| at.wrapping_add(i.into().wrapping_mul(n as i64)));
        match usize::try_from(at) {
            Ok(at) if at + SLICE <= LEN => dst.copy_from_slice(&params[at..at + SLICE]),
            _ => dst.fill(T::default()),
        }
    }
}

/// DYNAMIC_UPDATE_SLICE: the operand (`io`'s input) copied to the output,
/// then `update` written at the start `starts[d]` clamped to
/// `0..=largest[d]` (TFLM's rule) in every dimension; `walk` steps through
/// the update with the output's strides (`a`) and its own (`b`).
#[inline(never)]
pub fn dynamic_update_slice<T: Copy, I: Copy + Into<i64>, IO: super::Io<T>, const RANK: usize, const LEN: usize>(
    mut io: IO,
    update: &[T],
    starts: &[I],
    largest: &[usize; RANK],
    steps: &[usize; RANK],
    walk: &super::Strided6,
) {
    for i in 0..LEN {
        let v = io.get(i);
        io.put(i, v);
    }
    let base: usize = starts[..RANK]
        .iter()
        .zip(largest.iter().zip(steps))
        .map(|(&s, (&hi, &step))| (s.into().clamp(0, hi as i64) as usize) * step)
        .sum();
    walk.for_each(|_, out, from| io.put(base + out, update[from]));
}

/// EMBEDDING_LOOKUP of an int8 table into float32: each id's row of
/// `COLUMNS` values times `scale` (TFLM's `Dequantize`, zero point 0); an
/// id outside `0..ROWS` (which fails TFLM's invoke) gives zeros.
#[inline(never)]
pub fn gather_dequantize<const ROWS: usize, const COLUMNS: usize>(
    table: &[i8],
    ids: &[i32],
    scale: f32,
    output: &mut [f32],
) {
    let table = &table[..ROWS * COLUMNS];
    for (&id, out) in ids.iter().zip(output.chunks_exact_mut(COLUMNS)) {
        match usize::try_from(id) {
            Ok(row) if row < ROWS => {
                for (o, &v) in out.iter_mut().zip(&table[row * COLUMNS..(row + 1) * COLUMNS]) {
                    *o = v as i32 as f32 * scale;
                }
            }
            _ => out.fill(0.0),
        }
    }
}

/// BROADCAST_ARGS (TFLite `reference_ops::BroadcastArgs`): output value
/// `LEN - 1 - i` from the `i`-th values from the end of `a` and `b` (1
/// where a shape is shorter), as C `int`s: the other one where one is 1,
/// else `a`'s.
#[inline(never)]
pub fn broadcast_args<T: Copy, const LEN: usize>(
    a: &[T],
    b: &[T],
    output: &mut [T],
    to_int: impl Fn(T) -> i32,
    from_int: impl Fn(i32) -> T,
) {
    let from_end = |s: &[T], i: usize| if i < s.len() { to_int(s[s.len() - 1 - i]) } else { 1 };
    for (i, o) in output[..LEN].iter_mut().rev().enumerate() {
        let (x, y) = (from_end(a, i), from_end(b, i));
        *o = from_int(if x == 1 { y } else { x });
    }
}

/// Source indices and weights of a bilinear resize along one axis: output
/// position `o` blends source `lo[o]` and `hi[o]` with weight `w[o]` on
/// `hi` (a float fraction, or a fraction of 1024 for int8).
#[derive(Clone, Copy, Debug)]
pub struct Taps<'a, W> {
    /// Lower source index.
    pub lo: &'a [i32],
    /// Upper source index.
    pub hi: &'a [i32],
    /// Weight of the upper source.
    pub w: &'a [W],
}

/// RESIZE_BILINEAR: for every output pixel and channel, `blend` of the
/// four source values (rows `lo`/`hi` x columns `lo`/`hi`) with the row
/// and column weights.
#[inline(always)]
fn resize_bilinear<
    T: Copy,
    W: Copy,
    const N: usize,
    const IH: usize,
    const IW: usize,
    const C: usize,
    const OH: usize,
    const OW: usize,
>(
    input: &[T],
    output: &mut [T],
    ys: &Taps<'_, W>,
    xs: &Taps<'_, W>,
    blend: impl Fn([T; 4], W, W) -> T,
) {
    let input = &input[..N * IH * IW * C];
    let output = &mut output[..N * OH * OW * C];
    for b in 0..N {
        for y in 0..OH {
            let (y0, y1, dy) = (ys.lo[y] as usize, ys.hi[y] as usize, ys.w[y]);
            for x in 0..OW {
                let (x0, x1, dx) = (xs.lo[x] as usize, xs.hi[x] as usize, xs.w[x]);
                let at = |yy: usize, xx: usize| ((b * IH + yy) * IW + xx) * C;
                let (p00, p10, p01, p11) = (at(y0, x0), at(y1, x0), at(y0, x1), at(y1, x1));
                let out = ((b * OH + y) * OW + x) * C;
                for c in 0..C {
                    let v = [input[p00 + c], input[p10 + c], input[p01 + c], input[p11 + c]];
                    output[out + c] = blend(v, dy, dx);
                }
            }
        }
    }
}

/// RESIZE_BILINEAR float32 (TFLite `reference_ops::ResizeBilinear`, same
/// products in the same order).
#[inline(never)]
pub fn resize_bilinear_f32<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const C: usize,
    const OH: usize,
    const OW: usize,
>(
    input: &[f32],
    output: &mut [f32],
    ys: &Taps<'_, f32>,
    xs: &Taps<'_, f32>,
) {
    resize_bilinear::<_, _, N, IH, IW, C, OH, OW>(input, output, ys, xs, blend_f32)
}

/// TFLite's float bilinear blend, its products in its order.
#[inline(always)]
fn blend_f32([v00, v10, v01, v11]: [f32; 4], dy: f32, dx: f32) -> f32 {
    v00 * (1.0 - dy) * (1.0 - dx) + v10 * dy * (1.0 - dx) + v01 * (1.0 - dy) * dx + v11 * dy * dx
}

/// RESIZE_BILINEAR of a uint8 model (LiteRT's uint8
/// `reference_ops::ResizeBilinear`: the float32 blend of the uint8 values,
/// plus 1/2, truncated) on the int8 values `q - 128` the compiler's uint8
/// pass gives.
#[inline(never)]
pub fn resize_bilinear_u8_as_s8<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const C: usize,
    const OH: usize,
    const OW: usize,
>(
    input: &[i8],
    output: &mut [i8],
    ys: &Taps<'_, f32>,
    xs: &Taps<'_, f32>,
) {
    let raw = |v: i8| f32::from(v as u8 ^ 0x80);
    resize_bilinear::<_, _, N, IH, IW, C, OH, OW>(input, output, ys, xs, |v: [i8; 4], dy, dx| {
        ((blend_f32(v.map(raw), dy, dx) + 0.5) as u8 ^ 0x80) as i8
    })
}

/// RESIZE_BILINEAR int8 (TFLite `ResizeBilinearInteger`: 10-bit weights,
/// a 20-bit product rounded half away from zero).
#[inline(never)]
pub fn resize_bilinear_s8<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const C: usize,
    const OH: usize,
    const OW: usize,
>(
    input: &[i8],
    output: &mut [i8],
    ys: &Taps<'_, i32>,
    xs: &Taps<'_, i32>,
) {
    const ONE: i64 = 1 << 10;
    resize_bilinear::<_, _, N, IH, IW, C, OH, OW>(input, output, ys, xs, |[v00, v10, v01, v11], dy, dx| {
        let (dy, dx) = (dy as i64, dx as i64);
        let v = v00 as i64 * (ONE - dy) * (ONE - dx)
            + v10 as i64 * dy * (ONE - dx)
            + v01 as i64 * (ONE - dy) * dx
            + v11 as i64 * dy * dx;
        let round = if v > 0 { 1 << 19 } else { -(1 << 19) };
        ((v + round) / (1 << 20)) as i8
    })
}

/// CIRCULAR_BUFFER (TFLM's custom op): the `SLOTS` rows of `DEPTH` values
/// at the start of `output` move one row towards the start and the first
/// `DEPTH` values of `input` become the last row; `since[0]` counts the
/// invokes since the op last let the graph go on. `true` on every
/// `CYCLES`-th invoke (the rest of the graph runs), `false` otherwise
/// (TFLM's `kTfLiteAbort`: the invoke stops here).
#[inline(never)]
pub fn circular_buffer<const SLOTS: usize, const DEPTH: usize, const CYCLES: i32>(
    input: &[i8],
    output: &mut [i8],
    since: &mut [i32],
) -> bool {
    let output = &mut output[..SLOTS * DEPTH];
    output.copy_within(DEPTH.., 0);
    output[(SLOTS - 1) * DEPTH..].copy_from_slice(&input[..DEPTH]);
    since[0] += 1;
    if since[0] != CYCLES {
        return false;
    }
    since[0] = 0;
    true
}
