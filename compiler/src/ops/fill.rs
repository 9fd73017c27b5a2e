//! Tensors made from constants and shapes: BROADCAST_TO (any dtype, the
//! shape an int32/int64 constant, up to 5 dimensions as TFLM), FILL
//! (float32, int32, int8: the value a scalar tensor, constant or computed)
//! and ZEROS_LIKE (float32, int32, int64, int8; zeros, not the zero
//! point, as TFLM). Box copies with zero strides, or one fill.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::movement::{Movement, const_ints, gather_boxes, same_dtype, strides};
use crate::lowering::operator::Operator;
use quote::quote;

/// A constant shape of int32/int64 values, each at least 1.
fn shape_of(cx: &OpCx<'_, '_>, index: usize) -> Result<Vec<usize>, Error> {
    let values = const_ints(cx, cx.input(index)?, "shape")?;
    values
        .iter()
        .map(|&v| usize::try_from(v).ok().filter(|&v| (1..=1 << 24).contains(&v)))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| cx.err(format!("the shape {values:?} has a dimension below 1")))
}

pub fn lower_broadcast_to(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let input = cx.input(0)?;
    let output = cx.output(0)?;
    same_dtype(cx, &[input], output)?;
    let shape = shape_of(cx, 1)?;
    let (rank, in_rank) = (shape.len(), input.shape.len());
    if rank > 5 || in_rank > rank {
        return Err(cx.err(format!("cannot broadcast {:?} to {shape:?} (at most 5 dimensions, as TFLM)", input.shape)));
    }
    cx.check_shape(output, &shape)?;
    // Input dimensions align to the right; leading ones are missing (1).
    let in_st = strides(&input.shape);
    let mut src_strides = vec![0; rank];
    let mut maps = Vec::with_capacity(rank);
    for (d, &n) in shape.iter().enumerate() {
        let k = (d + in_rank).checked_sub(rank);
        let m = k.map_or(1, |k| input.shape[k]);
        if m != 1 && m != n {
            return Err(cx.err(format!("cannot broadcast {:?} to {shape:?}", input.shape)));
        }
        if let Some(k) = k {
            src_strides[d] = in_st[k];
        }
        maps.push((0..n).map(|i| Some(if m == 1 { 0 } else { i })).collect::<Vec<_>>());
    }
    let copies = gather_boxes((input.index, 0, &src_strides), (output.index, 0, &strides(&shape)), &maps);
    Ok(Box::new(Movement { fills: Vec::new(), copies }))
}

pub fn lower_fill(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let value = cx.input(1)?;
    let output = cx.output(0)?;
    same_dtype(cx, &[value], output)?;
    if !matches!(output.dtype, DType::F32 | DType::I32 | DType::I8) {
        return Err(cx.unsupported(&format!("dtype {}", output.dtype.name()), "float32, int32, int8"));
    }
    if value.elements != 1 || !value.shape.is_empty() {
        return Err(cx.err(format!("the value must be a scalar (shape []), it has shape {:?}", value.shape)));
    }
    let shape = shape_of(cx, 0)?;
    cx.check_shape(output, &shape)?;
    // Every output element from the value's one element (zero strides).
    let maps: Vec<Vec<Option<usize>>> = shape.iter().map(|&n| vec![Some(0); n]).collect();
    let copies = gather_boxes((value.index, 0, &vec![0; shape.len()]), (output.index, 0, &strides(&shape)), &maps);
    Ok(Box::new(Movement { fills: Vec::new(), copies }))
}

pub fn lower_zeros_like(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 1)?;
    let input = cx.input(0)?;
    let output = cx.output(0)?;
    same_dtype(cx, &[input], output)?;
    let zero = match output.dtype {
        DType::F32 => quote!(0.0f32),
        DType::I32 => quote!(0i32),
        DType::I64 => quote!(0i64),
        DType::I8 => quote!(0i8),
        d => return Err(cx.unsupported(&format!("dtype {}", d.name()), "float32, int32, int64, int8")),
    };
    cx.check_shape(output, &input.shape)?;
    Ok(Box::new(Movement { fills: vec![(output.index, zero)], copies: Vec::new() }))
}
