//! TFLM signal library's ENERGY (`CUSTOM:SignalEnergy`): the squared
//! magnitude of each complex int16 bin (interleaved real, imaginary) from
//! `start_index` to `end_index`, as uint32 (TFLM `SpectrumToEnergy`). TFLM
//! leaves the other outputs unwritten; here they are zero.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use crate::tflite::flexbuffer::FlexMap;
use proc_macro2::TokenStream;
use quote::quote;

/// Positions of the options (keys in alphabetical order).
const END_INDEX: usize = 0;
const START_INDEX: usize = 1;

#[derive(Debug)]
struct Energy {
    input: usize,
    output: usize,
    bins: usize,
    start: usize,
    end: usize,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 1)?;
    let (input, output) = (cx.input(0)?, cx.output(0)?);
    if input.dtype != DType::I16 || output.dtype != DType::U32 || input.shape.len() != 1 || output.shape.len() != 1 {
        return Err(cx.unsupported(
            &format!("input {}, output {}", input.describe(), output.describe()),
            "a 1-D int16 spectrum (real, imaginary pairs) -> 1-D uint32 (as TFLM)",
        ));
    }
    let options = cx.node.custom_options.ok_or_else(|| cx.err("the options (start_index, end_index) are missing"))?;
    let map = FlexMap::root(options).map_err(|e| cx.err(e.message))?;
    let (end, start) =
        (map.int(END_INDEX).map_err(|e| cx.err(e.message))?, map.int(START_INDEX).map_err(|e| cx.err(e.message))?);
    let bins = output.elements.min(input.elements / 2);
    let (Ok(start), Ok(end)) = (usize::try_from(start), usize::try_from(end)) else {
        return Err(cx.err(format!("the bins {start}..{end} are negative")));
    };
    if start > end || end > bins {
        return Err(cx.err(format!("the bins {start}..{end} are not within the spectrum's {bins}")));
    }
    Ok(Box::new(Energy { input: input.index, output: output.index, bins: output.elements, start, end }))
}

impl Operator for Energy {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (bins, start, end) = (self.bins, self.start, self.end);
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        Ok(quote!(::tinyaot::__private::kernels::signal::energy::<#bins>(#input, #output, #start, #end);))
    }
}
