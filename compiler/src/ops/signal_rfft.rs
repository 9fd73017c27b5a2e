//! TFLM signal library's RFFT (`CUSTOM:SignalRfft`), int16: each frame of
//! the last axis zero-padded to `fft_length` and transformed into
//! `fft_length / 2 + 1` complex int16 bins as TFLM's KISS FFT (16-bit fixed
//! point) computes them (`runtime::kernels::fft`). The stage plan and the
//! Q15 twiddles (`floor(0.5 + 32767 cos)`) are computed here. Lengths whose
//! half has a prime factor above 5 are refused (TFLM's KISS build has no
//! buffer for them and fails).

use crate::codegen::Emit;
use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::operator::{Kernel, Operator, Variant};
use crate::tflite::flexbuffer::FlexMap;
use proc_macro2::TokenStream;
use quote::quote;
use std::f64::consts::PI;

/// Position of `fft_length` among the options ('T' is 0).
const FFT_LENGTH: usize = 1;

/// KISS `kf_factor`: radix 4 while it divides, then 2, then odd primes;
/// `(radix, remaining length)` per stage.
fn stages(mut n: usize) -> Vec<(usize, usize)> {
    let floor_sqrt = (n as f64).sqrt().floor() as usize;
    let mut p = 4;
    let mut out = Vec::new();
    loop {
        while !n.is_multiple_of(p) {
            p = match p {
                4 => 2,
                2 => 3,
                _ => p + 2,
            };
            if p > floor_sqrt {
                p = n;
            }
        }
        n /= p;
        out.push((p, n));
        if n <= 1 {
            return out;
        }
    }
}

/// KISS's fixed-point `kf_cexp`.
fn q15_cexp(phase: f64) -> [i16; 2] {
    [(0.5 + 32767.0 * phase.cos()).floor() as i16, (0.5 + 32767.0 * phase.sin()).floor() as i16]
}

#[derive(Debug)]
struct Rfft {
    input: usize,
    output: usize,
    frames: usize,
    frame: usize,
    fft_length: usize,
    stages: Vec<(usize, usize)>,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 1)?;
    let (input, output) = (cx.input(0)?, cx.output(0)?);
    if input.dtype != DType::I16 || output.dtype != DType::I16 {
        return Err(cx.unsupported(
            &format!("input {}, output {}", input.dtype.name(), output.dtype.name()),
            "int16 (float32 and int32 are not yet)",
        ));
    }
    let options = cx.node.custom_options.ok_or_else(|| cx.err("the options (fft_length) are missing"))?;
    let fft_length = FlexMap::root(options).and_then(|m| m.int(FFT_LENGTH)).map_err(|e| cx.err(e.message))?;
    let fft_length = usize::try_from(fft_length)
        .ok()
        .filter(|&n| n >= 4 && n.is_multiple_of(2) && n <= 1 << 16)
        .ok_or_else(|| cx.err(format!("fft_length {fft_length} must be even, from 4 to 65536")))?;
    let stages = stages(fft_length / 2);
    if let Some(&(radix, _)) = stages.iter().find(|(p, _)| !(2..=5).contains(p)) {
        return Err(cx.err(format!(
            "fft_length {fft_length}: half of it has the factor {radix}; TFLM's FFT runs radices 2 to 5 only"
        )));
    }
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
    Ok(Box::new(Rfft { input: input.index, output: output.index, frames, frame, fft_length, stages }))
}

impl Operator for Rfft {
    /// The zero-padded frame, int16 (the spectrum is built in the output).
    fn variants(&self) -> Vec<Variant> {
        let n = self.fft_length as u64;
        let cost = self.frames as u64 * n * (64 - n.leading_zeros() as u64) * 8;
        vec![Variant { kernel: Kernel::Direct, scratch: 2 * self.fft_length, cost }]
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (frames, frame, fft) = (self.frames, self.frame, self.fft_length);
        let half = fft / 2;
        let twiddles = (0..half).map(|i| q15_cexp(-2.0 * PI * i as f64 / half as f64)).map(|[r, i]| quote!([#r, #i]));
        let split =
            (0..half / 2).map(|i| q15_cexp(-PI * ((i + 1) as f64 / half as f64 + 0.5))).map(|[r, i]| quote!([#r, #i]));
        let stages = self.stages.iter().map(|&(p, m)| quote!((#p, #m)));
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        let scratch = cx.scratch::<i16>()?;
        let fft_mod = quote!(::tinyaot::__private::kernels::fft);
        Ok(quote!(#fft_mod::rfft_s16::<#frames, #frame, #fft>(#input, #output, &#fft_mod::Rfft16 {
            stages: &[#(#stages),*], twiddles: &[#(#twiddles),*], split_twiddles: &[#(#split),*],
        }, #scratch);))
    }
}
