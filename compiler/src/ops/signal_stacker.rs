//! TFLM signal library's STACKER (`CUSTOM:SignalStacker`): frames of
//! `num_channels` int16 samples, one per invoke, stacked with
//! `stacker_left_context` frames before and `stacker_right_context` after
//! (the first frame repeated as its own left context); a stack is output
//! every `stacker_step` frames, with a bool saying whether this invoke
//! produced one (else the output is left as it was, as TFLM leaves it).
//! The frames held are the op's state (empty after `reset()`).

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
    pub const NUM_CHANNELS: usize = 0;
    pub const LEFT_CONTEXT: usize = 1;
    pub const RIGHT_CONTEXT: usize = 2;
    pub const STEP: usize = 3;
}

#[derive(Debug)]
struct Stacker {
    input: usize,
    output: usize,
    valid: usize,
    channels: usize,
    left: usize,
    size: usize,
    step: usize,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 2)?;
    let (input, output, valid) = (cx.input(0)?, cx.output(0)?, cx.output(1)?);
    if input.dtype != DType::I16
        || output.dtype != DType::I16
        || valid.dtype != DType::Bool
        || input.shape.len() != 1
        || output.shape.len() != 1
        || !valid.shape.is_empty()
    {
        return Err(cx.unsupported(
            &format!("input {}, outputs {} and {}", input.describe(), output.describe(), valid.describe()),
            "1-D int16 -> 1-D int16 and a bool scalar (as TFLM)",
        ));
    }
    let options = cx.node.custom_options.ok_or_else(|| cx.err("the options are missing"))?;
    let map = FlexMap::root(options).map_err(|e| cx.err(e.message))?;
    let int = |k: usize, what: &str, min: i64| {
        map.int(k).map_err(|e| cx.err(e.message)).and_then(|v| {
            usize::try_from(v)
                .ok()
                .filter(|&v| v as i64 >= min && v < 1 << 15)
                .ok_or_else(|| cx.err(format!("{what} {v} is outside {min}..32768")))
        })
    };
    let channels = int(option::NUM_CHANNELS, "num_channels", 1)?;
    let left = int(option::LEFT_CONTEXT, "stacker_left_context", 0)?;
    let right = int(option::RIGHT_CONTEXT, "stacker_right_context", 0)?;
    let step = int(option::STEP, "stacker_step", 1)?;
    let frames = left + right + 1;
    let size = channels * frames;
    if step > frames || size >= 1 << 15 {
        return Err(cx.err(format!("stacker_step {step} must be at most the {frames} frames stacked")));
    }
    if input.elements != channels || output.elements != size {
        return Err(cx.err(format!(
            "input {} and output {} must hold {channels} and {size} samples",
            input.describe(),
            output.describe()
        )));
    }
    Ok(Box::new(Stacker {
        input: input.index,
        output: output.index,
        valid: valid.index,
        channels,
        left,
        size,
        step: channels * step,
    }))
}

impl Operator for Stacker {
    fn state_bytes(&self) -> usize {
        2 * (2 + self.size)
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (channels, left, size, step) = (self.channels, self.left, self.size, self.step);
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        let valid = cx.write(self.valid)?;
        let state = cx.op_state::<i16>()?;
        let signal = quote!(::tinyaot::__private::kernels::signal);
        Ok(quote!(#signal::stacker(#input, #output, #valid, #state,
            &#signal::Stacker { channels: #channels, left: #left, size: #size, step: #step });))
    }
}
