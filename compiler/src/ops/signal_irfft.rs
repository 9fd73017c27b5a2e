//! TFLM signal library's IRFFT (`CUSTOM:SignalIrfft`), int16, int32 and
//! float32: each frame of complex bins (the last axis, interleaved real and
//! imaginary, at least `fft_length / 2 + 1` of them) back into
//! `fft_length` samples as TFLM's KISS FFT `kiss_fftri` computes them in
//! that type (fixed point divides every stage by its radix, float does not
//! scale).

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::fft;
use crate::lowering::operator::Operator;
use crate::lowering::variant::Variant;
use proc_macro2::TokenStream;
use quote::quote;

#[derive(Debug)]
struct Irfft {
    input: usize,
    output: usize,
    dtype: DType,
    frames: usize,
    bins: usize,
    fft_length: usize,
    stages: Vec<(usize, usize)>,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 1)?;
    let (input, output) = (cx.input(0)?, cx.output(0)?);
    if !fft::DTYPES.contains(&input.dtype) || output.dtype != input.dtype || input.shape.len() != output.shape.len() {
        return Err(cx.unsupported(
            &format!("input {}, output {}", input.describe(), output.describe()),
            "int16, int32, float32 of the same rank in and out (as TFLM)",
        ));
    }
    let (fft_length, stages) = fft::fft_length(cx)?;
    let last = *input.shape.last().ok_or_else(|| cx.err("the input is a scalar"))?;
    let bins = last / 2;
    if !last.is_multiple_of(2) || bins < fft_length / 2 + 1 {
        return Err(cx.err(format!(
            "frames of {last} values hold {bins} complex bins; fft_length {fft_length} reads {}",
            fft_length / 2 + 1
        )));
    }
    let frames = input.elements / last;
    if output.shape.last() != Some(&fft_length) || output.elements != frames * fft_length {
        return Err(
            cx.err(format!("the output {} must hold {frames} frames of {fft_length} samples", output.describe()))
        );
    }
    Ok(Box::new(Irfft {
        input: input.index,
        output: output.index,
        dtype: input.dtype,
        frames,
        bins,
        fft_length,
        stages,
    }))
}

impl Operator for Irfft {
    /// The merged half-length spectrum.
    fn variants(&self) -> Vec<Variant> {
        fft::variant(self.dtype, self.frames, self.fft_length)
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (frames, bins, fft) = (self.frames, self.bins, self.fft_length);
        let tables = fft::tables(self.dtype, fft, &self.stages, true);
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        let (scratch, ty) = fft::scratch(cx, self.dtype)?;
        Ok(
            quote!(::tinyaot::__private::kernels::fft::irfft::<#ty, #frames, #bins, #fft>(#input, #output, #tables, #scratch);),
        )
    }
}
