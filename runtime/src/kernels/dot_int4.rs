//! Dot products over int4 weight rows kept as the model packs them (two
//! values per byte, low nibble first, the rows one after another): half
//! the flash of int8 rows. The nibbles are sign-extended as they are read
//! (plain code on every core); the sums are those of the int8 rows TFLM
//! unpacks them into, so the kernels that take [`PackedRows`] (the folded
//! FULLY_CONNECTED, the im2col CONV_2D) give TFLM's bits.

use super::{DownScale, PackedRows};

/// int4 weight rows of `depth` values each (see the module).
#[derive(Clone, Copy, Debug)]
pub struct Int4Rows<'a> {
    /// The packed nibbles.
    pub nibbles: &'a [u8],
    /// Values per row.
    pub depth: usize,
}

impl Int4Rows<'_> {
    /// `row . x` over the row's `depth` values (the first `depth` of `x`).
    #[inline(always)]
    fn dot(self, row: usize, x: &[i8]) -> i32 {
        let (d, start) = (self.depth, row * self.depth);
        let x = &x[..d];
        let mut sum = 0i32;
        if start % 2 == 0 {
            // The row starts on a byte: two weights per byte.
            let bytes = &self.nibbles[start / 2..(start + d).div_ceil(2)];
            for (x, &b) in x.chunks(2).zip(bytes) {
                sum = sum.wrapping_add(x[0] as i32 * (((b << 4) as i8) >> 4) as i32);
                if let Some(&x1) = x.get(1) {
                    sum = sum.wrapping_add(x1 as i32 * ((b as i8) >> 4) as i32);
                }
            }
        } else {
            for (c, &x) in x.iter().enumerate() {
                let k = start + c;
                let b = self.nibbles[k / 2];
                let w = if k % 2 == 0 { ((b << 4) as i8) >> 4 } else { (b as i8) >> 4 };
                sum = sum.wrapping_add(x as i32 * w as i32);
            }
        }
        sum
    }
}

impl PackedRows for Int4Rows<'_> {
    #[inline(never)]
    fn dots<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], acc: &mut [i32]) {
        for (k, (a, &b)) in acc.iter_mut().zip(bias).enumerate() {
            *a = b.wrapping_add(self.dot(first + k, x));
        }
    }

    #[inline(never)]
    fn dots_down<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], scales: &[DownScale], out: &mut [i8]) {
        let mut sums = [0i32; 4];
        for (c, out) in out.chunks_mut(4).enumerate() {
            let n = out.len();
            for (k, s) in sums[..n].iter_mut().enumerate() {
                let row = 4 * c + k;
                *s = bias[row].wrapping_add(self.dot(first + row, x));
            }
            crate::arch::requantize_block(&sums[..n], &scales[4 * c..], out);
        }
    }

    fn byte_rows(&self) -> Option<&[i8]> {
        None
    }
}
