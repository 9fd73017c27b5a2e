//! Legacy uint8 models (TF1-era asymmetric quantization), which TFLM
//! refuses and LiteRT runs: an int8 case of another generator with its int8
//! tensors made uint8 (zero points and constants moved by 128, so the
//! values stay), its conv-like weights redrawn asymmetric (uint8, any zero
//! point, one scale per tensor, as TF1's quantization made them) and, now
//! and then, CONCATENATION inputs quantized apart from the output (which
//! LiteRT rescales). Answered by LiteRT's reference kernels.

use super::GENERATORS;
use crate::{Model, Rng, Ty};
use tinyaot_tests::writer::{QuantDef, dtype};

/// The generators whose int8 cases become uint8 ones: the ops legacy
/// uint8 models use (tinyaot's `lowering::uint8` table).
const OPS: &[&str] = &[
    "CONV_2D",
    "DEPTHWISE_CONV_2D",
    "FULLY_CONNECTED",
    "AVERAGE_POOL_2D",
    "MAX_POOL_2D",
    "ADD",
    "SUB",
    "MUL",
    "MAXIMUM",
    "MINIMUM",
    "SOFTMAX",
    "LOGISTIC",
    "TANH",
    "RELU",
    "RELU6",
    "LEAKY_RELU",
    "HARD_SWISH",
    "L2_NORMALIZATION",
    "MEAN",
    "REDUCE_MAX",
    "REDUCE_MIN",
    "RESIZE_BILINEAR",
    "RESIZE_NEAREST_NEIGHBOR",
    "PAD",
    "PADV2",
    "MIRROR_PAD",
    "SPACE_TO_BATCH_ND",
    "BATCH_TO_SPACE_ND",
    "QUANTIZE",
    "DEQUANTIZE",
    "CONCATENATION",
    "RESHAPE",
    "TRANSPOSE",
    "CHAIN",
];

/// Builtin codes whose input 1 is a filter: CONV_2D, DEPTHWISE_CONV_2D,
/// FULLY_CONNECTED.
const FILTERED: &[i32] = &[3, 4, 9];
/// CONCATENATION.
const CONCATENATION: i32 = 2;

pub(super) fn uint8_ops(r: &mut Rng) -> (Model, String) {
    let op = r.pick(OPS);
    let generate = GENERATORS.iter().find(|g| g.0 == op).map(|g| g.1).expect("a listed generator");
    // Draw until the generator gives an int8 case (it also draws float32,
    // int16 and hybrid ones).
    for _ in 0..1000 {
        let (mut m, label) = generate(r);
        if let Some(note) = to_uint8(r, &mut m) {
            return (m, format!("{op} {label}{note}"));
        }
    }
    panic!("the {op} generator drew no int8 case in 1000 tries")
}

/// The uint8 twin of an int8 model, or `None` when `m` is not one (other
/// dtypes, stateful or specially fed inputs).
fn to_uint8(r: &mut Rng, m: &mut Model) -> Option<String> {
    if m.nonzero.is_some() || m.fixed.is_some() || m.invokes != 1 || m.def.subgraphs.len() != 1 {
        return None;
    }
    let codes: Vec<i32> = m.def.opcodes.iter().map(|c| c.0).collect();
    let g = &m.def.subgraphs[0];
    let conversion = g.ops.iter().all(|o| matches!(codes[o.opcode as usize], 6 | 114));
    let allowed = |d: i8| d == dtype::I8 || d == dtype::I32 || d == dtype::I64 || (conversion && d == dtype::F32);
    if !g.tensors.iter().all(|t| allowed(t.dtype) && !t.is_variable) || !g.tensors.iter().any(|t| t.dtype == dtype::I8)
    {
        return None;
    }
    let mut filters = Vec::new();
    let mut concatenated = Vec::new();
    for o in &g.ops {
        let code = codes[o.opcode as usize];
        if FILTERED.contains(&code) && o.inputs.len() > 1 && o.inputs[1] >= 0 {
            filters.push(o.inputs[1] as usize);
        }
        if code == CONCATENATION {
            concatenated.extend(o.inputs.iter().filter(|&&i| i >= 0).map(|&i| i as usize));
        }
    }
    let mut note = String::new();
    let rescale = !concatenated.is_empty() && r.chance(0.5);
    if rescale {
        note.push_str(" (inputs rescaled)");
    }
    let def = &mut m.def;
    for (k, t) in def.subgraphs[0].tensors.iter_mut().enumerate() {
        // One scale per tensor (uint8 layers have no per-channel
        // quantization; a bias keeps input x its filter's first scale).
        if let Some(q) = &mut t.quant {
            q.scale.truncate(1);
            q.zero_point.truncate(1);
            q.axis = 0;
        }
        if t.dtype != dtype::I8 {
            continue;
        }
        t.dtype = dtype::U8;
        let constant = t.buffer != 0 && !def.buffers[t.buffer as usize].is_empty();
        let q = t.quant.get_or_insert_with(|| QuantDef { scale: vec![1.0], zero_point: vec![0], axis: 0 });
        if filters.contains(&k) && constant {
            let z = r.zero_point(0, 255);
            q.zero_point = vec![z];
            for b in def.buffers[t.buffer as usize].iter_mut() {
                *b = r.range(0, 255) as u8;
            }
            continue;
        }
        q.zero_point[0] += 128;
        if constant {
            def.buffers[t.buffer as usize].iter_mut().for_each(|b| *b ^= 0x80);
        } else if rescale && concatenated.contains(&k) && r.chance(0.7) {
            q.scale[0] *= r.log_uniform(0.25, 4.0);
            q.zero_point[0] = r.zero_point(0, 255);
        }
    }
    for (ty, _) in m.inputs.iter_mut().chain(m.outputs.iter_mut()) {
        if *ty == Ty::I8 {
            *ty = Ty::U8;
        }
    }
    m.litert = true;
    m.reference = None;
    Some(note)
}
