//! The vector layout's dot products and their requantization in plain
//! Rust (`helium.rs` has their MVE forms).

use tinyaot_common::fixedpoint::DownScale;

/// `R` (1, 2 or 4) rows of a block in the vector layout
/// (`layout::pack_rows_vector`: per run of 16 values the block's rows one
/// after another, zero-padded to whole runs) against `x` (the rows'
/// `x.len()` values): `acc` plus the sums.
#[inline(always)]
pub(crate) fn dot_vector_rows<const R: usize>(x: &[i8], block: &[i8], mut acc: [i32; R]) -> [i32; R] {
    let g = crate::kernels::layout::VECTOR_GROUP;
    for (xr, wr) in x.chunks(g).zip(block.chunks_exact(g * R)) {
        for (a, w) in acc.iter_mut().zip(wr.chunks_exact(g)) {
            let s: i32 = xr.iter().zip(w).map(|(&v, &w)| v as i32 * w as i32).sum();
            *a = a.wrapping_add(s);
        }
    }
    acc
}

/// All the whole blocks of 4 rows of a vector-layout matrix (`rows`, as
/// many rows as `out` has bytes, a multiple of 4) against a convolution
/// window read straight from the image: `segments` window rows of `len`
/// values (whole runs of 16), `step` apart in `x`, each block's runs in
/// the same order; each block's sums from its biases, requantized into
/// `out` as [`requantize_vector4`] does.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn dot_vector_window_blocks_down(
    x: &[i8],
    segments: usize,
    len: usize,
    step: usize,
    rows: &[i8],
    bias: &[i32],
    scales: &[DownScale],
    offset: i32,
    out: &mut [i8],
) {
    let block_len = 4 * segments * len;
    for (k, out) in out.chunks_exact_mut(4).enumerate() {
        let block = &rows[k * block_len..(k + 1) * block_len];
        let mut acc = [bias[4 * k], bias[4 * k + 1], bias[4 * k + 2], bias[4 * k + 3]];
        for s in 0..segments {
            acc = crate::arch::dot_vector_rows::<4>(&x[s * step..s * step + len], &block[4 * s * len..], acc);
        }
        crate::arch::requantize_vector4(acc, &scales[4 * k..], offset, out);
    }
}

/// `out[k] = saturate(rescale_down(sums[k], scales[k]))` for a whole
/// block's 4 sums (short-form scales, the whole int8 range; `offset`: their
/// output offset, `fixedpoint::down_offset`, for targets that add it apart
/// and requantize the 4 as one vector).
#[inline(always)]
pub(crate) fn requantize_vector4(sums: [i32; 4], scales: &[DownScale], offset: i32, out: &mut [i8]) {
    let _ = offset;
    crate::arch::requantize_block(&sums, scales, out);
}

/// All the whole blocks of 4 rows of a vector-layout matrix (`rows`, as
/// many rows as `out` has bytes, a multiple of 4) against `x`, requantized
/// into `out` (as [`requantize_vector4`] block by block), in one pass
/// where the target keeps `x` in registers: `false` where it does not
/// (here), and the caller goes block by block.
#[inline(always)]
pub(crate) fn dot_vector_blocks_down(
    x: &[i8],
    rows: &[i8],
    bias: &[i32],
    scales: &[DownScale],
    offset: i32,
    out: &mut [i8],
) -> bool {
    let _ = (x, rows, bias, scales, offset, out);
    false
}
