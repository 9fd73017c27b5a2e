//! CONCATENATION along any axis, any dtype (int8 inputs must share the
//! output's quantization, as TFLM requires; a uint8 model's may differ, as
//! LiteRT allows: rescaled by a table).

use crate::diag::Error;
use crate::graph::Tensor;
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
        let mut copy = whole(t, output.index, offset * os[ax], &os);
        copy.map = rescaled(cx, t, output)?;
        copies.push(copy);
        offset += t.shape[ax];
    }
    Ok(Box::new(Movement { fills: vec![], copies }))
}

/// `None` where input `t` shares the output's quantization; in a uint8
/// model (`lowering::uint8`) LiteRT's `ConcatenationWithScaling` as a table
/// over the 256 shifted values (float32 arithmetic on the uint8 value:
/// `round(q * scale + bias) + output zero point`, clamped), else TFLM's
/// refusal.
fn rescaled(cx: &OpCx<'_, '_>, t: &Tensor<'_>, output: &Tensor<'_>) -> Result<Option<Vec<i8>>, Error> {
    let params = |t: &Tensor<'_>| t.quant.as_ref().map(|q| (q.scale(), q.zero_point()));
    if t.quant.is_none() || params(t) == params(output) {
        return Ok(None);
    }
    if !cx.node.from_uint8 {
        return Err(cx.err(format!("input '{}' is quantized differently from the output; TFLM requires equal", t.name)));
    }
    let ((si, zi), (so, zo)) = (cx.per_tensor(t)?, cx.per_tensor(output)?);
    // The uint8 zero points, before the pass's shift.
    let (zi, zo) = (zi + 128, zo + 128);
    let scale = si * (1.0f32 / so);
    let bias = (-zi) as f32 * scale;
    let table = (0..=255u8)
        .map(|q| {
            let value = (f32::from(q) * scale + bias).round() as i32 + zo;
            (value.clamp(0, 255) - 128) as i8
        })
        .collect();
    Ok(Some(table))
}
