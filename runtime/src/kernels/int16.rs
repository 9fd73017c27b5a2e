//! 16x8 kernels: int16 activations, int8 weights, symmetric (zero point 0)
//! as TFLite requires, accumulated in 64 bits with an int64 bias (or in 32
//! bits with an int32 bias), each as TFLite's reference does.

use super::conv::{Pixel, Window};
use super::{Io, clamp_i32};
use crate::fixedpoint::{multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_i64};

/// The accumulator of a 16x8 kernel: int64 (int64 bias) or int32.
pub trait Acc16: Copy {
    /// Zero.
    const ZERO: Self;
    /// `self + w * x`.
    fn mac(self, w: i8, x: i16) -> Self;
    /// `self + bias`.
    fn add(self, bias: Self) -> Self;
    /// Rescaled to the output's int32 value.
    fn requant(self, multiplier: i32, shift: i32) -> i32;
}

impl Acc16 for i64 {
    const ZERO: i64 = 0;
    #[inline(always)]
    fn mac(self, w: i8, x: i16) -> i64 {
        self.wrapping_add(w as i64 * x as i64)
    }
    #[inline(always)]
    fn add(self, bias: i64) -> i64 {
        self.wrapping_add(bias)
    }
    #[inline(always)]
    fn requant(self, multiplier: i32, shift: i32) -> i32 {
        multiply_by_quantized_multiplier_i64(self, multiplier, shift)
    }
}

impl Acc16 for i32 {
    const ZERO: i32 = 0;
    #[inline(always)]
    fn mac(self, w: i8, x: i16) -> i32 {
        self.wrapping_add(w as i32 * x as i32)
    }
    #[inline(always)]
    fn add(self, bias: i32) -> i32 {
        self.wrapping_add(bias)
    }
    #[inline(always)]
    fn requant(self, multiplier: i32, shift: i32) -> i32 {
        multiply_by_quantized_multiplier(self, multiplier, shift)
    }
}

/// Per-channel requantization of a 16x8 op (no zero points).
#[derive(Clone, Copy, Debug)]
pub struct Requant16<'a> {
    /// Q0.31 significands, one per output channel.
    pub multiplier: &'a [i32],
    /// Exponents.
    pub shift: &'a [i32],
    /// Fused activation range.
    pub act_min: i32,
    /// Upper end.
    pub act_max: i32,
}

impl Requant16<'_> {
    #[inline(always)]
    fn apply<A: Acc16>(&self, acc: A, c: usize) -> i16 {
        clamp_i32(acc.requant(self.multiplier[c], self.shift[c]), self.act_min, self.act_max) as i16
    }
}

/// CONV_2D 16x8 (TFLite `reference_integer_ops::ConvPerChannel<AccumScalar>`).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn conv2d_s16<
    A: Acc16,
    const N: usize,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const OH: usize,
    const OW: usize,
    const OC: usize,
    const KH: usize,
    const KW: usize,
    const KC: usize,
    IO: Io<i16>,
>(
    mut io: IO,
    filter: &[i8],
    bias: Option<&[A]>,
    win: &Window,
    q: &Requant16<'_>,
) {
    let filter = &filter[..OC * KH * KW * KC];
    let filters_per_group = OC / (IC / KC);
    win.for_each_pixel::<N, IH, IW, OH, OW, KH, KW>(|Pixel { b, y0, x0, ys, xs, index, .. }| {
        let out_base = index * OC;
        for oc in 0..OC {
            let group = oc / filters_per_group;
            let mut acc = A::ZERO;
            for ky in ys.clone() {
                let iy = (y0 + (ky * win.dilation_h) as isize) as usize;
                for kx in xs.clone() {
                    let ix = (x0 + (kx * win.dilation_w) as isize) as usize;
                    let in_base = ((b * IH + iy) * IW + ix) * IC + group * KC;
                    let f_base = ((oc * KH + ky) * KW + kx) * KC;
                    for (c, &f) in filter[f_base..f_base + KC].iter().enumerate() {
                        acc = acc.mac(f, io.get(in_base + c));
                    }
                }
            }
            if let Some(bias) = bias {
                acc = acc.add(bias[oc]);
            }
            io.put(out_base + oc, q.apply(acc, oc));
        }
    });
}

/// DEPTHWISE_CONV_2D 16x8.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn depthwise_s16<
    A: Acc16,
    const N: usize,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const OH: usize,
    const OW: usize,
    const M: usize,
    const KH: usize,
    const KW: usize,
    IO: Io<i16>,
>(
    mut io: IO,
    filter: &[i8],
    bias: Option<&[A]>,
    win: &Window,
    q: &Requant16<'_>,
) {
    let oc_total = IC * M;
    let filter = &filter[..KH * KW * oc_total];
    win.for_each_pixel::<N, IH, IW, OH, OW, KH, KW>(|Pixel { b, y0, x0, ys, xs, index, .. }| {
        let out_base = index * oc_total;
        for oc in 0..oc_total {
            let mut acc = A::ZERO;
            for ky in ys.clone() {
                let iy = (y0 + (ky * win.dilation_h) as isize) as usize;
                for kx in xs.clone() {
                    let ix = (x0 + (kx * win.dilation_w) as isize) as usize;
                    let x = io.get(((b * IH + iy) * IW + ix) * IC + oc / M);
                    acc = acc.mac(filter[(ky * KW + kx) * oc_total + oc], x);
                }
            }
            if let Some(bias) = bias {
                acc = acc.add(bias[oc]);
            }
            io.put(out_base + oc, q.apply(acc, oc));
        }
    });
}

/// FULLY_CONNECTED 16x8.
#[inline(never)]
pub fn fully_connected_s16<A: Acc16, const B: usize, const D: usize, const O: usize>(
    input: &[i16],
    weights: &[i8],
    bias: Option<&[A]>,
    q: &Requant16<'_>,
    output: &mut [i16],
) {
    let input = &input[..B * D];
    let weights = &weights[..O * D];
    let output = &mut output[..B * O];
    for b in 0..B {
        let row = &input[b * D..(b + 1) * D];
        for (o, w) in weights.chunks_exact(D).enumerate() {
            let mut acc = A::ZERO;
            for (&x, &wv) in row.iter().zip(w) {
                acc = acc.mac(wv, x);
            }
            if let Some(bias) = bias {
                acc = acc.add(bias[o]);
            }
            output[b * O + o] = q.apply(acc, o);
        }
    }
}
