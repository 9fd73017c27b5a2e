//! TILE (LiteRT has it, TFLM does not): the input repeated `multiples[d]`
//! times along each dimension `d`, any dtype; the multiples an int32/int64
//! constant, one per input dimension (0 gives an empty output, which has
//! nothing to plan: refused). Box copies of the input, one per repeat.

use crate::diag::Error;
use crate::lowering::context::OpCx;
use crate::lowering::movement::{Movement, const_ints, gather_boxes, same_dtype, strides};
use crate::lowering::operator::Operator;

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let input = cx.input(0)?;
    let output = cx.output(0)?;
    same_dtype(cx, &[input], output)?;
    let multiples = const_ints(cx, cx.input(1)?, "multiples")?;
    if multiples.len() != input.shape.len() {
        return Err(cx.err(format!(
            "{} multiples for an input of rank {} (one per dimension, as LiteRT)",
            multiples.len(),
            input.shape.len()
        )));
    }
    let multiples: Vec<usize> = multiples
        .iter()
        .map(|&m| usize::try_from(m).ok().filter(|&m| (1..=1 << 24).contains(&m)))
        .collect::<Option<_>>()
        .ok_or_else(|| cx.err(format!("the multiples {multiples:?} must be at least 1")))?;
    let shape: Vec<usize> = input.shape.iter().zip(&multiples).map(|(&d, &m)| d * m).collect();
    cx.check_shape(output, &shape)?;
    // Output index i along dimension d reads input index i mod d.
    let maps: Vec<Vec<Option<usize>>> =
        shape.iter().zip(&input.shape).map(|(&n, &d)| (0..n).map(|i| Some(i % d)).collect()).collect();
    let copies = gather_boxes((input.index, 0, &strides(&input.shape)), (output.index, 0, &strides(&shape)), &maps);
    Ok(Box::new(Movement { fills: Vec::new(), copies }))
}
