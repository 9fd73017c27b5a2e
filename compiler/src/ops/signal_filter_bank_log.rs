//! TFLM signal library's FILTER_BANK_LOG (`CUSTOM:SignalFilterBankLog`):
//! each uint32 channel shifted left by `input_correction_bits`, its natural
//! log in fixed point scaled by `output_scale / 2^16` (TFLM `Log32`: the
//! integer part from the top bit, the fraction by a 128-segment table
//! interpolated linearly), saturated to int16; 0 for values below 2.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use crate::tflite::flexbuffer::FlexMap;
use proc_macro2::TokenStream;
use quote::quote;

/// Positions of the options (keys in alphabetical order).
const INPUT_CORRECTION_BITS: usize = 0;
const OUTPUT_SCALE: usize = 1;

/// `log2(1 + i/128) - i/128` in units of 2^-16 for the 129 segment ends,
/// and a 0 after them: the table `Log32` interpolates in.
pub(crate) fn log2_fraction_table() -> Vec<u16> {
    (0..129)
        .map(|i| {
            let x = i as f64 / 128.0;
            (65536.0 * ((1.0 + x).log2() - x)).round() as u16
        })
        .chain([0])
        .collect()
}

#[derive(Debug)]
struct FilterBankLog {
    input: usize,
    output: usize,
    channels: usize,
    correction_bits: u32,
    output_scale: u32,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 1)?;
    let (input, output) = (cx.input(0)?, cx.output(0)?);
    if input.dtype != DType::U32 || output.dtype != DType::I16 || input.shape.len() != 1 || output.shape.len() != 1 {
        return Err(cx.unsupported(
            &format!("input {}, output {}", input.describe(), output.describe()),
            "1-D uint32 -> 1-D int16 (as TFLM)",
        ));
    }
    if output.elements < input.elements {
        return Err(cx.err(format!("the output {} cannot hold the input's channels", output.describe())));
    }
    let options = cx.node.custom_options.ok_or_else(|| cx.err("the options are missing"))?;
    let map = FlexMap::root(options).map_err(|e| cx.err(e.message))?;
    let option = |k: usize| map.int(k).map_err(|e| cx.err(e.message));
    let (bits, scale) = (option(INPUT_CORRECTION_BITS)?, option(OUTPUT_SCALE)?);
    let correction_bits = u32::try_from(bits)
        .ok()
        .filter(|&b| b < 32)
        .ok_or_else(|| cx.err(format!("input_correction_bits {bits} is outside 0..32")))?;
    // TFLM passes the int32 option as a uint32.
    let output_scale = scale as i32 as u32;
    Ok(Box::new(FilterBankLog {
        input: input.index,
        output: output.index,
        channels: input.elements,
        correction_bits,
        output_scale,
    }))
}

impl Operator for FilterBankLog {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (channels, bits, scale) = (self.channels, self.correction_bits, self.output_scale);
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        let table = cx.u16s(&log2_fraction_table());
        Ok(
            quote!(::tinyaot::__private::kernels::signal::filter_bank_log::<#channels>(#input, #output, #bits, #scale, #table);),
        )
    }
}
