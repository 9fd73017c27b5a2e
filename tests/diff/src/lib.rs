//! Differential testing against TFLM: random single-op models over each
//! supported operator's options, dtypes and quantization, written with the
//! project's flatbuffer writer, with random inputs. `tests/differential.rs`
//! compiles them with `include_model!`, runs them, and compares with what
//! TFLM's Python interpreter gives (`tflm_reference.py`).
//!
//! A case is a pure function of `(seed, index)`: any disagreement is
//! reproduced from those two numbers, and `regressions.txt` keeps the ones
//! found so far in every run.

mod chains;
mod control;
mod ops;
mod variables;

use tinyaot_tests::writer::{ModelDef, OpDef, QuantDef, Scalar, SubgraphDef, TensorDef, dtype};

pub use ops::GENERATORS;

/// SplitMix64: small, fast, and the same on every machine.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// The generator for case `index` of run `seed`.
    pub fn for_case(seed: u64, index: u64) -> Self {
        let mut r = Rng(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        r.bits();
        r
    }

    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.bits() % (hi - lo + 1) as u64) as i64
    }

    /// Uniform in `lo..=hi`, as `usize`.
    pub fn size(&mut self, lo: usize, hi: usize) -> usize {
        self.range(lo as i64, hi as i64) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.bits() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Log-uniform in `[lo, hi)`: scales from tiny to large.
    pub fn log_uniform(&mut self, lo: f64, hi: f64) -> f32 {
        (lo.ln() + self.unit() * (hi.ln() - lo.ln())).exp() as f32
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.size(0, items.len() - 1)]
    }

    /// A zero point in `lo..=hi`: often an end of the range, often zero.
    pub fn zero_point(&mut self, lo: i64, hi: i64) -> i64 {
        match self.size(0, 5) {
            0 => lo,
            1 => hi,
            2 => 0,
            _ => self.range(lo, hi),
        }
    }
}

/// Element types a case may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// float32
    F32,
    /// int8
    I8,
    /// int16
    I16,
    /// int32
    I32,
    /// int64
    I64,
    /// bool
    Bool,
    /// float16 (constants only: weights the compiler widens)
    F16,
    /// uint8 (older quantized models' inputs and outputs)
    U8,
    /// uint32 (signal-library spectra)
    U32,
    /// uint64 (signal-library filter-bank sums)
    U64,
}

impl Ty {
    /// The writer's `TensorType` code.
    pub fn code(self) -> i8 {
        match self {
            Ty::F32 => dtype::F32,
            Ty::I8 => dtype::I8,
            Ty::I16 => dtype::I16,
            Ty::I32 => dtype::I32,
            Ty::I64 => dtype::I64,
            Ty::Bool => dtype::BOOL,
            Ty::F16 => dtype::F16,
            Ty::U8 => dtype::U8,
            Ty::U32 => 15,
            Ty::U64 => 12,
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Ty::I8 | Ty::Bool | Ty::U8 => 1,
            Ty::I16 | Ty::F16 => 2,
            Ty::F32 | Ty::I32 | Ty::U32 => 4,
            Ty::I64 | Ty::U64 => 8,
        }
    }

    /// Name, for case labels.
    pub fn name(self) -> &'static str {
        match self {
            Ty::F32 => "float32",
            Ty::I8 => "int8",
            Ty::I16 => "int16",
            Ty::I32 => "int32",
            Ty::I64 => "int64",
            Ty::Bool => "bool",
            Ty::F16 => "float16",
            Ty::U8 => "uint8",
            Ty::U32 => "uint32",
            Ty::U64 => "uint64",
        }
    }
}

/// A model under construction: tensors, constant buffers, one operator.
#[derive(Default)]
pub struct Builder {
    tensors: Vec<TensorDef>,
    buffers: Vec<Vec<u8>>,
    inputs: Vec<(i32, Ty)>,
    outputs: Vec<(i32, Ty)>,
    opcodes: Vec<i32>,
    /// Custom operator names, by index into `opcodes` (code 32).
    custom_names: Vec<(usize, String)>,
    ops: Vec<OpDef>,
}

