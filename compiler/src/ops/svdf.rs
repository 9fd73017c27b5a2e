//! SVDF: float32 (fused RELU family) and int8 with an int8 or int16 state
//! (TFLM's integer kernel, which applies no fused activation), rank >= 1,
//! any batch; hybrid (float32 input, state and output with int8 weights,
//! which TFLM does not run) as LiteRT's `EvalHybridSVDF`. Input 4 is the state: a variable tensor, kept in the model's
//! state memory between invocations and updated in place by the kernel.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::{Emit, f32_lit};
use crate::lowering::operator::Operator;
use crate::lowering::options::Activation;
use crate::lowering::requant::check_bias;
use crate::quant::quantize_multiplier;
use proc_macro2::TokenStream;
use quote::quote;

use crate::tflite::fields::svdf as field;

#[derive(Debug)]
enum Arith {
    /// int8 input and output, state and time weights of `state` type.
    Int8 { state: DType, consts: [i32; 7] },
    /// float32 with the activation bounds (infinite where TFLM does not clamp).
    Float(f32, f32),
    /// Hybrid: the feature weights' scale, the time weights dequantized,
    /// each feature row's sum (asymmetric input quantization only), the
    /// activation bounds.
    Hybrid { feature_scale: f32, weights_time: Vec<f32>, row_sums: Option<Vec<i32>>, range: (f32, f32) },
}

#[derive(Debug)]
struct Svdf {
    input: usize,
    weights_feature: usize,
    weights_time: usize,
    bias: Option<usize>,
    state: usize,
    output: usize,
    /// Batch, input size, filters, rank, memory.
    dims: [usize; 5],
    arith: Arith,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(5, 5, 1)?;
    let o = cx.options(field::TAG, "SVDFOptions")?;
    let rank = o.map(|o| o.scalar::<i32>(field::RANK, 0)).transpose()?.unwrap_or(0);
    let activation =
        Activation::parse(cx, o.map(|o| o.scalar::<i8>(field::FUSED_ACTIVATION, 0)).transpose()?.unwrap_or(0))?;
    let input = cx.input(0)?;
    let wf = cx.input(1)?;
    let wt = cx.input(2)?;
    let bias = cx.opt_input(3);
    let state = cx.input(4)?;
    let output = cx.output(0)?;
    cx.activation_tensor(input, "input")?;
    cx.constant(wf, "weights_feature")?;
    cx.constant(wt, "weights_time")?;
    if !state.is_variable {
        return Err(cx.err(format!("the state '{}' (input 4) must be a variable tensor", state.name)));
    }
    let (batch, input_size, filters, memory) = match (&input.shape[..], &wf.shape[..], &wt.shape[..]) {
        (&[b, i], &[f, i2], &[f2, m]) if i == i2 && f == f2 => (b, i, f, m),
        _ => {
            return Err(cx.err(format!(
                "shapes do not fit: input {:?} (batch, input), weights_feature {:?} (filters, input), weights_time {:?} \
                 (filters, memory)",
                input.shape, wf.shape, wt.shape
            )));
        }
    };
    let rank = usize::try_from(rank)
        .ok()
        .filter(|&r| r >= 1 && filters % r == 0)
        .ok_or_else(|| cx.err(format!("rank {rank} must be positive and divide the {filters} filters")))?;
    let units = filters / rank;
    cx.check_shape(state, &[batch, memory * filters])?;
    cx.check_shape(output, &[batch, units])?;
    if memory == 0 || input_size == 0 {
        return Err(cx.err("the memory and the input must not be empty"));
    }
    let arith = match (input.dtype, wf.dtype, wt.dtype, state.dtype, output.dtype) {
        (DType::F32, DType::F32, DType::F32, DType::F32, DType::F32) => {
            check_bias(cx, bias, DType::F32, units)?;
            let (lo, hi) = float_range(activation);
            Arith::Float(lo, hi)
        }
        (DType::I8, DType::I8, t @ (DType::I8 | DType::I16), s, DType::I8) if s == t => {
            check_bias(cx, bias, DType::I32, units)?;
            let (si, zi) = cx.per_tensor(input)?;
            let (sf, _) = cx.per_tensor(wf)?;
            let (st, _) = cx.per_tensor(wt)?;
            let (ss, zs) = cx.per_tensor(state)?;
            let (so, zo) = cx.per_tensor(output)?;
            // Products in single precision, as TFLM computes them.
            let (m1, s1) = quantize_multiplier((si * sf / ss) as f64);
            let (m2, s2) = quantize_multiplier((ss * st / so) as f64);
            if !(-31..=30).contains(&s1) || !(-31..=30).contains(&s2) {
                return Err(cx.err("the scales are out of the range TFLite can requantize"));
            }
            Arith::Int8 { state: s, consts: [zi, zs, zo, m1, s1, m2, s2] }
        }
        (DType::F32, DType::I8, DType::I8, DType::F32, DType::F32) => {
            // One scale each (LiteRT reads one); the bias is checked with the first.
            let scale = |t: &crate::graph::Tensor<'_>, bias, what: &str| match crate::lowering::hybrid::weight_scales(
                cx, t, bias, units,
            )?[..]
            {
                [s] => Ok(s),
                _ => Err(cx.err(format!("hybrid int8 {what} need one scale (LiteRT reads one)"))),
            };
            let feature_scale = scale(wf, bias, "feature weights")?;
            let time_scale = scale(wt, None, "time weights")?;
            let asymmetric =
                o.map(|o| o.scalar::<bool>(field::ASYMMETRIC_QUANTIZE_INPUTS, false)).transpose()?.unwrap_or(false);
            let (wf_data, wt_data) = (wf.data.as_deref().unwrap_or_default(), wt.data.as_deref().unwrap_or_default());
            // LiteRT dequantizes the time weights once: int8 times the scale in float32.
            let weights_time = wt_data.iter().map(|&w| w as i8 as f32 * time_scale).collect();
            let row_sums = asymmetric.then(|| crate::lowering::hybrid::row_sums(wf_data, input_size));
            Arith::Hybrid { feature_scale, weights_time, row_sums, range: float_range(activation) }
        }
        (i, f, t, s, o) => {
            return Err(cx.unsupported(
                &format!(
                    "input {}, weights {} and {}, state {}, output {}",
                    i.name(),
                    f.name(),
                    t.name(),
                    s.name(),
                    o.name()
                ),
                "float32 throughout; int8 input, feature weights and output with int8 or int16 state and time weights; \
                 hybrid: float32 input, state and output with int8 weights",
            ));
        }
    };
    Ok(Box::new(Svdf {
        input: input.index,
        weights_feature: wf.index,
        weights_time: wt.index,
        bias: bias.map(|b| b.index),
        state: state.index,
        output: output.index,
        dims: [batch, input_size, filters, rank, memory],
        arith,
    }))
}

