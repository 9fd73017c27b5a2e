//! QUANTIZE: float32 -> int8/int16 (TFLite `AffineQuantize`: round half
//! away from zero in single precision) and requantization between int8,
//! uint8, int16 and int32 in the pairs TFLM supports (`Requantize`:
//! int8 -> int8 tabulated, the others per element).

use crate::diag::Error;
use crate::fixedpoint::multiply_by_quantized_multiplier;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::f32_lit;
use crate::lowering::operator::Operator;
use crate::lowering::requant::qrange;
use crate::lowering::unary::{Compute, io, table, unary};
use crate::quant::quantize_multiplier;
use quote::quote;

/// The (input, output) pairs TFLM's QUANTIZE accepts, besides float32 input.
const REQUANTIZE: &[(DType, DType)] = &[
    (DType::I8, DType::I8),
    (DType::I8, DType::U8),
    (DType::U8, DType::I8),
    (DType::I8, DType::I16),
    (DType::I16, DType::I8),
    (DType::I16, DType::I16),
    (DType::I8, DType::I32),
    (DType::I16, DType::I32),
    (DType::I32, DType::I8),
    (DType::I32, DType::I16),
];

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let (so, zo) = cx.per_tensor(output)?;
    let (qmin, qmax) = qrange(output.dtype);
    let compute = match (input.dtype, output.dtype) {
        (DType::F32, DType::I8) => Compute::QuantizeF32 { scale: so, zero_point: zo },
        (DType::F32, DType::I16) => {
            let s = f32_lit(so);
            Compute::Map {
                from: DType::F32,
                to: DType::I16,
                f: Box::new(
                    move |_| quote!(|x: f32| ::tinyaot::__private::kernels::elementwise::quantize_f32_s16(x, #s, #zo)),
                ),
            }
        }
        (i, o) if REQUANTIZE.contains(&(i, o)) => {
            let (si, zi) = cx.per_tensor(input)?;
            if is_flip(i, o, (si, zi), (so, zo)) {
                return Ok(Box::new(Flip { input: input.index, output: output.index, len: output.elements }));
            }
            let (m, s) = quantize_multiplier(si as f64 / so as f64);
            if !(-31..=30).contains(&s) {
                return Err(cx.err("the input/output scale ratio is out of the range TFLite can requantize"));
            }
            if (i, o) == (DType::I8, DType::I8) {
                table(|x| multiply_by_quantized_multiplier(x - zi, m, s).wrapping_add(zo))
            } else {
                let (it, ot) = (crate::lowering::emit::Emit::rust_type(i)?, crate::lowering::emit::Emit::rust_type(o)?);
                Compute::Map {
                    from: i,
                    to: o,
                    f: Box::new(move |_| {
                        quote!(|x: #it| {
                            let v = ::tinyaot::__private::fixedpoint::multiply_by_quantized_multiplier((x as i32).wrapping_sub(#zi), #m, #s);
                            v.wrapping_add(#zo).clamp(#qmin, #qmax) as #ot
                        })
                    }),
                }
            }
        }
        (i, o) => {
            return Err(cx.unsupported(
                &format!("input {}, output {}", i.name(), o.name()),
                "float32 -> int8/int16; int8 -> int8/uint8/int16/int32; uint8 -> int8; int16 -> int8/int16/int32; \
                 int32 -> int8/int16",
            ));
        }
    };
    Ok(unary(input, output, compute))
}

/// uint8 <-> int8 at one scale with zero points 128 apart (the edges of
/// the uint8 pass, `lowering::uint8`, and many models' uint8 inputs): the
/// requantization (multiplier 1) is the top bit flipped.
fn is_flip(i: DType, o: DType, (si, zi): (f32, i32), (so, zo): (f32, i32)) -> bool {
    si == so
        && match (i, o) {
            (DType::U8, DType::I8) => zo == zi - 128,
            (DType::I8, DType::U8) => zo == zi + 128,
            _ => false,
        }
}

/// The flip: byte by byte, in place where the plan allows (the dtypes
/// differ, the bytes line up).
#[derive(Debug)]
struct Flip {
    input: usize,
    output: usize,
    len: usize,
}

impl Operator for Flip {
    fn emit(&self, cx: &mut crate::lowering::emit::Emit<'_>) -> Result<proc_macro2::TokenStream, Error> {
        let len = self.len;
        let io = cx.io_bytes(self.input, self.output)?;
        Ok(quote!(::tinyaot::__private::kernels::elementwise::flip_top_bit::<#len, _>(#io);))
    }

    fn in_place(&self) -> Option<crate::lowering::operator::InPlace> {
        Some(crate::lowering::operator::InPlace { input: self.input, output: self.output, slack: 0 })
    }

    fn in_place_bytes(&self) -> bool {
        true
    }
}