impl Builder {
    /// An activation tensor (graph input, output or intermediate).
    pub fn tensor(&mut self, name: &str, shape: &[usize], ty: Ty, quant: Option<QuantDef>) -> i32 {
        let shape: Vec<i32> = shape.iter().map(|&d| d as i32).collect();
        self.tensors.push(TensorDef::new(name, &shape, ty.code(), quant));
        self.tensors.len() as i32 - 1
    }

    /// A tensor whose shape the file gives as a placeholder: its
    /// `shape_signature` is all -1 (known only at run time), as the TF
    /// converter writes tensors whose shape changes while a loop runs.
    pub fn dynamic(&mut self, name: &str, placeholder: &[usize], ty: Ty, quant: Option<QuantDef>) -> i32 {
        let t = self.tensor(name, placeholder, ty, quant);
        self.tensors[t as usize].signature = Some(vec![-1; placeholder.len()]);
        t
    }

    /// A graph input.
    pub fn input(&mut self, name: &str, shape: &[usize], ty: Ty, quant: Option<QuantDef>) -> i32 {
        let t = self.tensor(name, shape, ty, quant);
        self.inputs.push((t, ty));
        t
    }

    /// A variable tensor (state kept between invokes).
    pub fn variable(&mut self, name: &str, shape: &[usize], ty: Ty, quant: Option<QuantDef>) -> i32 {
        let t = self.tensor(name, shape, ty, quant);
        self.tensors[t as usize].is_variable = true;
        t
    }

    /// A `resource` tensor (VAR_HANDLE's output).
    pub fn resource(&mut self, name: &str) -> i32 {
        self.tensors.push(TensorDef::new(name, &[], RESOURCE, None));
        self.tensors.len() as i32 - 1
    }

    /// Shape of tensor `t`.
    pub fn shape_of(&self, t: i32) -> Vec<i32> {
        self.tensors[t as usize].shape.clone()
    }

    /// Marks an existing tensor as a graph output.
    pub fn mark_output(&mut self, t: i32, ty: Ty) {
        self.outputs.push((t, ty));
    }

    /// A graph output.
    pub fn output(&mut self, name: &str, shape: &[usize], ty: Ty, quant: Option<QuantDef>) -> i32 {
        let t = self.tensor(name, shape, ty, quant);
        self.outputs.push((t, ty));
        t
    }

    /// A constant tensor holding `bytes`.
    pub fn constant(&mut self, name: &str, shape: &[usize], ty: Ty, bytes: Vec<u8>, quant: Option<QuantDef>) -> i32 {
        self.buffers.push(bytes);
        let shape: Vec<i32> = shape.iter().map(|&d| d as i32).collect();
        self.tensors.push(TensorDef::constant(name, &shape, ty.code(), self.buffers.len() as u32, quant));
        self.tensors.len() as i32 - 1
    }

    /// A constant int32 tensor.
    pub fn ints(&mut self, name: &str, shape: &[usize], values: &[i32]) -> i32 {
        self.constant(name, shape, Ty::I32, values.iter().flat_map(|v| v.to_le_bytes()).collect(), None)
    }

    /// The model: one operator (`code`) from `inputs` to `outputs`.
    pub fn finish(
        mut self,
        code: i32,
        inputs: &[i32],
        outputs: &[i32],
        options: Option<(u8, Vec<(u16, Scalar)>)>,
    ) -> Model {
        self.op(code, inputs, outputs, options);
        self.finish_graph()
    }

    /// Appends an operator (graphs of several ops).
    pub fn op(&mut self, code: i32, inputs: &[i32], outputs: &[i32], options: Option<(u8, Vec<(u16, Scalar)>)>) {
        let opcode = match self.opcodes.iter().position(|&c| c == code && code != 32) {
            Some(i) => i,
            None => {
                self.opcodes.push(code);
                self.opcodes.len() - 1
            }
        } as u32;
        self.ops.push(OpDef {
            opcode,
            inputs: inputs.to_vec(),
            outputs: outputs.to_vec(),
            options,
            custom_options: None,
        });
    }

