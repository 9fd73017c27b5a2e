//! TRANSPOSE by a constant permutation, any dtype.

use crate::diag::Error;
use crate::lowering::context::OpCx;
use crate::lowering::movement::{BoxCopy, Movement, const_ints, same_dtype, strides};
use crate::lowering::operator::Operator;

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let input = cx.input(0)?;
    let perm = const_ints(cx, cx.input(1)?, "perm")?;
    let output = cx.output(0)?;
    same_dtype(cx, &[input], output)?;
    let rank = input.shape.len();
    let mut seen = vec![false; rank];
    for &p in &perm {
        match usize::try_from(p).ok().filter(|&p| p < rank && !seen[p]) {
            Some(p) => seen[p] = true,
            None => return Err(cx.err(format!("{perm:?} is not a permutation of {rank} axes"))),
        }
    }
    if perm.len() != rank {
        return Err(cx.err(format!("{perm:?} is not a permutation of {rank} axes")));
    }
    let expected: Vec<usize> = perm.iter().map(|&p| input.shape[p as usize]).collect();
    cx.check_shape(output, &expected)?;
    let (is, os) = (strides(&input.shape), strides(&output.shape));
    let dims = (0..rank).map(|k| (output.shape[k], is[perm[k] as usize] as isize, os[k] as isize)).collect();
    let copy = BoxCopy { src: input.index, src_base: 0, dst: output.index, dst_base: 0, dims, map: None };
    Ok(Box::new(Movement { fills: vec![], copies: vec![copy] }))
}
