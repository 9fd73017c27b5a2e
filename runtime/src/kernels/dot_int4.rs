//! Dot products over int4 weight rows kept at half a byte per weight
//! (`layout::pack_rows_int4`, read 8 values per word by
//! `arch::dot_int4_rows`): half the flash of int8 rows. The sums are
//! those of the int8 rows TFLM unpacks them into, so the kernels that take [`PackedRows`] (the folded
//! FULLY_CONNECTED, the im2col CONV_2D) or a [`Filter`] (the direct
//! CONV_2D and DEPTHWISE_CONV_2D) give TFLM's bits. (The depthwise fast
//! path has its own int4 layout, `layout::pack_depthwise_int4`.)

use super::{DownScale, Filter, PackedRows};

/// Value `k` of nibble-packed data (low nibble first), sign-extended.
#[inline(always)]
fn nibble(nibbles: &[u8], k: usize) -> i8 {
    let b = nibbles[k / 2];
    if k.is_multiple_of(2) { ((b << 4) as i8) >> 4 } else { (b as i8) >> 4 }
}

/// An int4 filter as the model packs it (two values per byte, low nibble
/// first, in the model's order), read by the direct kernels.
#[derive(Clone, Copy, Debug)]
pub struct Int4Filter<'a> {
    /// The packed nibbles.
    pub nibbles: &'a [u8],
}

impl Filter<i8> for Int4Filter<'_> {
    #[inline(always)]
    fn run(self, start: usize, len: usize) -> impl Iterator<Item = i8> {
        (start..start + len).map(move |k| nibble(self.nibbles, k))
    }

    #[inline(always)]
    fn at(self, i: usize) -> i8 {
        nibble(self.nibbles, i)
    }
}

/// int4 weight rows of `depth` values each, as `layout::pack_rows_int4`
/// arranges them (half a byte per weight; see the module).
#[derive(Clone, Copy, Debug)]
pub struct Int4Rows<'a> {
    /// `layout::pack_rows_int4`.
    pub words: &'a [u32],
    /// Values per row.
    pub depth: usize,
    /// Rows in all.
    pub rows: usize,
}

impl Int4Rows<'_> {
    /// The sums `row . x` of the pair of rows from row `r` (even), or of
    /// the last row alone; how many.
    #[inline(always)]
    fn block(self, x: &[i8], r: usize) -> ([i32; 2], usize) {
        let (depth, groups) = (self.depth, self.depth.div_ceil(8));
        let n = (self.rows - r).min(2);
        // Pairs before row r take `2 * groups` words each.
        let words = &self.words[r * groups..][..n * groups];
        let x = &x[..depth];
        let full = depth / 8;
        let mut sums = [0i32; 2];
        if n == 2 {
            sums = crate::arch::dot_int4_rows::<2>(x, words, full);
        } else {
            sums[0] = crate::arch::dot_int4_rows::<1>(x, words, full)[0];
        }
        // The last, partial group of 8.
        for (k, &xv) in x[8 * full..].iter().enumerate() {
            for (s, &word) in sums.iter_mut().zip(&words[full * n..]) {
                *s = s.wrapping_add(xv as i32 * super::layout::int4_row_value(word, k));
            }
        }
        (sums, n)
    }
}

impl PackedRows for Int4Rows<'_> {
    #[inline(never)]
    fn dots<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], acc: &mut [i32]) {
        let bias = &bias[..acc.len()];
        for k in (0..acc.len()).step_by(2) {
            let (sums, _) = self.block(x, first + k);
            for ((a, &b), s) in acc[k..].iter_mut().zip(&bias[k..]).zip(sums) {
                *a = b.wrapping_add(s);
            }
        }
    }

    #[inline(never)]
    fn dots_down<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], scales: &[DownScale], out: &mut [i8]) {
        let bias = &bias[..out.len()];
        for (c, out) in out.chunks_mut(4).enumerate() {
            let mut sums = [0i32; 4];
            for half in (0..out.len()).step_by(2) {
                let (pair, _) = self.block(x, first + 4 * c + half);
                for ((s, &b), p) in sums[half..out.len()].iter_mut().zip(&bias[4 * c + half..]).zip(pair) {
                    *s = b.wrapping_add(p);
                }
            }
            crate::arch::requantize_block(&sums[..out.len()], &scales[4 * c..], out);
        }
    }
}
