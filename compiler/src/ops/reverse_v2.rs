//! REVERSE_V2: the input with the listed axes reversed (one box copy with
//! negative strides); float32, int32, int16, int8 and uint8, the axes
//! contiguous, as TFLM requires.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::movement::{Movement, axis, const_ints, gather_boxes, same_dtype, strides};
use crate::lowering::operator::Operator;

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let input = cx.input(0)?;
    let output = cx.output(0)?;
    same_dtype(cx, &[input], output)?;
    if !matches!(input.dtype, DType::F32 | DType::I32 | DType::I16 | DType::I8 | DType::U8) {
        return Err(cx.unsupported(&format!("dtype {}", input.dtype.name()), "float32, int32, int16, int8, uint8"));
    }
    let axis_t = cx.input(1)?;
    if axis_t.dtype != DType::I32 {
        return Err(cx.err(format!("the axis tensor must be int32 (TFLM's rule), it is {}", axis_t.dtype.name())));
    }
    let rank = input.shape.len();
    let mut axes: Vec<usize> =
        const_ints(cx, axis_t, "axis")?.into_iter().map(|a| axis(cx, a, rank)).collect::<Result<_, _>>()?;
    axes.sort_unstable();
    if axes.len() > rank || axes.windows(2).any(|w| w[0] + 1 != w[1]) {
        return Err(cx.err(format!("the axes {axes:?} are not contiguous, which TFLM does not support")));
    }
    cx.check_shape(output, &input.shape)?;
    let maps: Vec<Vec<Option<usize>>> = input
        .shape
        .iter()
        .enumerate()
        .map(|(d, &n)| (0..n).map(|i| Some(if axes.contains(&d) { n - 1 - i } else { i })).collect())
        .collect();
    let st = strides(&input.shape);
    let copies = gather_boxes((input.index, 0, &st), (output.index, 0, &st), &maps);
    Ok(Box::new(Movement { fills: Vec::new(), copies }))
}
