//! The 16x8 dot products: int16 inputs against int8 weight rows.

/// The 32-bit sums of `x` against `R` rows (row `k` the `x.len()` bytes of
/// `rows` from `k * stride`), each wrapping as the instructions do (the
/// caller keeps runs short enough that none can overflow where that
/// matters: `kernels::int16::RUN16`).
#[inline(always)]
pub(crate) fn dot16_rows<const R: usize>(x: &[i16], rows: &[i8], stride: usize) -> [i32; R] {
    let n = x.len();
    core::array::from_fn(|k| {
        let row = &rows[k * stride..k * stride + n];
        row.iter().zip(x).fold(0i32, |acc, (&w, &v)| acc.wrapping_add(w as i32 * v as i32))
    })
}

/// A 16x8 depthwise window's sums for channels `g..g + 8` (fewer where
/// `C` ends first; the lanes past it stay 0): every tap's row in `rows`
/// (one per tap, in the filter's order) against the filter's values
/// (`KH * KW` rows of `C`), 32-bit sums (the compiler calls this for
/// windows whose sums cannot overflow).
#[inline(always)]
pub(crate) fn depthwise16_group<const C: usize, const KW: usize, const KH: usize>(
    rows: &[[&[i16; C]; KW]; KH],
    filter: &[i8],
    g: usize,
) -> [i32; 8] {
    let n = 8.min(C - g);
    let mut acc = [0i32; 8];
    for (row, w) in rows.iter().flatten().zip(filter[..KH * KW * C].chunks_exact(C)) {
        for ((a, &x), &w) in acc[..n].iter_mut().zip(&row[g..g + n]).zip(&w[g..g + n]) {
            *a = a.wrapping_add(w as i32 * x as i32);
        }
    }
    acc
}
