//! What RFFT and IRFFT share: the checked `fft_length`, KISS FFT v130's
//! stage plan (`kf_factor`) and its twiddle tables, computed here in
//! double as KISS computes them (`kf_cexp`: `floor(0.5 + MAX * cos)` in
//! fixed point, `(float) cos` in float; the inverse's phases negated), and
//! the `FftTables` expression the kernels take.

use super::context::OpCx;
use super::variant::{Kernel, Variant};
use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::emit::Emit;
use crate::lowering::emit::f32_lit;
use crate::tflite::flexbuffer::FlexMap;
use proc_macro2::TokenStream;
use quote::quote;
use std::f64::consts::PI;

/// Position of `fft_length` among the options ('T' is 0).
const FFT_LENGTH: usize = 1;

/// The sample types TFLM's RFFT and IRFFT run.
pub const DTYPES: [DType; 3] = [DType::I16, DType::I32, DType::F32];

/// `fft_length` from the options, checked: even, 4 to 65536, its half
/// factoring into radices 2 to 5 (TFLM's KISS build has no buffer for
/// other radices and fails). Returns it and the stage plan of its half.
pub fn fft_length(cx: &OpCx<'_, '_>) -> Result<(usize, Vec<(usize, usize)>), Error> {
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
    Ok((fft_length, stages))
}

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

/// KISS `kf_cexp` for the sample type, as a `[T; 2]` literal.
fn cexp(dtype: DType, phase: f64) -> TokenStream {
    let (c, s) = (phase.cos(), phase.sin());
    match dtype {
        DType::I16 => {
            let (r, i) = ((0.5 + 32767.0 * c).floor() as i16, (0.5 + 32767.0 * s).floor() as i16);
            quote!([#r, #i])
        }
        DType::I32 => {
            let max = f64::from(i32::MAX);
            let (r, i) = ((0.5 + max * c).floor() as i32, (0.5 + max * s).floor() as i32);
            quote!([#r, #i])
        }
        _ => {
            let (r, i) = (f32_lit(c as f32), f32_lit(s as f32));
            quote!([#r, #i])
        }
    }
}

/// The `FftTables` expression of a real FFT of `fft_length` (KISS
/// `kiss_fftr_alloc`): the half-length FFT's twiddles and the split's.
pub fn tables(dtype: DType, fft_length: usize, stages: &[(usize, usize)], inverse: bool) -> TokenStream {
    let half = fft_length / 2;
    let sign = if inverse { -1.0 } else { 1.0 };
    let twiddles = (0..half).map(|i| cexp(dtype, sign * (-2.0 * PI * i as f64 / half as f64)));
    let split = (0..half / 2).map(|i| cexp(dtype, sign * (-PI * ((i + 1) as f64 / half as f64 + 0.5))));
    let stages = stages.iter().map(|&(p, m)| quote!((#p, #m)));
    quote!(&::tinyaot::__private::kernels::fft::FftTables {
        stages: &[#(#stages),*], twiddles: &[#(#twiddles),*], split_twiddles: &[#(#split),*], inverse: #inverse,
    })
}

/// The one kernel of a real FFT of `frames` frames: its scratch holds one
/// frame of `fft_length` samples (RFFT's padded input, IRFFT's merged
/// spectrum).
pub fn variant(dtype: DType, frames: usize, fft_length: usize) -> Vec<Variant> {
    let n = fft_length as u64;
    let cost = frames as u64 * n * (64 - n.leading_zeros() as u64) * 8;
    vec![Variant { kernel: Kernel::Direct, scratch: dtype.size().unwrap_or(4) * fft_length, cost }]
}

/// The op's scratch as `&mut [T]` and the sample type `T`.
pub fn scratch(cx: &Emit<'_>, dtype: DType) -> Result<(TokenStream, TokenStream), Error> {
    Ok(match dtype {
        DType::I16 => (cx.scratch::<i16>()?, quote!(i16)),
        DType::I32 => (cx.scratch::<i32>()?, quote!(i32)),
        _ => (cx.scratch::<f32>()?, quote!(f32)),
    })
}
