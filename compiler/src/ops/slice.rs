//! SLICE (begin and size, size -1 = to the end) and STRIDED_SLICE (begin,
//! end, strides of either sign, begin/end/shrink-axis masks; the ellipsis
//! and new-axis masks and `offset` ignored, as TFLM ignores them), any
//! dtype, with TFLite's clamping rules.

use crate::diag::Error;
use crate::lowering::context::OpCx;
use crate::lowering::movement::{BoxCopy, Movement, const_ints, same_dtype, strides};
use crate::lowering::operator::Operator;

use crate::tflite::fields::strided_slice as field;

/// Emits the copy of `(start, count, step)` per input dimension; dimensions
/// in `shrunk` are dropped from the expected output shape.
fn lower_box(cx: &OpCx<'_, '_>, per_dim: &[(i64, usize, i64)], shrunk: &[bool]) -> Result<Box<dyn Operator>, Error> {
    let input = cx.input(0)?;
    let output = cx.output(0)?;
    same_dtype(cx, &[input], output)?;
    let expected: Vec<usize> = per_dim.iter().zip(shrunk).filter(|(_, s)| !**s).map(|(d, _)| d.1).collect();
    cx.check_shape(output, &expected)?;
    let is = strides(&input.shape);
    let counts: Vec<usize> = per_dim.iter().map(|d| d.1).collect();
    let os = strides(&counts);
    let src_base: i64 = per_dim.iter().zip(&is).map(|(d, &s)| if d.1 == 0 { 0 } else { d.0 * s as i64 }).sum();
    let dims =
        per_dim.iter().zip(&is).zip(&os).map(|((d, &s), &o)| (d.1, (d.2 * s as i64) as isize, o as isize)).collect();
    let copies = if output.elements == 0 {
        vec![]
    } else {
        vec![BoxCopy { src: input.index, src_base: src_base as usize, dst: output.index, dst_base: 0, dims, map: None }]
    };
    Ok(Box::new(Movement { fills: vec![], copies }))
}

pub fn lower_slice(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(3, 3, 1)?;
    let input = cx.input(0)?;
    let begin = const_ints(cx, cx.input(1)?, "begin")?;
    let size = const_ints(cx, cx.input(2)?, "size")?;
    let rank = input.shape.len();
    if begin.len() != rank || size.len() != rank {
        return Err(cx.err(format!("begin and size need {rank} values")));
    }
    let mut per_dim = Vec::new();
    for d in 0..rank {
        let dim = input.shape[d] as i64;
        let b = begin[d];
        let s = if size[d] == -1 { dim - b } else { size[d] };
        if b < 0 || s < 0 || b + s > dim {
            return Err(cx.err(format!("slice [{b}, +{s}) is outside dimension {d} of size {dim}")));
        }
        per_dim.push((b, s as usize, 1));
    }
    lower_box(cx, &per_dim, &vec![false; rank])
}

pub fn lower_strided(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(4, 4, 1)?;
    let o = cx.options(field::TAG, "StridedSliceOptions")?;
    let mask = |id: u16| -> Result<i32, Error> { Ok(o.map(|o| o.scalar::<i32>(id, 0)).transpose()?.unwrap_or(0)) };
    // TFLM reads neither the ellipsis and new-axis masks nor `offset`
    // (its `BuildStridedSliceParams` leaves them 0): a model that sets them
    // runs there as if they were unset, or fails its output-shape check;
    // the same here, so the answers agree.
    let (begin_mask, end_mask, shrink) =
        (mask(field::BEGIN_MASK)?, mask(field::END_MASK)?, mask(field::SHRINK_AXIS_MASK)?);
    let input = cx.input(0)?;
    let begin = const_ints(cx, cx.input(1)?, "begin")?;
    let end = const_ints(cx, cx.input(2)?, "end")?;
    let steps = const_ints(cx, cx.input(3)?, "strides")?;
    let rank = input.shape.len();
    if begin.len() > rank || end.len() != begin.len() || steps.len() != begin.len() {
        return Err(cx.err("begin, end and strides need one value per sliced dimension"));
    }
    let mut per_dim = Vec::new();
    let mut shrunk = Vec::new();
    for d in 0..rank {
        let dim = input.shape[d] as i64;
        if d >= begin.len() {
            per_dim.push((0, dim as usize, 1));
            shrunk.push(false);
            continue;
        }
        let step = steps[d];
        if step == 0 {
            return Err(cx.err(format!("stride 0 on dimension {d}")));
        }
        let bit = |m: i32| m & (1 << d) != 0;
        // TFLite's StartForAxis / StopForAxis.
        let clamp = |v: i64| if step > 0 { v.clamp(0, dim) } else { v.clamp(-1, dim - 1) };
        let start = if bit(begin_mask) {
            if step > 0 { 0 } else { dim - 1 }
        } else {
            clamp(if begin[d] < 0 { begin[d] + dim } else { begin[d] })
        };
        let (stop, step) = if bit(shrink) {
            (start + 1, 1)
        } else if bit(end_mask) {
            (if step > 0 { dim } else { -1 }, step)
        } else {
            let e = end[d];
            (clamp(if e < 0 { e + dim } else { e }), step)
        };
        let (span, by) = if step > 0 { (stop - start, step) } else { (start - stop, -step) };
        let count = (span.max(0) as u64).div_ceil(by as u64);
        per_dim.push((start, count as usize, step));
        shrunk.push(bit(shrink));
    }
    lower_box(cx, &per_dim, &shrunk)
}
