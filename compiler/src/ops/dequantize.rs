//! DEQUANTIZE: int8 -> float32 (`scale * (q - zero_point)` in double,
//! rounded to float, as TFLite; tabulated at compile time).

use super::unary::{Compute, io, unary};
use super::{OpCx, Operator};
use crate::diag::Error;
use crate::graph::DType;

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    match (input.dtype, output.dtype) {
        (DType::I8, DType::F32) => {
            let (si, zi) = cx.per_tensor(input)?;
            let t = (0u8..=255).map(|b| (si as f64 * (b as i8 as i32 - zi) as f64) as f32).collect();
            Ok(unary(input, output, Compute::LutToF32(t)))
        }
        (i, o) => Err(cx.unsupported(&format!("input {}, output {}", i.name(), o.name()), "int8 -> float32")),
    }
}
