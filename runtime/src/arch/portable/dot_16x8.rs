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
