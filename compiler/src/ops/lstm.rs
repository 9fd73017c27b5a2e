//! UNIDIRECTIONAL_SEQUENCE_LSTM as TFLM supports it: float32, int8 (int8
//! weights, int32 biases, int16 cell state) and 16x8 (int16 activations,
//! int64 biases); time-major or batch-major; cell clip; TANH cell gate.
//! The hidden state (input 18) and cell state (input 19) are variables,
//! kept in the model's state memory between invocations. Peephole,
//! projection and layer-norm tensors, which TFLM rejects, are errors here
//! too. Beyond TFLM: the hybrid (dynamic-range) LSTM, float32 activations
//! and states with int8 (or uint8, read as int8) weights of one scale
//! each, as LiteRT's `EvalHybrid` runs it (`kernels::lstm::lstm_hybrid`).

use crate::diag::Error;
use crate::graph::{DType, Tensor};
use crate::lowering::context::OpCx;
use crate::lowering::emit::{Emit, f32_lit};
use crate::lowering::operator::Operator;
use crate::quant::{checked_log2, quantize_multiplier, sigmoid_q16};
use proc_macro2::TokenStream;
use quote::quote;

use crate::tflite::fields::unidirectional_sequence_lstm as field;
/// Inputs: weights of the input, forget, cell, output gates.
const INPUT_WEIGHTS: [usize; 4] = [1, 2, 3, 4];
const RECURRENT_WEIGHTS: [usize; 4] = [5, 6, 7, 8];
const BIASES: [usize; 4] = [12, 13, 14, 15];
const HIDDEN: usize = 18;
const CELL: usize = 19;
/// The gates' FC output scale in TFLM's integer LSTM (Q3.12).
const GATE_SCALE: f32 = 1.0 / 4096.0;
/// The gates' activation output scale (Q0.15).
const ACT_SCALE: f32 = 1.0 / 32768.0;

#[derive(Debug)]
enum Arith {
    /// int8 or int16 activations with the constants of `LstmQuant` (as i32s
    /// in its field order) and the quantized clip.
    Quant {
        act: DType,
        consts: Vec<i32>,
        clip: Option<i32>,
    },
    Float {
        clip: f32,
    },
    /// float32 activations, int8 weights: their scales, and their row
    /// sums when the inputs are quantized asymmetrically.
    Hybrid {
        clip: f32,
        scales: [f32; 8],
        row_sums: Option<Vec<Vec<i32>>>,
    },
}

