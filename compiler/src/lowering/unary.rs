//! The shared lowering of one-input elementwise ops: checks, the int8
//! lookup table (computed by each op's own arithmetic), the float
//! function, and codegen. Each op's file only says what it computes.

use super::context::OpCx;
use super::operator::{InPlace, Operator};
use crate::diag::Error;
use crate::graph::{DType, Tensor};
use crate::lowering::emit::Emit;
use proc_macro2::TokenStream;
use quote::quote;

/// What a unary op computes.
pub enum Compute {
    /// int8 -> int8 through a 256-entry table indexed by the input's bits.
    Lut(Vec<i8>),
    /// int8 -> float32 through a table.
    LutToF32(Vec<f32>),
    /// float32 -> float32: a call expression on `x` (`|x| ...`).
    F32(TokenStream),
    /// float32 -> int8 (QUANTIZE): scale and zero point.
    QuantizeF32 { scale: f32, zero_point: i32 },
    /// Any element types, computed per element by a closure expression
    /// (`|x: I| -> O`, which may refer to constant tables it emits): int16
    /// ops, whose full tables would not fit.
    Map { from: DType, to: DType, f: MapFn },
}

impl core::fmt::Debug for Compute {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Compute::Lut(t) => f.debug_tuple("Lut").field(t).finish(),
            Compute::LutToF32(t) => f.debug_tuple("LutToF32").field(t).finish(),
            Compute::F32(call) => f.debug_tuple("F32").field(&call.to_string()).finish(),
            Compute::QuantizeF32 { scale, zero_point } => {
                f.debug_struct("QuantizeF32").field("scale", scale).field("zero_point", zero_point).finish()
            }
            // The closure's constants are in the tokens it emits.
            Compute::Map { from, to, .. } => f.debug_struct("Map").field("from", from).field("to", to).finish(),
        }
    }
}

/// The element types a unary op runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    /// int8 -> int8.
    Int8,
    /// int16 -> int16.
    Int16,
    /// float32 -> float32.
    Float,
}

/// Requires int8 -> int8, int16 -> int16 (when `int16`) or float32 ->
/// float32.
pub fn elem(cx: &OpCx<'_, '_>, input: &Tensor<'_>, output: &Tensor<'_>, int16: bool) -> Result<Elem, Error> {
    match (input.dtype, output.dtype) {
        (DType::I8, DType::I8) => Ok(Elem::Int8),
        (DType::I16, DType::I16) if int16 => Ok(Elem::Int16),
        (DType::F32, DType::F32) => Ok(Elem::Float),
        (i, o) => Err(cx.unsupported(
            &format!("input {}, output {}", i.name(), o.name()),
            if int16 { "int8 -> int8, int16 -> int16, float32 -> float32" } else { "int8 -> int8, float32 -> float32" },
        )),
    }
}

