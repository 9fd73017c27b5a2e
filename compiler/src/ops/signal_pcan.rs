//! TFLM signal library's PCAN (`CUSTOM:SignalPCAN`): per-channel
//! automatic gain control, each uint32 channel times a gain looked up from
//! its noise estimate in a piecewise-quadratic int16 table, shifted by
//! `snr_shift`, then TFLM's fixed-point "shrink" (x^2/4 below 2, x - 1
//! above). TFLM `ApplyPcanAutoGainControlFixed`, its integer conversions
//! kept; a table entry past the table's end reads 0.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use crate::tflite::flexbuffer::FlexMap;
use proc_macro2::TokenStream;
use quote::quote;

/// Position of `snr_shift` among the options.
const SNR_SHIFT: usize = 0;

#[derive(Debug)]
struct Pcan {
    input: usize,
    noise: usize,
    gains: usize,
    output: usize,
    channels: usize,
    snr_shift: u32,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(3, 3, 1)?;
    let (input, noise, gains, output) = (cx.input(0)?, cx.input(1)?, cx.input(2)?, cx.output(0)?);
    let types = (input.dtype, noise.dtype, gains.dtype, output.dtype);
    if types != (DType::U32, DType::U32, DType::I16, DType::U32)
        || [input, noise, gains, output].iter().any(|t| t.shape.len() != 1)
        || noise.elements < input.elements
        || output.elements != input.elements
    {
        return Err(cx.unsupported(
            &format!(
                "input {}, noise {}, gains {}, output {}",
                input.describe(),
                noise.describe(),
                gains.describe(),
                output.describe()
            ),
            "1-D uint32 channels and noise estimates, a 1-D int16 gain table -> uint32 channels (as TFLM)",
        ));
    }
    let options = cx.node.custom_options.ok_or_else(|| cx.err("the options (snr_shift) are missing"))?;
    let shift = FlexMap::root(options).and_then(|m| m.int(SNR_SHIFT)).map_err(|e| cx.err(e.message))?;
    let snr_shift = u32::try_from(shift)
        .ok()
        .filter(|&s| s < 64)
        .ok_or_else(|| cx.err(format!("snr_shift {shift} is outside 0..64")))?;
    Ok(Box::new(Pcan {
        input: input.index,
        noise: noise.index,
        gains: gains.index,
        output: output.index,
        channels: input.elements,
        snr_shift,
    }))
}

impl Operator for Pcan {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (channels, shift) = (self.channels, self.snr_shift);
        let input = cx.read(self.input)?;
        let noise = cx.read(self.noise)?;
        let gains = cx.read(self.gains)?;
        let output = cx.write(self.output)?;
        Ok(quote!(::tinyaot::__private::kernels::signal::pcan::<#channels>(#input, #noise, #gains, #shift, #output);))
    }
}