#[derive(Debug)]
struct Lstm {
    input: usize,
    weights: [usize; 8],
    biases: [Option<usize>; 4],
    hidden: usize,
    cell: usize,
    output: usize,
    /// Batch, time, input, units.
    dims: [usize; 4],
    time_major: bool,
    arith: Arith,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(20, 24, 1)?;
    let o = cx.options(field::TAG, "UnidirectionalSequenceLSTMOptions")?;
    let activation = o.map(|o| o.scalar::<i8>(field::FUSED_ACTIVATION, 0)).transpose()?.unwrap_or(0);
    let cell_clip = o.map(|o| o.scalar::<f32>(field::CELL_CLIP, 0.0)).transpose()?.unwrap_or(0.0);
    let time_major = o.map(|o| o.scalar::<bool>(field::TIME_MAJOR, false)).transpose()?.unwrap_or(false);
    if activation != 4 {
        return Err(cx.err(format!("the cell gate activation must be TANH (4), as TFLM requires; it is {activation}")));
    }
    for (range, what) in [(9..12, "peephole"), (16..18, "projection"), (20..24, "layer norm")] {
        if let Some(i) = range.clone().find(|&i| cx.opt_input(i).is_some()) {
            return Err(cx.err(format!("input {i}: LSTM {what} tensors are not supported (TFLM has no such variant)")));
        }
    }
    let input = cx.input(0)?;
    let hidden = cx.input(HIDDEN)?;
    let cell = cx.input(CELL)?;
    let output = cx.output(0)?;
    cx.activation_tensor(input, "input")?;
    for (t, role) in [(hidden, "hidden state (input 18)"), (cell, "cell state (input 19)")] {
        if !t.is_variable {
            return Err(cx.err(format!("the {role} '{}' must be a variable tensor", t.name)));
        }
    }
    let [d0, d1, n_input] = <[usize; 3]>::try_from(input.shape.as_slice())
        .map_err(|_| cx.err(format!("the input must have rank 3, it has shape {:?}", input.shape)))?;
    let (batch, time) = if time_major { (d1, d0) } else { (d0, d1) };
    let w: Vec<&Tensor<'_>> =
        INPUT_WEIGHTS.iter().chain(&RECURRENT_WEIGHTS).map(|&i| cx.input(i)).collect::<Result<_, _>>()?;
    let units = w[0].shape.first().copied().unwrap_or(0);
    for (k, t) in w.iter().enumerate() {
        cx.constant(t, "weights")?;
        let cols = if k < 4 { n_input } else { units };
        cx.check_shape(t, &[units, cols])?;
    }
    let biases: Vec<Option<&Tensor<'_>>> = BIASES.iter().map(|&i| cx.opt_input(i)).collect();
    for b in biases.iter().flatten() {
        cx.constant(b, "bias")?;
        cx.check_shape(b, &[units])?;
    }
    if hidden.elements != batch * units || cell.elements != batch * units {
        return Err(cx.err(format!("the states must hold batch x units = {} elements", batch * units)));
    }
    cx.check_shape(output, &[d0, d1, units])?;
    if units == 0 || n_input == 0 || batch == 0 || time == 0 {
        return Err(cx.err("the LSTM is empty"));
    }
    let same = |t: &Tensor<'_>, d: DType| t.dtype == d;
    let arith = match (input.dtype, w[0].dtype, cell.dtype) {
        (DType::F32, DType::F32, DType::F32) => {
            if !w.iter().all(|t| same(t, DType::F32))
                || !biases.iter().flatten().all(|b| same(b, DType::F32))
                || !same(hidden, DType::F32)
                || !same(output, DType::F32)
            {
                return Err(cx.unsupported("mixed float32 and quantized tensors", "float32 throughout"));
            }
            Arith::Float { clip: cell_clip }
        }
        (act @ (DType::I8 | DType::I16), DType::I8, DType::I16) => {
            let bias_type = if act == DType::I8 { DType::I32 } else { DType::I64 };
            if !w.iter().all(|t| same(t, DType::I8))
                || !biases.iter().flatten().all(|b| same(b, bias_type))
                || !same(hidden, act)
                || !same(output, act)
            {
                return Err(cx.unsupported(
                    "these tensor types",
                    "int8 (or int16) input, hidden state and output, int8 weights, int32 (int64) biases, int16 cell",
                ));
            }
            let (consts, clip) = quant_consts(cx, input, &w, hidden, cell, cell_clip)?;
            Arith::Quant { act, consts, clip }
        }
        (DType::F32, DType::I8 | DType::U8, DType::F32) => {
            if !w.iter().all(|t| same(t, w[0].dtype))
                || !biases.iter().flatten().all(|b| same(b, DType::F32))
                || !same(hidden, DType::F32)
                || !same(output, DType::F32)
            {
                return Err(cx.unsupported(
                    "these tensor types",
                    "hybrid: float32 input, states, biases and output, int8 (or uint8) weights",
                ));
            }
            if o.map(|o| o.scalar::<bool>(field::DIAGONAL_RECURRENT_TENSORS, false)).transpose()?.unwrap_or(false) {
                return Err(cx.err("diagonal recurrent weights are not supported"));
            }
            let asymmetric =
                o.map(|o| o.scalar::<bool>(field::ASYMMETRIC_QUANTIZE_INPUTS, false)).transpose()?.unwrap_or(false);
            let mut scales = [0.0; 8];
            for (k, t) in w.iter().enumerate() {
                // LiteRT reads `params.scale`: one scale per tensor.
                scales[k] = match crate::lowering::hybrid::weight_scales(cx, t, None, units)?.as_slice() {
                    [s] => *s,
                    _ => return Err(cx.err(format!("hybrid LSTM weights '{}' need one scale", t.name))),
                };
            }
            let row_sums = asymmetric.then(|| {
                w.iter()
                    .enumerate()
                    .map(|(k, t)| {
                        crate::lowering::hybrid::row_sums(
                            t.data.as_deref().unwrap_or_default(),
                            if k < 4 { n_input } else { units },
                        )
                    })
                    .collect()
            });
            Arith::Hybrid { clip: cell_clip, scales, row_sums }
        }
        (i, wt, c) => {
            return Err(cx.unsupported(
                &format!("input {}, weights {}, cell state {}", i.name(), wt.name(), c.name()),
                "float32; int8 or int16 activations with int8 weights and an int16 cell state; hybrid: float32 \
                 activations and cell state with int8 weights",
            ));
        }
    };
    let weights: [usize; 8] = std::array::from_fn(|k| w[k].index);
    Ok(Box::new(Lstm {
        input: input.index,
        weights,
        biases: std::array::from_fn(|g| biases[g].map(|b| b.index)),
        hidden: hidden.index,
        cell: cell.index,
        output: output.index,
        dims: [batch, time, n_input, units],
        time_major,
        arith,
    }))
}

