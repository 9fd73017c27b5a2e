//! int8 dot products over int4 rows in plain Rust (`dsp/dot_int4.rs`
//! has their DSP form).

/// `R` (1 or 2) int4 rows (`layout::pack_rows_int4`, the words of one
/// pair or single row, interleaved) against the first `8 * groups` values
/// of `x`: the sums.
#[inline(always)]
pub(crate) fn dot_int4_rows<const R: usize>(x: &[i8], words: &[u32], groups: usize) -> [i32; R] {
    let mut acc = [0i32; R];
    for (xg, wg) in x[..8 * groups].chunks_exact(8).zip(words[..R * groups].chunks_exact(R)) {
        for (a, &word) in acc.iter_mut().zip(wg) {
            for (k, &xv) in xg.iter().enumerate() {
                *a = a.wrapping_add(xv as i32 * crate::kernels::layout::int4_row_value(word, k));
            }
        }
    }
    acc
}
