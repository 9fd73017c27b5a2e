//! CONCATENATION along any axis, any dtype (int8 inputs must share the
//! output's quantization, as TFLM requires).

use crate::diag::Error;
use crate::lowering::context::OpCx;
use crate::lowering::movement::{Movement, axis, same_dtype, strides, whole};
use crate::lowering::operator::Operator;

use crate::tflite::fields::concatenation as field;

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let n = cx.node.inputs.len();
    cx.arity(1, n.max(1), 1)?;
    let opts = cx.options(field::TAG, "ConcatenationOptions")?;
    let raw_axis = opts.map(|o| o.scalar::<i32>(field::AXIS, 0)).transpose()?.unwrap_or(0);
    if opts.map(|o| o.scalar::<i8>(field::FUSED_ACTIVATION, 0)).transpose()?.unwrap_or(0) != 0 {
        return Err(cx.err("a fused activation on CONCATENATION is not supported (TFLM rejects it too)"));
    }
    let output = cx.output(0)?;
    let inputs = (0..n).map(|i| cx.input(i)).collect::<Result<Vec<_>, _>>()?;
    same_dtype(cx, &inputs, output)?;
    let rank = output.shape.len();
    let ax = axis(cx, raw_axis as i64, rank)?;
    let mut total = 0;
    for t in &inputs {
        if t.shape.len() != rank || (0..rank).any(|d| d != ax && t.shape[d] != output.shape[d]) {
            return Err(cx.err(format!(
                "input '{}' {:?} does not fit output {:?} along axis {ax}",
                t.name, t.shape, output.shape
            )));
        }
        if t.quant.is_some()
            && t.quant.as_ref().map(|q| (q.scale(), q.zero_point()))
                != output.quant.as_ref().map(|q| (q.scale(), q.zero_point()))
        {
            return Err(
                cx.err(format!("input '{}' is quantized differently from the output; TFLM requires equal", t.name))
            );
        }
        total += t.shape[ax];
    }
    if total != output.shape[ax] {
        return Err(
            cx.err(format!("the inputs add up to {total} along axis {ax}, the output has {}", output.shape[ax]))
        );
    }
    let os = strides(&output.shape);
    let mut offset = 0;
    let mut copies = Vec::new();
    for t in inputs {
        copies.push(whole(t, output.index, offset * os[ax], &os));
        offset += t.shape[ax];
    }
    Ok(Box::new(Movement { fills: vec![], copies }))
}
