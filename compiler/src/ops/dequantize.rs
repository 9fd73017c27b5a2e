//! DEQUANTIZE: int8, uint8, int16 -> float32 (`scale * (q - zero_point)`,
//! which in single precision is the correctly rounded product TFLite's
//! double computation rounds to; int8 tabulated at compile time); and
//! float16 constants -> float32, folded into a constant when the graph is
//! read (`fold_float16_constants`, a registered graph pass), so nothing runs (TFLM has no
//! float16 DEQUANTIZE; LiteRT does the same widening).

use crate::diag::Error;
use crate::graph::{DType, Graph};
use crate::lowering::context::OpCx;
use crate::lowering::emit::{Emit, f32_lit};
use crate::lowering::operator::Operator;
use crate::lowering::unary::{Compute, io, unary};
use quote::quote;
use std::borrow::Cow;

/// A DEQUANTIZE whose output the graph reader folded into a constant.
#[derive(Debug)]
struct Folded;

impl Operator for Folded {
    fn emit(&self, _: &mut Emit<'_>) -> Result<proc_macro2::TokenStream, Error> {
        Ok(proc_macro2::TokenStream::new())
    }
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    if cx.input(0)?.dtype == DType::F16 {
        cx.arity(1, 1, 1)?;
        return match cx.output(0)?.data {
            Some(_) => Ok(Box::new(Folded)),
            None => Err(cx.err(
                "a float16 DEQUANTIZE is folded only when its input is a constant and its output a float32 \
                 tensor of as many elements that is not a graph output",
            )),
        };
    }
    let (input, output) = io(cx)?;
    match (input.dtype, output.dtype) {
        (DType::I8, DType::F32) => {
            let (si, zi) = cx.per_tensor(input)?;
            let t = (0u8..=255).map(|b| (si as f64 * (b as i8 as i32 - zi) as f64) as f32).collect();
            Ok(unary(input, output, Compute::LutToF32(t)))
        }
        (i @ (DType::U8 | DType::I16), DType::F32) => {
            let (si, zi) = cx.per_tensor(input)?;
            let (s, it) = (f32_lit(si), Emit::rust_type(i)?);
            let f = Box::new(move |_: &mut Emit<'_>| quote!(|x: #it| #s * (x as i32 - #zi) as f32));
            Ok(unary(input, output, Compute::Map { from: i, to: DType::F32, f }))
        }
        (i, o) => {
            Err(cx.unsupported(&format!("input {}, output {}", i.name(), o.name()), "int8, uint8, int16 -> float32"))
        }
    }
}

/// DEQUANTIZE's builtin code.
const CODE: i32 = 6;

/// Graph pass: a DEQUANTIZE of a constant float16 tensor (the converter's
/// float16 weights) becomes the constant float32 tensor it computes: exact
/// widening, done once when the graph is read, so the ops reading it see
/// constant weights and the arena holds none of it. The DEQUANTIZE is then
/// a no-op. A graph output is left to the op.
pub fn fold_float16_constants(graph: &mut Graph<'_>) -> Result<(), Error> {
    for node in &graph.nodes {
        let (Some(Some(i)), Some(&o)) = (node.inputs.first(), node.outputs.first()) else { continue };
        let (input, output) = (&graph.tensors[*i], &graph.tensors[o]);
        let foldable = node.code == CODE
            && (input.dtype, output.dtype) == (DType::F16, DType::F32)
            && input.elements == output.elements
            && output.data.is_none()
            && !output.is_variable
            && !graph.outputs.contains(&o);
        let Some(half) = input.data.as_deref().filter(|_| foldable) else { continue };
        let wide: Vec<u8> = half
            .chunks_exact(2)
            .flat_map(|h| crate::quant::f16_to_f32(u16::from_le_bytes([h[0], h[1]])).to_le_bytes())
            .collect();
        graph.tensors[o].data = Some(Cow::Owned(wide));
    }
    Ok(())
}
