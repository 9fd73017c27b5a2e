//! TFLM signal library's FILTER_BANK_SPECTRAL_SUBTRACTION
//! (`CUSTOM:SignalFilterBankSpectralSubtraction`): a per-channel noise
//! estimate smoothed over invokes (its state, zero until the first invoke
//! and after `reset()`, as TFLM's), subtracted from each uint32 channel
//! down to a floor; outputs the channels and a copy of the estimate. TFLM
//! `FilterbankSpectralSubtraction`, alternate smoothing on odd channels.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use crate::tflite::flexbuffer::FlexMap;
use proc_macro2::TokenStream;
use quote::quote;

/// Positions of the options (keys in alphabetical order).
mod option {
    pub const ALTERNATE_ONE_MINUS_SMOOTHING: usize = 0;
    pub const ALTERNATE_SMOOTHING: usize = 1;
    pub const CLAMPING: usize = 2;
    pub const MIN_SIGNAL_REMAINING: usize = 3;
    pub const NUM_CHANNELS: usize = 4;
    pub const ONE_MINUS_SMOOTHING: usize = 5;
    pub const SMOOTHING: usize = 6;
    pub const SMOOTHING_BITS: usize = 7;
    pub const SPECTRAL_SUBTRACTION_BITS: usize = 8;
}

#[derive(Debug)]
struct SpectralSubtraction {
    input: usize,
    output: usize,
    noise_estimate: usize,
    channels: usize,
    /// (smoothing, one minus smoothing) for even and odd channels.
    smoothing: [(u32, u32); 2],
    clamping: bool,
    min_signal_remaining: u32,
    smoothing_bits: u32,
    spectral_subtraction_bits: u32,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 2)?;
    let (input, output, noise) = (cx.input(0)?, cx.output(0)?, cx.output(1)?);
    if [input, output, noise].iter().any(|t| t.dtype != DType::U32 || t.shape.len() != 1) {
        return Err(cx.unsupported(
            &format!("input {}, outputs {} and {}", input.describe(), output.describe(), noise.describe()),
            "1-D uint32 -> 1-D uint32 channels and noise estimate (as TFLM)",
        ));
    }
    let options = cx.node.custom_options.ok_or_else(|| cx.err("the options are missing"))?;
    let map = FlexMap::root(options).map_err(|e| cx.err(e.message))?;
    let int = |k: usize| map.int(k).map_err(|e| cx.err(e.message));
    // TFLM reads each option as an int32 and stores it as uint32.
    let word = |k: usize| int(k).map(|v| v as i32 as u32);
    let shift = |k: usize, what: &str| {
        int(k).and_then(|v| {
            u32::try_from(v).ok().filter(|&s| s < 32).ok_or_else(|| cx.err(format!("{what} {v} is outside 0..32")))
        })
    };
    let channels = int(option::NUM_CHANNELS)?;
    let channels = usize::try_from(channels)
        .ok()
        .filter(|&c| c <= input.elements && c <= output.elements && c <= noise.elements)
        .ok_or_else(|| cx.err(format!("num_channels {channels} does not fit the tensors")))?;
    Ok(Box::new(SpectralSubtraction {
        input: input.index,
        output: output.index,
        noise_estimate: noise.index,
        channels,
        smoothing: [
            (word(option::SMOOTHING)?, word(option::ONE_MINUS_SMOOTHING)?),
            (word(option::ALTERNATE_SMOOTHING)?, word(option::ALTERNATE_ONE_MINUS_SMOOTHING)?),
        ],
        clamping: map.bool(option::CLAMPING).map_err(|e| cx.err(e.message))?,
        min_signal_remaining: word(option::MIN_SIGNAL_REMAINING)?,
        smoothing_bits: shift(option::SMOOTHING_BITS, "smoothing_bits")?,
        spectral_subtraction_bits: shift(option::SPECTRAL_SUBTRACTION_BITS, "spectral_subtraction_bits")?,
    }))
}

impl Operator for SpectralSubtraction {
    fn state_bytes(&self) -> usize {
        4 * self.channels
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let channels = self.channels;
        let [(s, o), (alt_s, alt_o)] = self.smoothing;
        let (clamping, floor, bits, sub_bits) =
            (self.clamping, self.min_signal_remaining, self.smoothing_bits, self.spectral_subtraction_bits);
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        let noise = cx.write(self.noise_estimate)?;
        let state = cx.op_state::<u32>()?;
        let signal = quote!(::tinyaot::__private::kernels::signal);
        Ok(quote!(#signal::spectral_subtraction::<#channels>(#input, #output, #noise, #state,
            &#signal::SpectralSubtraction {
                smoothing: [(#s, #o), (#alt_s, #alt_o)], clamping: #clamping, min_signal_remaining: #floor,
                smoothing_bits: #bits, spectral_subtraction_bits: #sub_bits,
            });))
    }
}
