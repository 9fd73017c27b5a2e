//! Window geometry of conv, depthwise and pooling ops (output size,
//! padding, the runtime's `Window`), and how far such a kernel may write
//! its output over its input.

use super::context::OpCx;
use super::options::Padding;
use crate::diag::Error;
use proc_macro2::TokenStream;
use quote::quote;

/// The window geometry shared by CONV_2D and DEPTHWISE_CONV_2D.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    /// Input N, H, W, C.
    pub input: [usize; 4],
    /// Output N, H, W, C.
    pub output: [usize; 4],
    /// Filter height and width.
    pub kernel: [usize; 2],
    /// Stride (h, w).
    pub stride: [usize; 2],
    /// Dilation (h, w).
    pub dilation: [usize; 2],
    /// Top and left padding.
    pub pad: [usize; 2],
}

impl Geometry {
    /// The 1x1 window of an elementwise op over an NHWC map: output row `y`
    /// reads input row `y`.
    pub fn elementwise(shape: [usize; 4]) -> Geometry {
        Geometry { input: shape, output: shape, kernel: [1, 1], stride: [1, 1], dilation: [1, 1], pad: [0, 0] }
    }

    /// Multiply-accumulates of a window op over this geometry: every
    /// output value sums `kernel` taps of `depth` values each (the filter
    /// depth of a conv, 1 for a depthwise).
    pub fn macs(&self, depth: usize) -> u64 {
        let [n, oh, ow, oc] = self.output;
        let [kh, kw] = self.kernel;
        [n, oh, ow, oc, kh, kw, depth].iter().fold(1u64, |acc, &d| acc.saturating_mul(d as u64))
    }

    /// Computes output size and padding, and checks the stored output shape.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        cx: &OpCx<'_, '_>,
        input: [usize; 4],
        kernel: [usize; 2],
        out_channels: usize,
        stride: [usize; 2],
        dilation: [usize; 2],
        padding: Padding,
        output: &crate::graph::Tensor<'_>,
    ) -> Result<Geometry, Error> {
        let oh = padding.out_size(input[1], kernel[0], stride[0], dilation[0]);
        let ow = padding.out_size(input[2], kernel[1], stride[1], dilation[1]);
        let (Some(oh), Some(ow)) = (oh, ow) else {
            return Err(cx.err(format!(
                "a {}x{} filter (dilation {}x{}) does not fit the {}x{} input with VALID padding",
                kernel[0], kernel[1], dilation[0], dilation[1], input[1], input[2]
            )));
        };
        let out = [input[0], oh, ow, out_channels];
        cx.check_shape(output, &out)?;
        if oh == 0 || ow == 0 {
            return Err(cx.err("the output is empty"));
        }
        let pad = [
            Padding::leading(input[1], kernel[0], stride[0], dilation[0], oh),
            Padding::leading(input[2], kernel[1], stride[1], dilation[1], ow),
        ];
        Ok(Geometry { input, output: out, kernel, stride, dilation, pad })
    }

    /// Whether the int8 im2col kernel reads each window in place (a 1x1
    /// window without top or left padding): no patch, by the rule the
    /// kernel and the scratch size share (`scratch::im2col_in_place`).
    pub fn im2col_in_place(&self) -> bool {
        let [kh, kw] = self.kernel;
        tinyaot_common::scratch::im2col_in_place(kh, kw, self.pad != [0, 0])
    }

    /// The int8 im2col kernel's patch argument: none where it reads each
    /// window in place (the plan gave the op no scratch then), else the
    /// op's scratch.
    pub fn im2col_patch(&self, cx: &super::emit::Emit<'_>) -> Result<TokenStream, Error> {
        if self.im2col_in_place() { Ok(quote!(&mut [])) } else { cx.scratch::<i8>() }
    }

    /// The runtime's `Window` literal.
    pub fn window(&self) -> TokenStream {
        let [sh, sw] = self.stride;
        let [dh, dw] = self.dilation;
        let [pt, pl] = self.pad;
        quote!(&::tinyaot::__private::kernels::conv::Window {
            stride_h: #sh, stride_w: #sw, dilation_h: #dh, dilation_w: #dw, pad_top: #pt, pad_left: #pl,
        })
    }
}

/// Most output pixels simulated for a slack; larger ops are not run in place.
const MAX_SIMULATED_PIXELS: usize = 1 << 20;

/// The in-place slack of a window kernel (conv, depthwise, pool) that
/// visits output pixels in NHWC order and, for each pixel, reads its whole
/// (clipped) input window, for every channel, before moving on: when pixel
/// `k` is written (bytes up to `(k + 1) * OC * out_elem`), every input byte
/// from the first one pixel `k` or any later pixel reads must be intact.
pub fn window_slack(geo: &Geometry, in_elem: usize, out_elem: usize) -> Option<i64> {
    let [n, ih, iw, ic] = geo.input;
    let [_, oh, ow, oc] = geo.output;
    let pixels = n.checked_mul(oh)?.checked_mul(ow)?;
    if pixels > MAX_SIMULATED_PIXELS {
        return None;
    }
    let first_tap = |origin: i64, dilation: usize, size: usize, k: usize| -> Option<usize> {
        (0..k).map(|t| origin + (t * dilation) as i64).find(|&p| p >= 0 && (p as usize) < size).map(|p| p as usize)
    };
    let mut reads = Vec::with_capacity(pixels);
    for b in 0..n {
        for oy in 0..oh {
            let y0 = (oy * geo.stride[0]) as i64 - geo.pad[0] as i64;
            for ox in 0..ow {
                let x0 = (ox * geo.stride[1]) as i64 - geo.pad[1] as i64;
                let first = match (
                    first_tap(y0, geo.dilation[0], ih, geo.kernel[0]),
                    first_tap(x0, geo.dilation[1], iw, geo.kernel[1]),
                ) {
                    (Some(y), Some(x)) => ((b * ih + y) * iw + x) * ic * in_elem,
                    // An empty window reads nothing: no constraint from it.
                    _ => usize::MAX,
                };
                reads.push(first);
            }
        }
    }
    let mut slack = i64::MAX;
    let mut suffix_min = usize::MAX;
    for k in (0..pixels).rev() {
        suffix_min = suffix_min.min(reads[k]);
        if suffix_min != usize::MAX {
            let written = ((k + 1) * oc * out_elem) as i64;
            slack = slack.min(suffix_min as i64 - written);
        }
    }
    Some(if slack == i64::MAX { 0 } else { slack })
}
