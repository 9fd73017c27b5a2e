//! TFLM signal library's WINDOW (`CUSTOM:SignalWindow`): each frame of the
//! int16 input times the int16 window, shifted right by `shift` and
//! saturated to int16 (TFLM `ApplyWindow`), frame after frame.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::{InPlace, Operator};
use crate::tflite::flexbuffer::FlexMap;
use proc_macro2::TokenStream;
use quote::quote;

/// Position of `shift` among the options (keys in alphabetical order).
const SHIFT: usize = 0;

#[derive(Debug)]
struct Window {
    input: usize,
    window: usize,
    output: usize,
    len: usize,
    frame: usize,
    shift: i32,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let (input, window, output) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    let options = cx.node.custom_options.ok_or_else(|| cx.err("the options (shift) are missing"))?;
    let shift = FlexMap::root(options).and_then(|m| m.int(SHIFT)).map_err(|e| cx.err(e.message))?;
    let shift = i32::try_from(shift)
        .ok()
        .filter(|s| (0..32).contains(s))
        .ok_or_else(|| cx.err(format!("shift {shift} is outside 0..32")))?;
    if [input, window, output].iter().any(|t| t.dtype != DType::I16) {
        return Err(cx.unsupported(
            &format!("input {}, window {}, output {}", input.dtype.name(), window.dtype.name(), output.dtype.name()),
            "int16 (as TFLM)",
        ));
    }
    let frame = window.elements;
    if window.shape.len() != 1 || frame == 0 || input.elements % frame != 0 || input.shape.len() != output.shape.len() {
        return Err(cx.err(format!(
            "the window {:?} must be 1-D and divide the input {:?} into frames; the output {:?} of the input's rank",
            window.shape, input.shape, output.shape
        )));
    }
    if output.elements != input.elements {
        return Err(cx.err(format!("the output {} does not hold the input {}", output.describe(), input.describe())));
    }
    Ok(Box::new(Window {
        input: input.index,
        window: window.index,
        output: output.index,
        len: input.elements,
        frame,
        shift,
    }))
}

impl Operator for Window {
    /// Elementwise: element i of the input is read just before element i of
    /// the output is written.
    fn in_place(&self) -> Option<InPlace> {
        Some(InPlace { input: self.input, output: self.output, slack: 0 })
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (len, frame, shift) = (self.len, self.frame, self.shift);
        let io = cx.io(self.input, self.output)?;
        let window = cx.read(self.window)?;
        Ok(quote!(::tinyaot::__private::kernels::signal::window::<#len, #frame, _>(#io, #window, #shift);))
    }
}
