//! TFLM signal library's OVERLAP_ADD (`CUSTOM:SignalOverlapAdd`): frames
//! `[..., frames, frame_size]` added into a per-row buffer (the op's state,
//! zero after `reset()`) and `frame_step` samples of it output per frame:
//! `[..., frames * frame_step]`. int16 saturates, float32 does not.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use crate::tflite::flexbuffer::FlexMap;
use proc_macro2::TokenStream;
use quote::quote;

/// Position of the option read (keys in alphabetical order: `T`, then
/// `frame_step`).
const FRAME_STEP: usize = 1;

#[derive(Debug)]
struct OverlapAdd {
    input: usize,
    output: usize,
    float: bool,
    rows: usize,
    frames: usize,
    size: usize,
    step: usize,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 1)?;
    let (input, output) = (cx.input(0)?, cx.output(0)?);
    let rank = input.shape.len();
    if !matches!(input.dtype, DType::I16 | DType::F32)
        || output.dtype != input.dtype
        || rank < 2
        || output.shape.len() + 1 != rank
    {
        return Err(cx.unsupported(
            &format!("input {} and output {}", input.describe(), output.describe()),
            "int16 or float32 [..., frames, frame_size] -> [..., frames * frame_step] (as TFLM)",
        ));
    }
    let options = cx.node.custom_options.ok_or_else(|| cx.err("the options are missing"))?;
    let map = FlexMap::root(options).map_err(|e| cx.err(e.message))?;
    let step = map.int(FRAME_STEP).map_err(|e| cx.err(e.message))?;
    let (size, frames) = (input.shape[rank - 1], input.shape[rank - 2]);
    let step = usize::try_from(step)
        .ok()
        .filter(|&s| (1..=size).contains(&s))
        .ok_or_else(|| cx.err(format!("frame_step {step} is outside 1..={size} (the frame size)")))?;
    let rows = input.elements / (size * frames);
    if output.elements != rows * frames * step {
        return Err(
            cx.err(format!("the output {} does not hold {rows} x {frames} x {step} samples", output.describe()))
        );
    }
    Ok(Box::new(OverlapAdd {
        input: input.index,
        output: output.index,
        float: input.dtype == DType::F32,
        rows,
        frames,
        size,
        step,
    }))
}

impl Operator for OverlapAdd {
    fn state_bytes(&self) -> usize {
        (if self.float { 4 } else { 2 }) * self.rows * self.size
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (rows, frames, size, step) = (self.rows, self.frames, self.size, self.step);
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        let (state, ty) =
            if self.float { (cx.op_state::<f32>()?, quote!(f32)) } else { (cx.op_state::<i16>()?, quote!(i16)) };
        Ok(quote!(::tinyaot::__private::kernels::signal::overlap_add::<#ty, #rows, #frames, #size, #step>(
            #input, #output, #state);))
    }
}