/// The clamp of a float32 SVDF's fused activation, as TFLM's
/// `ActivationValFloat` (and LiteRT) apply it: none where the range is open.
fn float_range(activation: Activation) -> (f32, f32) {
    match activation {
        Activation::None => (f32::NEG_INFINITY, f32::INFINITY),
        Activation::Relu => (0.0, f32::INFINITY),
        a => a.float_range(),
    }
}

impl Operator for Svdf {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let [b, i, f, r, m] = self.dims;
        let input = cx.read(self.input)?;
        let wf = cx.read(self.weights_feature)?;
        let bias = cx.read_opt(self.bias)?;
        let state = cx.write(self.state)?;
        let output = cx.write(self.output)?;
        Ok(match &self.arith {
            Arith::Int8 { state: t, consts: [zi, zs, zo, m1, s1, m2, s2] } => {
                let t = Emit::rust_type(*t)?;
                let wt = cx.read(self.weights_time)?;
                quote!(::tinyaot::__private::kernels::svdf::svdf_s8::<#t, #b, #i, #f, #r, #m>(
                    #input, #wf, #wt, #bias, #state, #output,
                    &::tinyaot::__private::kernels::svdf::SvdfQuant {
                        input_zero_point: #zi, state_zero_point: #zs, output_zero_point: #zo,
                        multiplier_1: #m1, shift_1: #s1, multiplier_2: #m2, shift_2: #s2,
                    });)
            }
            Arith::Float(lo, hi) => {
                let (lo, hi) = (f32_lit(*lo), f32_lit(*hi));
                let wt = cx.read(self.weights_time)?;
                quote!(::tinyaot::__private::kernels::svdf::svdf_f32::<#b, #i, #f, #r, #m>(
                    #input, #wf, #wt, #bias, #state, #output, #lo, #hi);)
            }
            Arith::Hybrid { feature_scale, weights_time, row_sums, range } => {
                let asymmetric = row_sums.is_some();
                let row_sums = cx.i32s(row_sums.as_deref().unwrap_or(&[]));
                let time = cx.f32s(weights_time);
                let scale = f32_lit(*feature_scale);
                let range = crate::lowering::hybrid::emit_range(*range);
                let q = cx.scratch::<i8>()?;
                quote!(::tinyaot::__private::kernels::svdf::svdf_hybrid::<#b, #i, #f, #r, #m, #asymmetric>(
                    #input, #wf, #scale, #row_sums, #time, #bias, #state, #output, #range, #q);)
            }
        })
    }

    fn macs(&self) -> u64 {
        let [b, i, f, _, m] = self.dims;
        (b as u64) * (f as u64) * (i as u64 + m as u64)
    }

    fn variants(&self) -> Vec<crate::lowering::variant::Variant> {
        use crate::lowering::variant::{Kernel, Variant};
        // A hybrid SVDF quantizes each frame into scratch.
        let scratch = if matches!(self.arith, Arith::Hybrid { .. }) { self.dims[1] } else { 0 };
        vec![Variant { kernel: Kernel::Direct, scratch, cost: self.macs() }]
    }
}