    /// Appends a custom operator `name` with FlexBuffer `options` (none
    /// when empty).
    pub fn custom_op(&mut self, name: &str, inputs: &[i32], outputs: &[i32], options: Vec<u8>) {
        self.op(32, inputs, outputs, None);
        let index = self.opcodes.len() - 1;
        self.custom_names.push((index, name.to_string()));
        if let Some(op) = self.ops.last_mut() {
            op.custom_options = (!options.is_empty()).then_some(options);
        }
    }

    /// The model of every operator appended so far.
    pub fn finish_graph(self) -> Model {
        let sub = SubgraphDef {
            tensors: self.tensors,
            inputs: self.inputs.iter().map(|i| i.0).collect(),
            outputs: self.outputs.iter().map(|o| o.0).collect(),
            ops: self.ops,
        };
        let input_sizes: Vec<(Ty, usize)> =
            self.inputs.iter().map(|&(t, ty)| (ty, elements(&sub.tensors[t as usize].shape))).collect();
        let outputs = self.outputs.iter().map(|&(t, ty)| (ty, elements(&sub.tensors[t as usize].shape))).collect();
        Model {
            def: {
                let mut def = ModelDef::new(&self.opcodes, sub, self.buffers);
                for (index, name) in self.custom_names {
                    def.opcodes[index].1 = Some(name);
                }
                def
            },
            inputs: input_sizes,
            outputs,
            non_negative: false,
            halves: false,
            narrow: false,
            ids_below: None,
            fixed: None,
            reference: None,
            litert: false,
            invokes: 1,
            reset_at: None,
            unwritten: None,
            nonzero: None,
        }
    }
}

/// TFLite's `RESOURCE` tensor type.
const RESOURCE: i8 = 13;

impl Model {
    /// Appends `sub` as a new subgraph (its `input`s and marked outputs are
    /// the subgraph's; none for a CALL_ONCE init subgraph); returns its
    /// index. Its constant buffers and operator codes join the model's.
    pub fn add_subgraph(&mut self, sub: Builder) -> i32 {
        let base = self.def.buffers.len() as u32 - 1;
        self.def.buffers.extend(sub.buffers);
        let mut tensors = sub.tensors;
        for t in tensors.iter_mut().filter(|t| t.buffer != 0) {
            t.buffer += base;
        }
        let mut ops = sub.ops;
        for op in &mut ops {
            let code = sub.opcodes[op.opcode as usize];
            let index = match self.def.opcodes.iter().position(|c| c.0 == code && code != 32) {
                Some(i) => i,
                None => {
                    self.def.opcodes.push((code, None));
                    self.def.opcodes.len() - 1
                }
            };
            op.opcode = index as u32;
        }
        let inputs = sub.inputs.iter().map(|i| i.0).collect();
        let outputs = sub.outputs.iter().map(|o| o.0).collect();
        self.def.subgraphs.push(SubgraphDef { tensors, inputs, outputs, ops });
        self.def.subgraphs.len() as i32 - 1
    }
}

fn elements(shape: &[i32]) -> usize {
    shape.iter().map(|&d| d.max(0) as usize).product()
}

/// A generated model with its graph inputs and outputs (type, elements).
pub struct Model {
    /// The flatbuffer description.
    pub def: ModelDef,
    /// Graph inputs.
    pub inputs: Vec<(Ty, usize)>,
    /// Graph outputs.
    pub outputs: Vec<(Ty, usize)>,
    /// Integer inputs drawn from `0..=max` only (where TFLM refuses
    /// negative values at run time: RSQRT).
    pub non_negative: bool,
    /// `invoke()`s in a row, each on its own inputs, state carried over
    /// (stateful ops: SVDF); 1 for the rest.
    pub invokes: usize,
    /// `reset()` before this invoke (0-based), for models with state.
    pub reset_at: Option<usize>,
    /// Output `.0` is not compared in the first `.1` invokes (see
    /// [`compare_written`]).
    pub unwritten: Option<(usize, usize)>,
    /// An int8 input (index, zero point) that must never hold its zero
    /// point: a quantized divisor (TFLM divides by zero otherwise).
    pub nonzero: Option<(usize, i8)>,
    /// float32 inputs on multiples of 1/2 (integers and ties: ROUND).
    pub halves: bool,
    /// int32 and int64 inputs in -3..=3 (equal values meet: comparisons).
    pub narrow: bool,
    /// An int32 input (index, n) of ids in `0..n` (EMBEDDING_LOOKUP's
    /// computed ids: TFLM fails on others).
    pub ids_below: Option<(usize, i32)>,
    /// The values of every int16/int32/int64 input, in input order,
    /// instead of random ones (shapes fed to BROADCAST_ARGS, samples at the
    /// int16 extremes).
    pub fixed: Option<Vec<i64>>,
    /// An equivalent model for TFLM to run (see [`Case::reference`]).
    pub reference: Option<ModelDef>,
    /// Answered by LiteRT's reference kernels instead of TFLM (see
    /// [`Case::litert`]).
    pub litert: bool,
}

