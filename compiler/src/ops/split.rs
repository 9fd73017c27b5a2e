//! SPLIT (equal parts) and SPLIT_V (given sizes, one may be -1) along a
//! constant axis, any dtype.

use crate::diag::Error;
use crate::graph::Tensor;
use crate::lowering::context::OpCx;
use crate::lowering::movement::{BoxCopy, Movement, axis, const_ints, same_dtype, strides};
use crate::lowering::operator::Operator;

fn split(cx: &OpCx<'_, '_>, input: &Tensor<'_>, ax: usize, sizes: &[usize]) -> Result<Box<dyn Operator>, Error> {
    let n = cx.node.outputs.len();
    if sizes.len() != n || sizes.iter().sum::<usize>() != input.shape[ax] {
        return Err(cx.err(format!("parts {sizes:?} do not split dimension {ax} of {:?} into {n}", input.shape)));
    }
    let is = strides(&input.shape);
    let mut copies = Vec::new();
    let mut offset = 0;
    for (k, &size) in sizes.iter().enumerate() {
        let out = cx.output(k)?;
        same_dtype(cx, &[input], out)?;
        let mut shape = input.shape.clone();
        shape[ax] = size;
        cx.check_shape(out, &shape)?;
        let os = strides(&shape);
        let dims = shape.iter().zip(&is).zip(&os).map(|((&d, &s), &o)| (d, s as isize, o as isize)).collect();
        copies.push(BoxCopy {
            src: input.index,
            src_base: offset * is[ax],
            dst: out.index,
            dst_base: 0,
            dims,
            map: None,
        });
        offset += size;
    }
    Ok(Box::new(Movement { fills: vec![], copies }))
}

pub fn lower_split(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let n = cx.node.outputs.len();
    cx.arity(2, 2, n.max(1))?;
    let a = const_ints(cx, cx.input(0)?, "axis")?;
    let input = cx.input(1)?;
    let ax = axis(cx, *a.first().ok_or_else(|| cx.err("the axis is empty"))?, input.shape.len())?;
    if input.shape[ax] % n != 0 {
        return Err(cx.err(format!("dimension {ax} ({}) does not split into {n} equal parts", input.shape[ax])));
    }
    split(cx, input, ax, &vec![input.shape[ax] / n; n])
}

pub fn lower_split_v(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let n = cx.node.outputs.len();
    cx.arity(3, 3, n.max(1))?;
    let input = cx.input(0)?;
    let raw = const_ints(cx, cx.input(1)?, "size_splits")?;
    let a = const_ints(cx, cx.input(2)?, "axis")?;
    let ax = axis(cx, *a.first().ok_or_else(|| cx.err("the axis is empty"))?, input.shape.len())?;
    let known: i64 = raw.iter().filter(|&&s| s >= 0).sum();
    let sizes = raw
        .iter()
        .map(|&s| if s == -1 { input.shape[ax] as i64 - known } else { s })
        .map(|s| usize::try_from(s).map_err(|_| cx.err(format!("bad split sizes {raw:?}"))))
        .collect::<Result<Vec<_>, _>>()?;
    split(cx, input, ax, &sizes)
}
