//! int8 dot products over widened rows in plain Rust
//! (`dsp/dot_widened.rs` has their DSP form).

/// [`dot_groups`] over rows widened at compile time
/// (`layout::pack_rows_widened`: per group, two words of 16-bit pairs, values
/// 0, 2 then 1, 3), the halves read with one halfword load each: a u32
/// slice is its 16-bit halves, low half first (tinyaot builds for
/// little-endian targets only: `lib.rs` refuses the others).
#[inline(always)]
pub(crate) fn dot_groups_widened<const R: usize>(x: &[i8], block: &[u32], mut acc: [i32; R]) -> [i32; R] {
    // SAFETY: a u32 slice is 4-aligned and holds exactly twice as many
    // i16, any bit pattern of which is valid; the borrow is kept.
    let halves = unsafe { core::slice::from_raw_parts(block.as_ptr().cast::<i16>(), 2 * block.len()) };
    for (xg, wg) in x.chunks_exact(4).zip(halves.chunks_exact(4 * R)) {
        for (r, a) in acc.iter_mut().enumerate() {
            let w = &wg[4 * r..4 * r + 4];
            let s = xg[0] as i32 * w[0] as i32
                + xg[2] as i32 * w[1] as i32
                + xg[1] as i32 * w[2] as i32
                + xg[3] as i32 * w[3] as i32;
            *a = a.wrapping_add(s);
        }
    }
    acc
}
