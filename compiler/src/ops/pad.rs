//! PAD and PADV2: constant padding, any dtype (int8 pads with the output
//! zero point, or PADV2's value), paddings from an int32/int64 constant.

use crate::diag::Error;
use crate::lowering::context::OpCx;
use crate::lowering::movement::{
    Movement, paddings_and_shape, same_dtype, scalar_literal, strides, whole, zero_literal,
};
use crate::lowering::operator::Operator;

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
    Ok(Box::new(Movement { fills: vec![(output.index, value)], copies: vec![whole(input, output.index, base, &os)] }))
}