/// TFLM's `PrepareGateParametersInteger`: gate FCs to Q3.12, the three
/// products, the cell state's power-of-two scale for tanh, the clip.
fn quant_consts(
    cx: &OpCx<'_, '_>,
    input: &Tensor<'_>,
    w: &[&Tensor<'_>],
    hidden: &Tensor<'_>,
    cell: &Tensor<'_>,
    cell_clip: f32,
) -> Result<(Vec<i32>, Option<i32>), Error> {
    let (si, zi) = cx.per_tensor(input)?;
    let (sh, zh) = cx.per_tensor(hidden)?;
    let (sc, _) = cx.per_tensor(cell)?;
    let mq = |real: f64| -> Result<(i32, i32), Error> {
        let (m, s) = quantize_multiplier(real);
        if !(-31..=30).contains(&s) {
            return Err(cx.err("a scale is out of the range TFLite can requantize"));
        }
        Ok((m, s))
    };
    let mut fc = Vec::new();
    for (k, t) in w.iter().enumerate() {
        let (sw, _) = cx.per_tensor(t)?;
        let x = if k < 4 { si } else { sh };
        // The scale product in double (unlike a FULLY_CONNECTED op's
        // single-precision one): the differential suite found TFLM's gate
        // multipliers so (an int8 LSTM one off in 1 of ~500 cases before).
        fc.push(mq(x as f64 * sw as f64 / GATE_SCALE as f64)?);
    }
    let product = |a: f32, b: f32, out: f32| mq(a as f64 * b as f64 / out as f64);
    let forget = product(ACT_SCALE, sc, sc)?;
    let input_mul = product(ACT_SCALE, ACT_SCALE, sc)?;
    let output_mul = product(ACT_SCALE, ACT_SCALE, sh)?;
    // tanh(cell): the cell scale as a power of two, TFLM's shift rule.
    let (power, _) = checked_log2(sc);
    let shift = 15 + power - 3;
    let cell_tanh = if shift < 0 {
        (3, -shift)
    } else if shift <= 12 {
        (3 << shift, 0)
    } else {
        return Err(cx.err(format!("the cell state scale {sc} is too large for TFLM's int16 tanh")));
    };
    let clip = (cell_clip > 0.0).then(|| (cell_clip as f64 / sc as f64).clamp(-32768.0, 32767.0) as i16 as i32);
    let mut consts = vec![-zi, -zh, zh];
    for (m, s) in &fc {
        consts.extend([*m, *s]);
    }
    for (m, s) in [forget, input_mul, output_mul, cell_tanh] {
        consts.extend([m, s]);
    }
    Ok((consts, clip))
}

impl Operator for Lstm {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let [b, t, i, u] = self.dims;
        let tm = self.time_major;
        let input = cx.read(self.input)?;
        let hybrid = matches!(self.arith, Arith::Hybrid { .. });
        let w: Vec<TokenStream> =
            self.weights.iter().map(|&k| if hybrid { cx.read_i8(k) } else { cx.read(k) }).collect::<Result<_, _>>()?;
        let bias: Vec<TokenStream> = self.biases.iter().map(|&k| cx.read_opt(k)).collect::<Result<_, _>>()?;
        let (wi, wr) = (&w[..4], &w[4..]);
        let weights = quote!(&::tinyaot::__private::kernels::lstm::LstmWeights {
            input: [#(#wi),*], recurrent: [#(#wr),*], bias: [#(#bias),*],
        });
        let hidden = cx.write(self.hidden)?;
        let cell = cx.write(self.cell)?;
        let output = cx.write(self.output)?;
        Ok(match &self.arith {
            Arith::Float { clip } => {
                let clip = f32_lit(*clip);
                quote!(::tinyaot::__private::kernels::lstm::lstm_f32::<#b, #t, #i, #u, #tm>(
                    #input, #weights, #hidden, #cell, #output, #clip);)
            }
            Arith::Hybrid { clip, scales, row_sums } => {
                let clip = f32_lit(*clip);
                let asymmetric = row_sums.is_some();
                let scales = scales.map(f32_lit);
                let sums: Vec<TokenStream> =
                    (0..8).map(|k| cx.i32s(row_sums.as_ref().map_or(&[][..], |r| r[k].as_slice()))).collect();
                let q = cx.scratch::<i8>()?;
                quote!(::tinyaot::__private::kernels::lstm::lstm_hybrid::<#b, #t, #i, #u, #tm, #asymmetric>(
                    #input, #weights,
                    &::tinyaot::__private::kernels::lstm::LstmHybrid { scales: [#(#scales),*], row_sums: [#(#sums),*] },
                    #hidden, #cell, #output, #clip, #q);)
            }
            Arith::Quant { act, consts, clip } => {
                let act = Emit::rust_type(*act)?;
                let c = consts;
                let pair = |k: usize| {
                    let (m, s) = (c[k], c[k + 1]);
                    quote!((#m, #s))
                };
                let (io, ho, hz) = (c[0], c[1], c[2]);
                let input_fc: Vec<TokenStream> = (0..4).map(|g| pair(3 + 2 * g)).collect();
                let recurrent_fc: Vec<TokenStream> = (0..4).map(|g| pair(11 + 2 * g)).collect();
                let (fm, im, om, ct) = (pair(19), pair(21), pair(23), pair(25));
                let clip = match clip {
                    Some(c) => quote!(Some(#c)),
                    None => quote!(None),
                };
                let sigmoid = cx.u16s(&sigmoid_q16());
                quote!(::tinyaot::__private::kernels::lstm::lstm_q::<#act, #b, #t, #i, #u, #tm>(
                    #input, #weights, #hidden, #cell, #output,
                    &::tinyaot::__private::kernels::lstm::LstmQuant {
                        input_offset: #io, hidden_offset: #ho, hidden_zero_point: #hz,
                        input_fc: [#(#input_fc),*], recurrent_fc: [#(#recurrent_fc),*],
                        forget_mul: #fm, input_mul: #im, output_mul: #om,
                        cell_clip: #clip, cell_tanh: #ct, sigmoid: #sigmoid,
                    });)
            }
        })
    }

    fn macs(&self) -> u64 {
        let [b, t, i, u] = self.dims;
        4 * (b * t) as u64 * u as u64 * (i + u) as u64
    }

    fn variants(&self) -> Vec<crate::lowering::variant::Variant> {
        use crate::lowering::variant::{Kernel, Variant};
        // The hybrid LSTM quantizes an input row and a hidden row into scratch.
        let [_, _, i, u] = self.dims;
        let scratch = if matches!(self.arith, Arith::Hybrid { .. }) { i + u } else { 0 };
        vec![Variant { kernel: Kernel::Direct, scratch, cost: self.macs() }]
    }
}
