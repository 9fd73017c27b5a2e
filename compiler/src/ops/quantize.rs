//! QUANTIZE: float32 -> int8 (TFLite `AffineQuantize`: round half away
//! from zero in single precision) and int8 -> int8 requantization
//! (tabulated).

use super::unary::{Compute, io, table, unary};
use super::{OpCx, Operator};
use crate::diag::Error;
use crate::fixedpoint::multiply_by_quantized_multiplier;
use crate::graph::DType;
use crate::quant::quantize_multiplier;

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let (so, zo) = cx.per_tensor(output)?;
    let compute = match (input.dtype, output.dtype) {
        (DType::F32, DType::I8) => Compute::QuantizeF32 { scale: so, zero_point: zo },
        (DType::I8, DType::I8) => {
            let (si, zi) = cx.per_tensor(input)?;
            let (m, s) = quantize_multiplier(si as f64 / so as f64);
            if !(-31..=30).contains(&s) {
                return Err(cx.err("the input/output scale ratio is out of the range TFLite can requantize"));
            }
            table(|x| multiply_by_quantized_multiplier(x - zi, m, s).wrapping_add(zo))
        }
        (i, o) => {
            return Err(
                cx.unsupported(&format!("input {}, output {}", i.name(), o.name()), "float32 -> int8, int8 -> int8")
            );
        }
    };
    Ok(unary(input, output, compute))
}
