//! PAD and PADV2: constant padding, any dtype (int8 pads with the output
//! zero point, or PADV2's value), paddings from an int32/int64 constant.

use crate::diag::Error;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::movement::BoxCopy;
use crate::lowering::movement::{
    Movement, paddings_and_shape, same_dtype, scalar_literal, strides, whole, zero_literal,
};
use crate::lowering::operator::{Operator, WindowOp};
use crate::lowering::window::Geometry;
use proc_macro2::TokenStream;

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 3, 1)?;
    let input = cx.input(0)?;
    let (paddings, expected) = paddings_and_shape(cx, input, cx.input(1)?)?;
    let output = cx.output(0)?;
    same_dtype(cx, &[input], output)?;
    let rank = input.shape.len();
    cx.check_shape(output, &expected)?;
    let value = match cx.opt_input(2) {
        Some(v) => scalar_literal(cx, v, output.dtype)?,
        None => zero_literal(output.dtype, output.quant.as_ref().map_or(0, |q| q.zero_point())),
    };
    let os = strides(&output.shape);
    let base: usize = (0..rank).map(|d| paddings[2 * d] as usize * os[d]).sum();
    let movement =
        Movement { fills: vec![(output.index, value.clone())], copies: vec![whole(input, output.index, base, &os)] };
    // One image padded along its height and width only: a 1x1 window whose
    // padding is the PAD's, so a tiled stage may hold it (Keras pads before
    // its stride-2 convolutions).
    let image = match (&input.shape[..], &paddings[..]) {
        (&[1, h, w, c], &[0, 0, top, bottom, left, right, 0, 0]) => {
            let [top, bottom, left, right] = [top, bottom, left, right].map(|p| p as usize);
            Some(Geometry {
                input: [1, h, w, c],
                output: [1, h + top + bottom, w + left + right, c],
                kernel: [1, 1],
                stride: [1, 1],
                dilation: [1, 1],
                pad: [top, left],
            })
        }
        _ => None,
    };
    match image {
        Some(geo) => Ok(Box::new(PadImage { movement, input: input.index, output: output.index, value, geo })),
        None => Ok(Box::new(movement)),
    }
}

/// PAD of one NHWC image along its height and width.
#[derive(Debug)]
struct PadImage {
    movement: Movement,
    input: usize,
    output: usize,
    /// The padding value.
    value: TokenStream,
    /// The padding as a 1x1 window: input row `y` is output row `y + top`.
    geo: Geometry,
}

impl Operator for PadImage {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        self.movement.emit(cx)
    }

    fn window(&self) -> Option<WindowOp> {
        Some(WindowOp { inputs: vec![self.input], output: self.output, geo: self.geo })
    }

    /// A band: its rows filled, then its input rows copied in below the
    /// band's share of the top padding.
    fn emit_window(&self, cx: &mut Emit<'_>, geo: &Geometry) -> Result<TokenStream, Error> {
        let [_, rows, w, c] = geo.input;
        let out_w = geo.output[2];
        let copy = BoxCopy {
            src: self.input,
            src_base: 0,
            dst: self.output,
            dst_base: (geo.pad[0] * out_w + geo.pad[1]) * c,
            dims: vec![(rows, (w * c) as isize, (out_w * c) as isize), (w * c, 1, 1)],
            map: None,
        };
        Movement { fills: vec![(self.output, self.value.clone())], copies: vec![copy] }.emit(cx)
    }
}
