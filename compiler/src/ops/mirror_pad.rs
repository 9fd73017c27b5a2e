//! MIRROR_PAD: REFLECT (the border not repeated) or SYMMETRIC, float32 and
//! int8 (TFLM's), paddings from an int32/int64 constant; pads wider than
//! the input clamp to its edge as TFLM's index arithmetic does. A box copy
//! per run of one direction in every dimension.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::movement::{Movement, gather_boxes, paddings_and_shape, same_dtype, strides};
use crate::lowering::operator::Operator;
use crate::tflite::fields::mirror_pad as field;

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let input = cx.input(0)?;
    let output = cx.output(0)?;
    same_dtype(cx, &[input], output)?;
    if !matches!(input.dtype, DType::F32 | DType::I8) {
        return Err(cx.unsupported(&format!("dtype {}", input.dtype.name()), "float32, int8"));
    }
    let opts = cx.options(field::TAG, "MirrorPadOptions")?;
    let mode = opts.map(|o| o.scalar::<i8>(field::MODE, 0)).transpose()?.unwrap_or(0);
    // TFLM's offset: 1 for REFLECT (0), 0 for SYMMETRIC (1).
    let offset = match mode {
        0 => 1,
        1 => 0,
        m => return Err(cx.err(format!("mirror pad mode {m} is neither REFLECT (0) nor SYMMETRIC (1)"))),
    };
    let rank = input.shape.len();
    let (paddings, expected) = paddings_and_shape(cx, input, cx.input(1)?)?;
    cx.check_shape(output, &expected)?;
    let mut maps = Vec::with_capacity(rank);
    for (d, &n) in input.shape.iter().enumerate() {
        let (left, n) = (paddings[2 * d], n as i64);
        if n == 0 || n - 1 - offset < 0 && expected[d] as i64 > n {
            return Err(cx.err(format!("dimension {d} of size {n} cannot be reflected")));
        }
        // TFLM's `GetInputDimension`.
        let source = |i: i64| -> i64 {
            if i < left {
                let original = left + offset - 1;
                return original - i.min(original - offset);
            }
            let i = i - left;
            if i >= n {
                let original = n - (1 + offset);
                return original - (i - n).min(original);
            }
            i
        };
        let map: Vec<Option<usize>> = (0..expected[d] as i64).map(|i| usize::try_from(source(i)).ok()).collect();
        if map.iter().any(|s| s.is_none_or(|s| s >= n as usize)) {
            return Err(cx.err(format!("the paddings of dimension {d} reach outside its {n} elements")));
        }
        maps.push(map);
    }
    let copies =
        gather_boxes((input.index, 0, &strides(&input.shape)), (output.index, 0, &strides(&output.shape)), &maps);
    Ok(Box::new(Movement { fills: Vec::new(), copies }))
}
