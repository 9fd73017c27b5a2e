//! TFLM signal library's RFFT (`CUSTOM:SignalRfft`), int16, int32 and
//! float32: each frame of the last axis zero-padded to `fft_length` and
//! transformed into `fft_length / 2 + 1` complex bins as TFLM's KISS FFT
//! computes them in that type (`runtime::kernels::fft`; tables from
//! `lowering::fft`).

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
struct Rfft {
    input: usize,
    output: usize,
    dtype: DType,
    frames: usize,
    frame: usize,
    fft_length: usize,
    stages: Vec<(usize, usize)>,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 1)?;
    let (input, output) = (cx.input(0)?, cx.output(0)?);
    if !fft::DTYPES.contains(&input.dtype) || output.dtype != input.dtype {
        return Err(cx.unsupported(
            &format!("input {}, output {}", input.dtype.name(), output.dtype.name()),
            "int16, int32, float32 (the same in and out, as TFLM)",
        ));
    }
    let (fft_length, stages) = fft::fft_length(cx)?;
    let frame = *input.shape.last().ok_or_else(|| cx.err("the input is a scalar"))?;
    if frame == 0 || frame > fft_length || input.shape.len() != output.shape.len() {
        return Err(cx.err(format!("frames of {frame} samples do not fit fft_length {fft_length}")));
    }
    let frames = input.elements / frame;
    if output.shape.last() != Some(&(fft_length + 2)) || output.elements != frames * (fft_length + 2) {
        return Err(cx.err(format!(
            "the output {} must hold {frames} frames of {} values ({} complex bins)",
            output.describe(),
            fft_length + 2,
            fft_length / 2 + 1
        )));
    }
    Ok(Box::new(Rfft {
        input: input.index,
        output: output.index,
        dtype: input.dtype,
        frames,
        frame,
        fft_length,
        stages,
    }))
}

impl Operator for Rfft {
    /// The zero-padded frame (the spectrum is built in the output).
    fn variants(&self) -> Vec<Variant> {
        fft::variant(self.dtype, self.frames, self.fft_length)
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (frames, frame, fft) = (self.frames, self.frame, self.fft_length);
        let tables = fft::tables(self.dtype, fft, &self.stages, false);
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        let (scratch, ty) = fft::scratch(cx, self.dtype)?;
        Ok(
            quote!(::tinyaot::__private::kernels::fft::rfft::<#ty, #frames, #frame, #fft>(#input, #output, #tables, #scratch);),
        )
    }
}
