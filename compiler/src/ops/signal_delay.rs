//! TFLM signal library's DELAY (`CUSTOM:SignalDelay`): every row (the
//! innermost dimension) of int16 samples delayed by `delay_length`
//! samples across invokes; the last `delay_length` samples of each row are
//! the op's state (zero until the first invoke and after `reset()`, TFLM's
//! preloaded zeros).

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use crate::tflite::flexbuffer::FlexMap;
use proc_macro2::TokenStream;
use quote::quote;

/// Position of the option (keys in alphabetical order).
const DELAY_LENGTH: usize = 0;

#[derive(Debug)]
struct Delay {
    input: usize,
    output: usize,
    rows: usize,
    frame: usize,
    delay: usize,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 1)?;
    let (input, output) = (cx.input(0)?, cx.output(0)?);
    if input.dtype != DType::I16 || output.dtype != DType::I16 || input.elements != output.elements {
        return Err(cx.unsupported(
            &format!("input {} and output {}", input.describe(), output.describe()),
            "int16 -> int16 of the same size (as TFLM)",
        ));
    }
    let options = cx.node.custom_options.ok_or_else(|| cx.err("the options are missing"))?;
    let map = FlexMap::root(options).map_err(|e| cx.err(e.message))?;
    let delay = map.int(DELAY_LENGTH).map_err(|e| cx.err(e.message))?;
    let delay = usize::try_from(delay)
        .ok()
        .filter(|&d| d <= 1 << 16)
        .ok_or_else(|| cx.err(format!("delay_length {delay} is outside 0..=65536")))?;
    let frame = input.shape.last().copied().unwrap_or(1);
    Ok(Box::new(Delay { input: input.index, output: output.index, rows: input.elements / frame, frame, delay }))
}

impl Operator for Delay {
    fn state_bytes(&self) -> usize {
        2 * self.rows * self.delay
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (rows, frame, delay) = (self.rows, self.frame, self.delay);
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        if delay == 0 {
            return Ok(quote!(#output.copy_from_slice(#input);));
        }
        let state = cx.op_state::<i16>()?;
        Ok(quote!(::tinyaot::__private::kernels::signal::delay::<#rows, #frame, #delay>(#input, #output, #state);))
    }
}
