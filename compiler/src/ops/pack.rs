//! PACK (stack N tensors along a new axis) and UNPACK (the inverse), any
//! dtype.

use crate::diag::Error;
use crate::lowering::context::OpCx;
use crate::lowering::movement::{BoxCopy, Movement, axis, same_dtype, strides};
use crate::lowering::operator::Operator;

use crate::tflite::fields::{pack, unpack};

pub fn lower_pack(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let n = cx.node.inputs.len();
    cx.arity(1, n.max(1), 1)?;
    let raw = cx.options(pack::TAG, "PackOptions")?.map(|o| o.scalar::<i32>(pack::AXIS, 0)).transpose()?.unwrap_or(0);
    let output = cx.output(0)?;
    let inputs = (0..n).map(|i| cx.input(i)).collect::<Result<Vec<_>, _>>()?;
    same_dtype(cx, &inputs, output)?;
    let first = &inputs[0].shape;
    let ax = axis(cx, raw as i64, first.len() + 1)?;
    let mut expected = first.clone();
    expected.insert(ax, n);
    cx.check_shape(output, &expected)?;
    let os = strides(&output.shape);
    let mut dst: Vec<usize> = os.clone();
    dst.remove(ax);
    let mut copies = Vec::new();
    for (k, t) in inputs.iter().enumerate() {
        if &t.shape != first {
            return Err(cx.err(format!("input '{}' {:?} differs from {:?}", t.name, t.shape, first)));
        }
        let is = strides(&t.shape);
        let dims = t.shape.iter().zip(&is).zip(&dst).map(|((&d, &s), &o)| (d, s as isize, o as isize)).collect();
        copies.push(BoxCopy { src: t.index, src_base: 0, dst: output.index, dst_base: k * os[ax], dims, map: None });
    }
    Ok(Box::new(Movement { fills: vec![], copies }))
}

pub fn lower_unpack(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let n = cx.node.outputs.len();
    cx.arity(1, 1, n.max(1))?;
    let raw =
        cx.options(unpack::TAG, "UnpackOptions")?.map(|o| o.scalar::<i32>(unpack::AXIS, 0)).transpose()?.unwrap_or(0);
    let input = cx.input(0)?;
    let ax = axis(cx, raw as i64, input.shape.len())?;
    if input.shape[ax] != n {
        return Err(cx.err(format!("dimension {ax} is {} but there are {n} outputs", input.shape[ax])));
    }
    let is = strides(&input.shape);
    let mut src: Vec<usize> = is.clone();
    src.remove(ax);
    let mut expected = input.shape.clone();
    expected.remove(ax);
    let mut copies = Vec::new();
    for k in 0..n {
        let out = cx.output(k)?;
        same_dtype(cx, &[input], out)?;
        cx.check_shape(out, &expected)?;
        let os = strides(&expected);
        let dims = expected.iter().zip(&src).zip(&os).map(|((&d, &s), &o)| (d, s as isize, o as isize)).collect();
        copies.push(BoxCopy { src: input.index, src_base: k * is[ax], dst: out.index, dst_base: 0, dims, map: None });
    }
    Ok(Box::new(Movement { fills: vec![], copies }))
}
