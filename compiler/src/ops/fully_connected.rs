//! FULLY_CONNECTED: int8 (per-tensor or per-channel weights, int32 bias),
//! int16x8 and float32; fused RELU family; keep_num_dims. Inputs of any
//! rank are flattened to rows of the weights' depth, as TFLite does.
//! Hybrid (float32 activations, constant int8 weights: the converter's
//! dynamic-range quantization), which TFLM refuses, as LiteRT runs it:
//! each input row quantized on the fly (symmetric, or asymmetric with
//! `asymmetric_quantize_inputs`), per-tensor or per-channel weight scales.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::{Emit, f32_lit};
use crate::lowering::hybrid;
use crate::lowering::operator::Operator;
use crate::lowering::options::Activation;
use crate::lowering::requant::{Arith, Requant, Requant16, check_bias, folded_bias};
use crate::lowering::weights::PackedRows;
use proc_macro2::TokenStream;
use quote::quote;

use crate::tflite::fields::fully_connected as field;

#[derive(Debug)]
struct FullyConnected {
    input: usize,
    weights: usize,
    bias: Option<usize>,
    output: usize,
    batches: usize,
    depth: usize,
    units: usize,
    arith: Arith<(Requant, i32)>,
    /// A uint8 model's (`lowering::uint8`): LiteRT's uint8 requantization,
    /// the sum times `input * weight / output` scale in double precision,
    /// rounded (not the fixed-point multiplier).
    double_scale: Option<f64>,
    /// Symmetric int8 with constant weights (and bias): the input offset
    /// folded into the bias.
    folded_bias: Option<Vec<i32>>,
    /// With `folded_bias`: the weights repacked for the blocked dot
    /// products.
    packed: Option<PackedRows>,
    /// float32 with constant weights: 8 rows at a time transposed
    /// (`layout::pack_f32_rows8`), as bytes.
    packed_f32: Option<Vec<u8>>,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 3, 1)?;
    let opts = cx.options(field::TAG, "FullyConnectedOptions")?;
    let o = opts.as_ref();
    let activation =
        Activation::parse(cx, o.map(|o| o.scalar::<i8>(field::FUSED_ACTIVATION, 0)).transpose()?.unwrap_or(0))?;
    let weights_format = o.map(|o| o.scalar::<i8>(field::WEIGHTS_FORMAT, 0)).transpose()?.unwrap_or(0);
    if weights_format != 0 {
        return Err(cx.err("the SHUFFLED4x16INT8 weights format is not supported"));
    }
    let keep_num_dims = o.map(|o| o.scalar::<bool>(field::KEEP_NUM_DIMS, false)).transpose()?.unwrap_or(false);

    let input = cx.input(0)?;
    let weights = cx.input(1)?;
    let bias = cx.opt_input(2);
    let output = cx.output(0)?;
    cx.activation_tensor(input, "input")?;
    let [units, depth] = <[usize; 2]>::try_from(weights.shape.as_slice())
        .map_err(|_| cx.err(format!("weights '{}' must have rank 2, shape is {:?}", weights.name, weights.shape)))?;
    if depth == 0 || input.elements % depth != 0 {
        return Err(cx.err(format!(
            "input {} has {} elements, not a multiple of the weights' depth {depth}",
            input.describe(),
            input.elements
        )));
    }
    let batches = input.elements / depth;
    let expected: Vec<usize> = if keep_num_dims {
        let mut s = input.shape.clone();
        match s.last_mut() {
            Some(last) if *last == depth => *last = units,
            _ => {
                return Err(cx.err(format!("keep_num_dims needs the input's last dimension to be {depth}")));
            }
        }
        s
    } else {
        vec![batches, units]
    };
    // Converters sometimes store [units] for batch 1: accept any shape with
    // the right element count when keep_num_dims is off.
    if keep_num_dims || output.elements != batches * units {
        cx.check_shape(output, &expected)?;
    }

    let arith = match (input.dtype, weights.dtype, output.dtype) {
        (DType::I8, DType::I8, DType::I8) => {
            check_bias(cx, bias, DType::I32, units)?;
            let wq = weights.quant.as_ref().ok_or_else(|| cx.err("int8 weights need quantization parameters"))?;
            let weight_offset = -(wq.zero_points[0] as i32);
            if wq.scales.len() > 1 && wq.zero_points.iter().any(|&z| z != 0) {
                return Err(cx.err("per-channel weights must be symmetric (zero point 0)"));
            }
            let mut weights_sym = weights.clone();
            if let Some(q) = weights_sym.quant.as_mut() {
                q.zero_points.iter_mut().for_each(|z| *z = 0);
            }
            let mut rq = Requant::new(cx, input, &weights_sym, output, units, activation)?;
            if let Some(ranges) = crate::lowering::requant::sum_ranges(weights, -weight_offset, bias, units) {
                rq.settle_constant_channels(&ranges);
            }
            Arith::Int8((rq, weight_offset))
        }
        (DType::I16, DType::I8, DType::I16) => {
            Arith::Int16(Requant16::new(cx, input, weights, bias, output, units, activation)?)
        }
        (DType::F32, DType::F32, DType::F32) => {
            check_bias(cx, bias, DType::F32, units)?;
            let (lo, hi) = activation.float_range();
            Arith::Float(lo, hi)
        }
        // LiteRT reads uint8 hybrid weights as int8 (their bytes, unshifted).
        (DType::F32, DType::I8 | DType::U8, DType::F32) => {
            return Hybrid::lower(cx, input, weights, bias, output, (batches, depth, units), activation, o);
        }
        (i, w, o) => {
            return Err(cx.unsupported(
                &format!("input {}, weights {}, output {}", i.name(), w.name(), o.name()),
                "int8/int8/int8 (int32 bias), int16/int8/int16 (int64 or int32 bias), float32/float32/float32, \
                 hybrid float32/int8 or uint8/float32",
            ));
        }
    };
    let double_scale = match &arith {
        Arith::Int8(_) if cx.node.from_uint8 => {
            let scale = |t: &crate::graph::Tensor<'_>| cx.per_tensor(t).map(|(s, _)| f64::from(s));
            Some(scale(input)? * scale(weights)? / scale(output)?)
        }
        _ => None,
    };
    let folded_bias = match (&arith, weights.data.as_deref(), bias.map(|b| b.data.as_deref())) {
        _ if double_scale.is_some() => None,
        (Arith::Int8((q, 0)), Some(w), None) => Some(folded_bias(w, None, units, q.input_offset)),
        (Arith::Int8((q, 0)), Some(w), Some(Some(b))) => Some(folded_bias(w, Some(b), units, q.input_offset)),
        _ => None,
    };
    let packed = match (&arith, weights.data.as_deref()) {
        (Arith::Int8((q, _)), Some(w)) if folded_bias.is_some() => {
            let w: Vec<i8> = w.iter().map(|&b| b as i8).collect();
            let rows = PackedRows::of(&w, units, depth, weights.int4);
            // Fused layers in the pair-row layout where the target has its
            // kernels (`dot::dense_lanes_down`: one sign extension per two
            // rows' weight word); the same bytes, rearranged.
            // Small layers keep their widened rows (`PackedRows::new`):
            // there the per-block steps outweigh the sign extensions.
            let lanes =
                q.fused() && rows.widened.is_none() && rows.int4.is_none() && crate::layout::dense_lanes(depth, units);
            Some(if lanes { rows.pair_lanes(&w, units, depth) } else { rows })
        }
        _ => None,
    };
    let packed_f32 = match (&arith, weights.data.as_deref()) {
        (Arith::Float(..), Some(w)) => {
            let f: Vec<f32> = w.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
            Some(crate::layout::pack_f32_rows8(&f, units, depth).flat_map(f32::to_le_bytes).collect())
        }
        _ => None,
    };
    Ok(Box::new(FullyConnected {
        packed,
        packed_f32,
        folded_bias,
        input: input.index,
        weights: weights.index,
        bias: bias.map(|b| b.index),
        output: output.index,
        batches,
        depth,
        units,
        arith,
        double_scale,
    }))
}

