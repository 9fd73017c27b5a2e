//! TRANSPOSE_CONV, as a gather: every output element sums the input
//! pixels whose filter window reaches it, in the order TFLite's scatter
//! adds them (input row, column, channel), so int8, 16x8 and float32 all
//! match TFLite's reference without its output-sized accumulator.

use super::int16::Requant16;
use super::{Io, Requant, clamp_f32, clamp_i32};
use crate::fixedpoint::{multiply_by_quantized_multiplier, rescale_reduced_i64};
use core::ops::Range;

/// Stride and leading padding (TFLite derives the padding from the output).
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    /// Vertical stride.
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Rows of padding above.
    pub pad_top: usize,
    /// Columns of padding to the left.
    pub pad_left: usize,
}

/// The input positions `i` (below `n`) whose filter tap `o + pad - i * s`
/// lies in `0..k`.
#[inline(always)]
fn sources(o: usize, pad: usize, k: usize, s: usize, n: usize) -> Range<usize> {
    let top = o + pad;
    let lo = if top + 1 > k { (top + 1 - k).div_ceil(s) } else { 0 };
    lo..(top / s + 1).min(n)
}

/// The arithmetic of one dtype: accumulate, then produce the output.
pub trait Arith {
    /// Input element.
    type In: Copy;
    /// Filter element.
    type W: Copy;
    /// Output element.
    type Out: Copy;
    /// Accumulator.
    type Acc: Copy;
    /// The empty sum.
    fn zero(&self) -> Self::Acc;
    /// `acc + x * w`.
    fn mac(&self, acc: Self::Acc, x: Self::In, w: Self::W) -> Self::Acc;
    /// Bias, requantization (or clamp) of output channel `c`.
    fn finish(&self, acc: Self::Acc, c: usize) -> Self::Out;
}

/// int8: int32 accumulation of `(x + input_offset) * w`, per-channel
/// requantization.
pub struct Int8<'a> {
    /// Requantization constants.
    pub q: &'a Requant<'a>,
    /// Optional int32 bias.
    pub bias: Option<&'a [i32]>,
}

impl Arith for Int8<'_> {
    type In = i8;
    type W = i8;
    type Out = i8;
    type Acc = i32;
    #[inline(always)]
    fn zero(&self) -> i32 {
        0
    }
    #[inline(always)]
    fn mac(&self, acc: i32, x: i8, w: i8) -> i32 {
        acc.wrapping_add((x as i32 + self.q.input_offset).wrapping_mul(w as i32))
    }
    #[inline(always)]
    fn finish(&self, acc: i32, c: usize) -> i8 {
        let acc = acc.wrapping_add(self.bias.map_or(0, |b| b[c]));
        let v = multiply_by_quantized_multiplier(acc, self.q.multiplier[c], self.q.shift[c]);
        clamp_i32(v.wrapping_add(self.q.output_offset), self.q.act_min, self.q.act_max) as i8
    }
}

/// 16x8: int64 accumulation (TFLM's only path for TRANSPOSE_CONV).
pub struct Int16<'a> {
    /// Requantization constants.
    pub q: &'a Requant16<'a>,
    /// Optional int64 bias.
    pub bias: Option<&'a [i64]>,
}

impl Arith for Int16<'_> {
    type In = i16;
    type W = i8;
    type Out = i16;
    type Acc = i64;
    #[inline(always)]
    fn zero(&self) -> i64 {
        0
    }
    #[inline(always)]
    fn mac(&self, acc: i64, x: i16, w: i8) -> i64 {
        acc.wrapping_add(x as i64 * w as i64)
    }
    #[inline(always)]
    fn finish(&self, acc: i64, c: usize) -> i16 {
        let acc = acc.wrapping_add(self.bias.map_or(0, |b| b[c]));
        // The 64-bit rescale's constants, folded (`Requant16`).
        let v = rescale_reduced_i64(acc, self.q.multiplier[c], self.q.shift[c]);
        clamp_i32(v, self.q.act_min, self.q.act_max) as i16
    }
}

/// float32: the sum, then the bias, then the activation clamp.
pub struct Float<'a> {
    /// Optional bias.
    pub bias: Option<&'a [f32]>,
    /// Activation range.
    pub act_min: f32,
    /// Upper end.
    pub act_max: f32,
}

impl Arith for Float<'_> {
    type In = f32;
    type W = f32;
    type Out = f32;
    type Acc = f32;
    #[inline(always)]
    fn zero(&self) -> f32 {
        0.0
    }
    #[inline(always)]
    fn mac(&self, acc: f32, x: f32, w: f32) -> f32 {
        acc + x * w
    }
    #[inline(always)]
    fn finish(&self, acc: f32, c: usize) -> f32 {
        let acc = match self.bias {
            Some(b) => acc + b[c],
            None => acc,
        };
        clamp_f32(acc, self.act_min, self.act_max)
    }
}

/// TRANSPOSE_CONV of an `N x IH x IW x IC` input with an `OC x KH x KW x
/// IC` filter into `N x OH x OW x OC`.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn transpose_conv<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const OH: usize,
    const OW: usize,
    const OC: usize,
    const KH: usize,
    const KW: usize,
    A: Arith,
    IO: Io<A::In, A::Out>,
>(
    mut io: IO,
    filter: &[A::W],
    geo: &Geometry,
    arith: &A,
) {
    let filter = &filter[..OC * KH * KW * IC];
    for b in 0..N {
        for oy in 0..OH {
            let ys = sources(oy, geo.pad_top, KH, geo.stride_h, IH);
            for ox in 0..OW {
                let xs = sources(ox, geo.pad_left, KW, geo.stride_w, IW);
                let out_base = ((b * OH + oy) * OW + ox) * OC;
                for oc in 0..OC {
                    let mut acc = arith.zero();
                    for iy in ys.clone() {
                        let ky = oy + geo.pad_top - iy * geo.stride_h;
                        for ix in xs.clone() {
                            let kx = ox + geo.pad_left - ix * geo.stride_w;
                            let f_base = ((oc * KH + ky) * KW + kx) * IC;
                            let ws = &filter[f_base..f_base + IC];
                            for (&x, &w) in io.run(((b * IH + iy) * IW + ix) * IC, IC).iter().zip(ws) {
                                acc = arith.mac(acc, x, w);
                            }
                        }
                    }
                    io.put(out_base + oc, arith.finish(acc, oc));
                }
            }
        }
    }
}
