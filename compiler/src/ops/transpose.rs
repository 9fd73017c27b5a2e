//! TRANSPOSE by a constant permutation, any dtype. A 4-D one that keeps
//! the batch axis of one image (an NCHW input turned NHWC, as PyTorch
//! exports start) may also run band by band in a tiled stage: each band
//! copies its output rows from the whole input.

use crate::diag::Error;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::movement::{BoxCopy, Movement, const_ints, same_dtype, strides};
use crate::lowering::operator::{Operator, WindowOp};
use crate::lowering::window::Geometry;
use proc_macro2::TokenStream;

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
    if rank == 4 && perm[0] == 0 && input.shape[0] == 1 {
        let (i, o) = (&input.shape, &output.shape);
        // Every output row reads the whole input: a window as tall as the
        // input that does not move (stride 0).
        let geo = Geometry {
            input: [1, i[1], i[2], i[3]],
            output: [1, o[1], o[2], o[3]],
            kernel: [i[1], 1],
            stride: [0, 1],
            dilation: [1, 1],
            pad: [0, 0],
        };
        return Ok(Box::new(Transpose { copy, geo }));
    }
    Ok(Box::new(Movement { fills: vec![], copies: vec![copy] }))
}

/// A TRANSPOSE of one 4-D image that keeps its batch axis.
#[derive(Debug)]
struct Transpose {
    /// The whole copy.
    copy: BoxCopy,
    /// Its window: every output row reads every input row.
    geo: Geometry,
}

impl Operator for Transpose {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        Movement { fills: vec![], copies: vec![self.copy.clone()] }.emit(cx)
    }

    fn window(&self) -> Option<WindowOp> {
        Some(WindowOp { inputs: vec![self.copy.src], output: self.copy.dst, geo: self.geo })
    }

    /// A band: its output rows, from their place in the whole input.
    fn emit_window(&self, cx: &mut Emit<'_>, geo: &Geometry) -> Result<TokenStream, Error> {
        let rows = cx.band_rows().ok_or_else(|| Error::model("internal error: a TRANSPOSE band without its rows"))?;
        let mut copy = self.copy.clone();
        // `dims[1]`: the output rows, with their stride in the input.
        copy.src_base = rows.start * copy.dims[1].1 as usize;
        copy.dims[1].0 = geo.output[1];
        Movement { fills: vec![], copies: vec![copy] }.emit(cx)
    }
}
