//! TFLM signal library's FFT_AUTO_SCALE (`CUSTOM:SignalFftAutoScale`):
//! the int16 frame shifted left as far as its largest magnitude allows,
//! and that shift as an int32 scalar (TFLM `FftAutoScale`, its quirks
//! kept: -32768 and an all-zero frame give shift 0).

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use proc_macro2::TokenStream;
use quote::quote;

#[derive(Debug)]
struct FftAutoScale {
    input: usize,
    output: usize,
    scale_bits: usize,
    len: usize,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 2)?;
    let (input, output, scale_bits) = (cx.input(0)?, cx.output(0)?, cx.output(1)?);
    if input.dtype != DType::I16 || output.dtype != DType::I16 || scale_bits.dtype != DType::I32 {
        return Err(cx.unsupported(
            &format!("input {}, outputs {} and {}", input.dtype.name(), output.dtype.name(), scale_bits.dtype.name()),
            "int16 -> int16 and an int32 scalar (as TFLM)",
        ));
    }
    if input.shape.len() != 1 || output.shape != input.shape || !scale_bits.shape.is_empty() {
        return Err(cx.err(format!(
            "the input and output must be 1-D of one length and the shift a scalar; they are {:?}, {:?}, {:?}",
            input.shape, output.shape, scale_bits.shape
        )));
    }
    Ok(Box::new(FftAutoScale {
        input: input.index,
        output: output.index,
        scale_bits: scale_bits.index,
        len: input.elements,
    }))
}

impl Operator for FftAutoScale {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let len = self.len;
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        let scale_bits = cx.write(self.scale_bits)?;
        Ok(quote!(::tinyaot::__private::kernels::signal::fft_auto_scale::<#len>(#input, #output, #scale_bits);))
    }
}