/// One differential case.
pub struct Case {
    /// `c<index>_<op>_<dtype>`.
    pub name: String,
    /// Operator generator name.
    pub op: &'static str,
    /// Label: op, dtype, options drawn (for the report).
    pub label: String,
    /// The `.tflite` bytes.
    pub model: Vec<u8>,
    /// The model TFLM runs instead, when it cannot run `model` but runs an
    /// equivalent one (float16 weights: their float32 twin).
    pub reference: Option<Vec<u8>>,
    /// Input bytes, concatenated.
    pub input: Vec<u8>,
    /// Output types and element counts.
    pub outputs: Vec<(Ty, usize)>,
    /// `reset()` before this invoke (0-based; the case directory's
    /// `NAME.reset_at` tells both runners).
    pub reset_at: Option<usize>,
    /// Output `.0` is not compared in the first `.1` invokes.
    pub unwritten: Option<(usize, usize)>,
    /// A model TFLM does not run and LiteRT does (hybrid ops): answered by
    /// LiteRT's reference kernels (`ai-edge-litert`, `BUILTIN_REF`; the case
    /// directory's `NAME.litert` tells the reference script).
    pub litert: bool,
}

/// Case `index` of run `seed`: the operator is chosen by the index (every
/// generator in turn), everything else by the seeded generator.
pub fn case(seed: u64, index: u64) -> Case {
    case_of(GENERATORS[(index % GENERATORS.len() as u64) as usize].0, seed, index)
}

/// Case `index` of run `seed` drawn by the generator of `op` (regressions
/// name their generator, so adding generators does not move them).
pub fn case_of(op: &str, seed: u64, index: u64) -> Case {
    let (op, generate) = *GENERATORS.iter().find(|g| g.0 == op).unwrap_or_else(|| panic!("no generator {op}"));
    let mut rng = Rng::for_case(seed, index);
    let (model, label) = generate(&mut rng);
    let mut input: Vec<u8> = Vec::new();
    // Fixed values run on across invokes.
    let mut fixed = model.fixed.iter().flatten();
    for _ in 0..model.invokes {
        for (k, &(ty, n)) in model.inputs.iter().enumerate() {
            let mut values = random_values(&mut rng, ty, n);
            if model.fixed.is_some() {
                match ty {
                    Ty::I32 => values = fixed.by_ref().take(n).flat_map(|&v| (v as i32).to_le_bytes()).collect(),
                    Ty::I64 => values = fixed.by_ref().take(n).flat_map(|&v| v.to_le_bytes()).collect(),
                    Ty::I16 => values = fixed.by_ref().take(n).flat_map(|&v| (v as i16).to_le_bytes()).collect(),
                    Ty::U32 => values = fixed.by_ref().take(n).flat_map(|&v| (v as u32).to_le_bytes()).collect(),
                    _ => {}
                }
            }
            if let Some((_, zero)) = model.nonzero.filter(|&(at, _)| at == k) {
                for v in values.iter_mut().filter(|v| **v as i8 == zero) {
                    *v = zero.wrapping_add(1) as u8;
                }
            }
            if model.halves && ty == Ty::F32 {
                for v in values.chunks_exact_mut(4) {
                    let x = f32::from_le_bytes([v[0], v[1], v[2], v[3]]);
                    v.copy_from_slice(&((x * 4.0).round() / 2.0).to_le_bytes());
                }
            }
            if model.narrow {
                match ty {
                    Ty::I32 => values = (0..n).flat_map(|_| (rng.range(-3, 3) as i32).to_le_bytes()).collect(),
                    Ty::I64 => values = (0..n).flat_map(|_| rng.range(-3, 3).to_le_bytes()).collect(),
                    _ => {}
                }
            }
            if let Some((_, n)) = model.ids_below.filter(|&(at, _)| at == k) {
                values =
                    (0..values.len() / 4).flat_map(|_| (rng.range(0, n as i64 - 1) as i32).to_le_bytes()).collect();
            }
            if model.non_negative && ty == Ty::I16 {
                for pair in values.chunks_exact_mut(2) {
                    pair[1] &= 0x7F;
                }
            }
            input.extend(values);
        }
    }
    Case {
        name: format!("c{index}_{op}").to_lowercase(),
        op,
        label: format!("{op} {label}"),
        model: model.def.to_bytes(),
        reference: model.reference.as_ref().map(|r| r.to_bytes()),
        litert: model.litert,
        input,
        outputs: model.outputs,
        reset_at: model.reset_at,
        unwritten: model.unwritten,
    }
}