/// Emits the closure of a [`Compute::Map`].
pub type MapFn = Box<dyn Fn(&mut Emit<'_>) -> TokenStream>;

/// A per-element int16 -> int16 closure.
pub fn map16(f: impl Fn(&mut Emit<'_>) -> TokenStream + 'static) -> Compute {
    Compute::Map { from: DType::I16, to: DType::I16, f: Box::new(f) }
}

/// A checked unary op.
#[derive(Debug)]
pub struct Unary {
    input: usize,
    output: usize,
    len: usize,
    compute: Compute,
}

/// Checks a one-input, one-output op of equal shapes and returns its
/// tensors.
pub fn io<'g, 'a>(cx: &OpCx<'g, 'a>) -> Result<(&'g Tensor<'a>, &'g Tensor<'a>), Error> {
    cx.arity(1, 1, 1)?;
    let input = cx.input(0)?;
    let output = cx.output(0)?;
    // A constant input is read from flash (TFLM runs such ops too: a
    // QUANTIZE of weights passed into a tf.cond branch).
    if input.elements != output.elements {
        return Err(cx.err(format!("input {} and output {} differ in size", input.describe(), output.describe())));
    }
    Ok((input, output))
}

/// Builds the 256-entry table of an int8 op from its arithmetic on the
/// input value (`-128..=127`).
pub fn table(f: impl Fn(i32) -> i32) -> Compute {
    Compute::Lut((0u8..=255).map(|b| f(b as i8 as i32).clamp(-128, 127) as i8).collect())
}

/// LiteRT's 8-bit table of a float function (`LUTPopulate`: each value
/// dequantized in float32, `f`, times the inverse output scale, rounded,
/// plus the output zero point, clamped), which its uint8 LOGISTIC and TANH
/// use, over the int8 values `q - 128` the uint8 pass gives
/// (`lowering::uint8`; the zero points moved with them).
pub fn litert_uint8_table(
    cx: &OpCx<'_, '_>,
    input: &Tensor<'_>,
    output: &Tensor<'_>,
    f: impl Fn(f32) -> f32,
) -> Result<Compute, Error> {
    let (si, zi) = cx.per_tensor(input)?;
    let (so, zo) = cx.per_tensor(output)?;
    let inverse = 1.0f32 / so;
    let entry = |q: i32| {
        let rescaled = (f(si * (q - zi) as f32) * inverse).round();
        let quantized = (rescaled + (zo + 128) as f32) as i32;
        (quantized.clamp(0, 255) - 128) as i8
    };
    Ok(Compute::Lut((0u8..=255).map(|b| entry(b as i8 as i32)).collect()))
}

/// The op, ready to emit.
pub fn unary(input: &Tensor<'_>, output: &Tensor<'_>, compute: Compute) -> Box<dyn Operator> {
    Box::new(Unary { input: input.index, output: output.index, len: output.elements, compute })
}

/// Requires int8 -> int8 or float32 -> float32 and says which.
pub fn int8_or_float(cx: &OpCx<'_, '_>, input: &Tensor<'_>, output: &Tensor<'_>) -> Result<bool, Error> {
    match (input.dtype, output.dtype) {
        (DType::I8, DType::I8) => Ok(true),
        (DType::F32, DType::F32) => Ok(false),
        (i, o) => {
            Err(cx.unsupported(&format!("input {}, output {}", i.name(), o.name()), "int8 -> int8, float32 -> float32"))
        }
    }
}

impl Operator for Unary {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let len = self.len;
        let io = cx.io(self.input, self.output)?;
        Ok(match &self.compute {
            Compute::Lut(t) => {
                let bytes: Vec<u8> = t.iter().map(|&v| v as u8).collect();
                let name = cx.bytes(&bytes);
                quote!(::tinyaot::__private::kernels::elementwise::lut_s8::<#len, _>(#io, #name.cast::<i8>());)
            }
            Compute::LutToF32(t) => {
                let bytes: Vec<u8> = t.iter().flat_map(|v| v.to_le_bytes()).collect();
                let name = cx.bytes(&bytes);
                quote!(::tinyaot::__private::kernels::elementwise::lut_s8_f32::<#len, _>(#io, #name.cast::<f32>());)
            }
            Compute::F32(f) => quote!(::tinyaot::__private::kernels::elementwise::map_f32::<#len, _>(#io, #f);),
            Compute::Map { from, to, f } => {
                let (i, o) = (Emit::rust_type(*from)?, Emit::rust_type(*to)?);
                let f = f(cx);
                quote!(::tinyaot::__private::kernels::elementwise::map::<#i, #o, #len, _>(#io, #f);)
            }
            Compute::QuantizeF32 { scale, zero_point } => {
                let scale = crate::lowering::emit::f32_lit(*scale);
                quote!(::tinyaot::__private::kernels::elementwise::quantize_f32_s8::<#len, _>(#io, #scale, #zero_point);)
            }
        })
    }

    /// Element i of the input is read just before element i of the output
    /// is written: in place at the same offset when the types match (the
    /// schedule checks the dtypes).
    fn in_place(&self) -> Option<InPlace> {
        Some(InPlace { input: self.input, output: self.output, slack: 0 })
    }
}
