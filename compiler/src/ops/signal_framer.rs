//! TFLM signal library's FRAMER (`CUSTOM:SignalFramer`): each row of int16
//! samples (the innermost dimension, a multiple of `frame_step`) cut into
//! frames of `frame_size` every `frame_step` samples, carrying the samples
//! of unfinished frames across invokes (the op's state; with `prefill` the
//! buffer starts with `frame_size - frame_step` zeros, also after
//! `reset()`). Output `[..., frames, frame_size]` and a bool that is false
//! when a frame slot had no whole frame (that slot is left as it was, as
//! TFLM leaves it).

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
    pub const FRAME_SIZE: usize = 0;
    pub const FRAME_STEP: usize = 1;
    pub const PREFILL: usize = 2;
}

#[derive(Debug)]
struct Framer {
    input: usize,
    output: usize,
    valid: usize,
    rows: usize,
    inner: usize,
    size: usize,
    step: usize,
    capacity: usize,
    prefill: usize,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 2)?;
    let (input, output, valid) = (cx.input(0)?, cx.output(0)?, cx.output(1)?);
    if input.dtype != DType::I16
        || output.dtype != DType::I16
        || valid.dtype != DType::Bool
        || !valid.shape.is_empty()
        || output.shape.len() != input.shape.len() + 1
    {
        return Err(cx.unsupported(
            &format!("input {}, outputs {} and {}", input.describe(), output.describe(), valid.describe()),
            "int16[..., n] -> int16[..., frames, frame_size] and a bool scalar (as TFLM)",
        ));
    }
    let options = cx.node.custom_options.ok_or_else(|| cx.err("the options are missing"))?;
    let map = FlexMap::root(options).map_err(|e| cx.err(e.message))?;
    let int = |k: usize, what: &str| {
        map.int(k).map_err(|e| cx.err(e.message)).and_then(|v| {
            usize::try_from(v)
                .ok()
                .filter(|&v| (1..1 << 15).contains(&v))
                .ok_or_else(|| cx.err(format!("{what} {v} is outside 1..32768")))
        })
    };
    let size = int(option::FRAME_SIZE, "frame_size")?;
    let step = int(option::FRAME_STEP, "frame_step")?;
    let prefill = map.bool(option::PREFILL).map_err(|e| cx.err(e.message))?;
    let inner = input.shape.last().copied().unwrap_or(1);
    if inner < step || !inner.is_multiple_of(step) {
        return Err(cx.err(format!("the innermost dimension {inner} is not a multiple of frame_step {step}")));
    }
    if prefill && step > size {
        return Err(cx.err(format!("with prefill, frame_step {step} must not exceed frame_size {size}")));
    }
    let rows = input.elements / inner;
    if output.elements != rows * (inner / step) * size {
        return Err(cx.err(format!(
            "the output {} does not hold {rows} x {} frames of {size}",
            output.describe(),
            inner / step
        )));
    }
    Ok(Box::new(Framer {
        input: input.index,
        output: output.index,
        valid: valid.index,
        rows,
        inner,
        size,
        step,
        capacity: size.div_ceil(step) * step,
        prefill: if prefill { size - step } else { 0 },
    }))
}

impl Operator for Framer {
    fn state_bytes(&self) -> usize {
        2 * (1 + self.rows * self.capacity)
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (rows, inner, size, step, capacity, prefill) =
            (self.rows, self.inner, self.size, self.step, self.capacity, self.prefill);
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        let valid = cx.write(self.valid)?;
        let state = cx.op_state::<i16>()?;
        let signal = quote!(::tinyaot::__private::kernels::signal);
        Ok(quote!(#signal::framer::<#rows, #inner>(#input, #output, #valid, #state,
            &#signal::Framer { size: #size, step: #step, capacity: #capacity, prefill: #prefill });))
    }
}