/// `n` random values of `ty` as little-endian bytes (floats in [-2, 2)).
pub fn random_values(rng: &mut Rng, ty: Ty, n: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|_| match ty {
            Ty::F32 => ((rng.unit() * 4.0 - 2.0) as f32).to_le_bytes().to_vec(),
            Ty::I8 | Ty::U8 => vec![rng.bits() as u8],
            Ty::I16 => (rng.bits() as i16).to_le_bytes().to_vec(),
            Ty::I32 => (rng.range(-1000, 1000) as i32).to_le_bytes().to_vec(),
            Ty::I64 => rng.range(-1000, 1000).to_le_bytes().to_vec(),
            Ty::Bool => vec![u8::from(rng.chance(0.5))],
            Ty::U32 => (rng.bits() as u32 >> rng.range(0, 31)).to_le_bytes().to_vec(),
            // Every magnitude, from a few bits to all 64.
            Ty::U64 => (rng.bits() >> rng.range(0, 63)).to_le_bytes().to_vec(),
            // Normal halves of magnitude 2^-6 to 2^3.
            Ty::F16 => {
                (((rng.bits() & 1) << 15) as u16 | ((rng.range(9, 18) as u16) << 10) | (rng.bits() & 0x3FF) as u16)
                    .to_le_bytes()
                    .to_vec()
            }
        })
        .collect()
}

/// Compares outputs: integers byte for byte, float32 within 1e-5 relative
/// (1e-6 absolute near zero), as the reference-vector tests do.
pub fn compare(outputs: &[(Ty, usize)], got: &[u8], want: &[u8]) -> Result<(), String> {
    compare_written(outputs, got, want, None)
}

/// [`compare`], except output `unwritten.0` in the first `unwritten.1`
/// invokes: bytes the op has not written yet, which TFLM leaves as its
/// arena held them (FRAMER's and STACKER's slots before their first
/// frame).
pub fn compare_written(
    outputs: &[(Ty, usize)],
    got: &[u8],
    want: &[u8],
    unwritten: Option<(usize, usize)>,
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} output bytes, TFLM gives {}", got.len(), want.len()));
    }
    // Several invokes give one set of outputs each.
    let per: usize = outputs.iter().map(|&(ty, n)| n * ty.size()).sum::<usize>().max(1);
    for (run, (g, w)) in got.chunks(per).zip(want.chunks(per)).enumerate() {
        let (mut g, mut w) = (g.to_vec(), w.to_vec());
        if let Some((k, _)) = unwritten.filter(|&(_, invokes)| run < invokes) {
            let start: usize = outputs[..k].iter().map(|&(ty, n)| n * ty.size()).sum();
            let len = outputs[k].1 * outputs[k].0.size();
            g[start..start + len].fill(0);
            w[start..start + len].fill(0);
        }
        compare_one(outputs, &g, &w).map_err(|e| if got.len() > per { format!("invoke {run}, {e}") } else { e })?;
    }
    Ok(())
}