impl Operator for FullyConnected {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (b, d, o) = (self.batches, self.depth, self.units);
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        if let (Arith::Int8((q, _)), Some(folded), Some(packed)) = (&self.arith, &self.folded_bias, &self.packed) {
            // The folded kernel carries the bias inside its own table and
            // reads the repacked weights only.
            let folded = cx.i32s(folded);
            let packed = packed.emit(cx);
            let fuse = q.fused();
            let q = q.emit_rescale(cx)?;
            return Ok(quote!(::tinyaot::__private::kernels::fully_connected::fully_connected_folded_s8::<
                #b, #d, #o, #fuse>(#input, #packed, #folded, #q, #output);));
        }
        if let (Arith::Float(lo, hi), Some(packed)) = (&self.arith, &self.packed_f32) {
            let packed = cx.bytes(packed);
            let bias = cx.read_opt(self.bias)?;
            let (lo, hi) = (f32_lit(*lo), f32_lit(*hi));
            return Ok(quote!(::tinyaot::__private::kernels::fully_connected::fully_connected_f32_rows8::<#b, #d, #o>(
                #input, #packed.cast::<f32>(), #bias, #lo, #hi, #output);));
        }
        let weights = cx.read(self.weights)?;
        let bias = cx.read_opt(self.bias)?;
        if let (Arith::Int8((q, weight_offset)), Some(scale)) = (&self.arith, self.double_scale) {
            let Requant { input_offset, output_offset, act_min, act_max, .. } = q;
            let bits = scale.to_bits();
            return Ok(quote!(::tinyaot::__private::kernels::fully_connected::fully_connected::<i32, _, #b, #d, #o>(
                #input, #weights, #bias, &::tinyaot::__private::kernels::fully_connected::ScaledInDouble {
                    input_offset: #input_offset,
                    weight_offset: #weight_offset,
                    output_offset: #output_offset,
                    scale: f64::from_bits(#bits),
                    act_min: #act_min,
                    act_max: #act_max,
                }, #output);));
        }
        if let Arith::Int16(w) = &self.arith {
            let (acc, q) = w.emit(cx);
            return Ok(
                quote!(::tinyaot::__private::kernels::fully_connected::fully_connected_16x8::<#acc, #b, #d, #o>(
                #input, #weights, #bias, #q, #output);),
            );
        }
        // int8 weights with a zero point: the arithmetic that offsets them.
        let (acc, q) = self.arith.emit_arithmetic(cx, |(q, weight_offset), cx| match (q.emit(cx), weight_offset) {
            (q, 0) => q,
            (q, offset) => quote!(&::tinyaot::__private::kernels::fully_connected::WeightOffset {
                q: #q,
                weight_offset: #offset,
            }),
        });
        Ok(quote!(::tinyaot::__private::kernels::fully_connected::fully_connected::<#acc, _, #b, #d, #o>(
            #input, #weights, #bias, #q, #output);))
    }

    fn macs(&self) -> u64 {
        [self.batches, self.depth, self.units].iter().fold(1u64, |acc, &d| acc.saturating_mul(d as u64))
    }
}

/// Hybrid FULLY_CONNECTED (`kernels::hybrid::fully_connected_hybrid`).
#[derive(Debug)]
struct Hybrid {
    input: usize,
    weights: usize,
    bias: Option<usize>,
    output: usize,
    batches: usize,
    depth: usize,
    units: usize,
    /// The weights' scale, or one per unit.
    scales: Vec<f32>,
    /// Each weight row's sum (asymmetric input quantization only).
    row_sums: Option<Vec<i32>>,
    /// The fused activation's range; `None` without one.
    clamp: Option<(f32, f32)>,
}

impl Hybrid {
    #[allow(clippy::too_many_arguments)]
    fn lower(
        cx: &OpCx<'_, '_>,
        input: &crate::graph::Tensor<'_>,
        weights: &crate::graph::Tensor<'_>,
        bias: Option<&crate::graph::Tensor<'_>>,
        output: &crate::graph::Tensor<'_>,
        (batches, depth, units): (usize, usize, usize),
        activation: Activation,
        options: Option<&crate::tflite::Options<'_>>,
    ) -> Result<Box<dyn Operator>, Error> {
        let scales = hybrid::weight_scales(cx, weights, bias, units)?;
        let data = weights.data.as_deref().unwrap_or_default();
        if scales.len() != 1 && scales.len() != units {
            return Err(cx.err(format!("the weights have {} scales for {units} units", scales.len())));
        }
        let asymmetric =
            options.map(|o| o.scalar::<bool>(field::ASYMMETRIC_QUANTIZE_INPUTS, false)).transpose()?.unwrap_or(false);
        let row_sums = asymmetric.then(|| hybrid::row_sums(data, depth));
        let clamp = (activation != Activation::None).then(|| activation.float_range());
        Ok(Box::new(Hybrid {
            input: input.index,
            weights: weights.index,
            bias: bias.map(|b| b.index),
            output: output.index,
            batches,
            depth,
            units,
            scales,
            row_sums,
            clamp,
        }))
    }
}

impl Operator for Hybrid {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (b, d, o) = (self.batches, self.depth, self.units);
        let input = cx.read(self.input)?;
        let weights = cx.read_i8(self.weights)?;
        let bias = cx.read_opt(self.bias)?;
        let output = cx.write(self.output)?;
        let scales = cx.f32s(&self.scales);
        let asymmetric = self.row_sums.is_some();
        let row_sums = cx.i32s(self.row_sums.as_deref().unwrap_or(&[]));
        let clamp = match self.clamp {
            Some(range) => {
                let range = hybrid::emit_range(range);
                quote!(::core::option::Option::Some(#range))
            }
            None => quote!(::core::option::Option::None),
        };
        let q = cx.scratch::<i8>()?;
        Ok(quote!(::tinyaot::__private::kernels::hybrid::fully_connected_hybrid::<#b, #d, #o, #asymmetric>(
            #input, #weights, #bias, #scales, #row_sums, #clamp, #q, #output);))
    }

    fn macs(&self) -> u64 {
        [self.batches, self.depth, self.units].iter().fold(1u64, |acc, &d| acc.saturating_mul(d as u64))
    }

    fn variants(&self) -> Vec<crate::lowering::variant::Variant> {
        use crate::lowering::variant::{Kernel, Variant};
        // The quantized input row lives in scratch.
        vec![Variant { kernel: Kernel::Direct, scratch: self.depth, cost: self.macs() * 2 }]
    }
}
