//! L2_NORMALIZATION along the last axis (rank 4 at most, no fused
//! activation, as TFLM): float32 divides by the root of the sum of squares
//! (at least 1e-6); int8 is TFLite's fixed-point inverse square root, the
//! output in units of 1/128 with zero point 0 whatever the output tensor
//! says (TFLM reads its quantization nowhere).

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::{InPlace, Operator};
use crate::lowering::unary::io;
use crate::tflite::fields::l2_norm as field;
use proc_macro2::TokenStream;
use quote::quote;

#[derive(Debug)]
struct L2Normalization {
    input: usize,
    output: usize,
    rows: usize,
    depth: usize,
    /// int8: the input zero point.
    int8: Option<i32>,
    /// A uint8 model's (`lowering::uint8`): LiteRT's uint8 rounding.
    uint8: bool,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let activation = cx.options(field::TAG, "L2NormOptions")?.map(|o| o.scalar::<i8>(field::FUSED_ACTIVATION, 0));
    if activation.transpose()?.unwrap_or(0) != 0 {
        return Err(cx.err("a fused activation is not supported (as TFLM)"));
    }
    let Some(&depth) = input.shape.last().filter(|_| input.shape.len() <= 4) else {
        return Err(cx.err(format!("the input must have rank 1 to 4 (as TFLM), it is {:?}", input.shape)));
    };
    let int8 = match (input.dtype, output.dtype) {
        (DType::F32, DType::F32) => None,
        (DType::I8, DType::I8) => Some(cx.per_tensor(input)?.1),
        (i, o) => {
            return Err(
                cx.unsupported(&format!("input {}, output {}", i.name(), o.name()), "float32 -> float32, int8 -> int8")
            );
        }
    };
    Ok(Box::new(L2Normalization {
        input: input.index,
        output: output.index,
        rows: input.elements / depth.max(1),
        depth,
        int8,
        uint8: cx.node.from_uint8,
    }))
}

impl Operator for L2Normalization {
    /// Elements are written in order, each after every read of it and of
    /// those before it: an output at or before the input overwrites only
    /// what is no longer read.
    fn in_place(&self) -> Option<InPlace> {
        Some(InPlace { input: self.input, output: self.output, slack: 0 })
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (rows, depth) = (self.rows, self.depth);
        let io = cx.io(self.input, self.output)?;
        let softmax = quote!(::tinyaot::__private::kernels::softmax);
        Ok(match self.int8 {
            None => quote!(#softmax::l2_normalize_f32::<#rows, #depth, _>(#io);),
            Some(zero_point) => {
                let uint8 = self.uint8;
                quote!(#softmax::l2_normalize_s8::<#rows, #depth, #uint8, _>(#io, #zero_point);)
            }
        })
    }
}