fn compare_one(outputs: &[(Ty, usize)], got: &[u8], want: &[u8]) -> Result<(), String> {
    let mut off = 0;
    for (k, &(ty, n)) in outputs.iter().enumerate() {
        let len = n * ty.size();
        let (g, w) = (&got[off..off + len], &want[off..off + len]);
        off += len;
        if ty == Ty::F32 {
            for (i, (a, b)) in g.chunks_exact(4).zip(w.chunks_exact(4)).enumerate() {
                let a = f32::from_le_bytes(a.try_into().unwrap());
                let b = f32::from_le_bytes(b.try_into().unwrap());
                let same_nan = a.is_nan() && b.is_nan();
                let close = a == b || (a - b).abs() <= 1e-5 * b.abs().max(a.abs()) + 1e-6;
                if !same_nan && !close {
                    return Err(format!("output {k} element {i}: {a} vs TFLM {b}"));
                }
            }
        } else if g != w {
            let size = ty.size();
            let diffs = g.chunks(size).zip(w.chunks(size)).filter(|(a, b)| a != b).count();
            let i = g.chunks(size).zip(w.chunks(size)).position(|(a, b)| a != b).unwrap_or(0);
            let value = |b: &[u8]| match ty {
                Ty::I8 => b[0] as i8 as i64,
                Ty::Bool | Ty::U8 => b[0] as i64,
                Ty::I16 => i16::from_le_bytes([b[0], b[1]]) as i64,
                Ty::I32 => i32::from_le_bytes(b.try_into().unwrap()) as i64,
                Ty::U32 => u32::from_le_bytes(b.try_into().unwrap()) as i64,
                _ => i64::from_le_bytes(b.try_into().unwrap()),
            };
            return Err(format!(
                "output {k} element {i}: {} vs TFLM {} ({diffs} of {n} elements differ)",
                value(&g[i * size..(i + 1) * size]),
                value(&w[i * size..(i + 1) * size])
            ));
        }
    }
    Ok(())
}

/// The regression cases kept in `regressions.txt`: `(op, seed, index)`.
pub fn regressions() -> Vec<(String, u64, u64)> {
    include_str!("../regressions.txt")
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let op = it.next()?.to_string();
            Some((op, it.next()?.parse().ok()?, it.next()?.parse().ok()?))
        })
        .collect()
}

/// The shared audio front ends (TFLM's audio preprocessor models, in
/// `../shared/models/` when that folder exists) over `frames` consecutive
/// invokes of 30 ms of synthetic audio each (tones and noise whose loudness
/// changes from frame to frame), so their state (the noise estimate)
/// carries over as in a stream. Empty without the folder.
pub fn shared_streams(dir: &std::path::Path, seed: u64, frames: usize) -> Vec<Case> {
    let mut cases = Vec::new();
    for (name, out) in [("audio_preprocessor_int8", Ty::I8), ("audio_preprocessor_float", Ty::F32)] {
        let Ok(model) = std::fs::read(dir.join(format!("{name}.tflite"))) else { continue };
        let mut rng = Rng::for_case(seed, cases.len() as u64);
        let mut input = Vec::new();
        for f in 0..frames {
            let loudness = 1i64 << rng.range(2, 14);
            let pitch = rng.unit() * 0.4;
            for t in 0..480 {
                let tone = (loudness as f64 * (pitch * t as f64 + f as f64).sin()) as i64;
                let noise = rng.range(-loudness / 4, loudness / 4);
                input.extend(((tone + noise).clamp(-32768, 32767) as i16).to_le_bytes());
            }
        }
        cases.push(Case {
            name: format!("stream_{name}"),
            op: "SHARED_AUDIO_STREAM",
            label: format!("{name} over {frames} frames"),
            model,
            reference: None,
            litert: false,
            input,
            outputs: vec![(out, 40)],
            reset_at: None,
            unwritten: None,
        });
    }
    cases
}
