//! Options several operators share: fused activations, SAME/VALID
//! padding, positive integer options (strides, dilations, filter sizes).

use super::context::OpCx;
use crate::diag::Error;
use crate::quant::quantize_f32;
use crate::tflite::Options;

/// A fused activation function (TFLite `ActivationFunctionType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// None.
    None,
    /// max(x, 0)
    Relu,
    /// clamp(x, -1, 1)
    ReluN1To1,
    /// clamp(x, 0, 6)
    Relu6,
}

impl Activation {
    /// Parses the option value.
    pub fn parse(cx: &OpCx<'_, '_>, code: i8) -> Result<Activation, Error> {
        match code {
            0 => Ok(Activation::None),
            1 => Ok(Activation::Relu),
            2 => Ok(Activation::ReluN1To1),
            3 => Ok(Activation::Relu6),
            4 => Err(cx.err("fused TANH activation is not supported")),
            5 => Err(cx.err("fused SIGN_BIT activation is not supported")),
            c => Err(cx.err(format!("unknown fused activation {c}"))),
        }
    }

    /// The float clamp range (TFLite `CalculateActivationRange`).
    pub fn float_range(self) -> (f32, f32) {
        match self {
            Activation::None => (f32::MIN, f32::MAX),
            Activation::Relu => (0.0, f32::MAX),
            Activation::ReluN1To1 => (-1.0, 1.0),
            Activation::Relu6 => (0.0, 6.0),
        }
    }

    /// The quantized clamp range for an output of the given quantization and
    /// type range (TFLite `CalculateActivationRangeQuantized`).
    pub fn quant_range(self, scale: f32, zero_point: i32, qmin: i32, qmax: i32) -> (i32, i32) {
        let q = |x: f32| quantize_f32(x, scale, zero_point);
        match self {
            Activation::None => (qmin, qmax),
            Activation::Relu => (qmin.max(q(0.0)), qmax),
            Activation::Relu6 => (qmin.max(q(0.0)), qmax.min(q(6.0))),
            Activation::ReluN1To1 => (qmin.max(q(-1.0)), qmax.min(q(1.0))),
        }
    }
}

/// TFLite padding: SAME or VALID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Padding {
    /// Output size ceil(in / stride), zero padding split with the extra at the end.
    Same,
    /// No padding.
    Valid,
}

impl Padding {
    /// Parses the option value.
    pub fn parse(cx: &OpCx<'_, '_>, code: i8) -> Result<Padding, Error> {
        match code {
            0 => Ok(Padding::Same),
            1 => Ok(Padding::Valid),
            c => Err(cx.err(format!("unknown padding {c}"))),
        }
    }

    /// Output size along one axis (TFLite `ComputeOutSize`).
    pub fn out_size(self, input: usize, filter: usize, stride: usize, dilation: usize) -> Option<usize> {
        let effective = filter.checked_sub(1)?.checked_mul(dilation)?.checked_add(1)?;
        match self {
            Padding::Same => Some(input.div_ceil(stride)),
            Padding::Valid => input.checked_sub(effective).map(|d| d / stride + 1),
        }
    }

    /// Leading padding along one axis (TFLite `ComputePadding`).
    pub fn leading(input: usize, filter: usize, stride: usize, dilation: usize, output: usize) -> usize {
        let effective = (filter as i64 - 1) * dilation as i64 + 1;
        let total = (output as i64 - 1) * stride as i64 + effective - input as i64;
        (total.max(0) / 2) as usize
    }
}

/// Reads a stride/dilation/filter-size option that must be >= 1.
pub fn positive(
    cx: &OpCx<'_, '_>,
    opts: Option<&Options<'_>>,
    id: u16,
    default: i32,
    what: &str,
) -> Result<usize, Error> {
    let v = match opts {
        Some(o) => o.scalar::<i32>(id, default)?,
        None => default,
    };
    usize::try_from(v)
        .ok()
        .filter(|&v| (1..=1 << 16).contains(&v))
        .ok_or_else(|| cx.err(format!("{what} must be between 1 and 65536, it is {v}")))
}
