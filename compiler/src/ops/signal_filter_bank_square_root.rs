//! TFLM signal library's FILTER_BANK_SQUARE_ROOT
//! (`CUSTOM:SignalFilterBankSquareRoot`): the rounded integer square root
//! of each uint64 channel (TFLM `Sqrt64`, its 32-bit shortcut included),
//! shifted right by a run-time int32 scalar, as uint32.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use proc_macro2::TokenStream;
use quote::quote;

#[derive(Debug)]
struct FilterBankSquareRoot {
    input: usize,
    scale_bits: usize,
    output: usize,
    channels: usize,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let (input, scale_bits, output) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    let types = (input.dtype, scale_bits.dtype, output.dtype);
    if types != (DType::U64, DType::I32, DType::U32)
        || input.shape.len() != 1
        || !scale_bits.shape.is_empty()
        || output.shape.len() != 1
        || output.elements < input.elements
    {
        return Err(cx.unsupported(
            &format!("input {}, shift {}, output {}", input.describe(), scale_bits.describe(), output.describe()),
            "1-D uint64 channels and an int32 scalar shift -> 1-D uint32 (as TFLM)",
        ));
    }
    Ok(Box::new(FilterBankSquareRoot {
        input: input.index,
        scale_bits: scale_bits.index,
        output: output.index,
        channels: input.elements,
    }))
}

impl Operator for FilterBankSquareRoot {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let channels = self.channels;
        let input = cx.read(self.input)?;
        let scale_bits = cx.read(self.scale_bits)?;
        let output = cx.write(self.output)?;
        Ok(
            quote!(::tinyaot::__private::kernels::signal::filter_bank_square_root::<#channels>(#input, #scale_bits, #output);),
        )
    }
}
