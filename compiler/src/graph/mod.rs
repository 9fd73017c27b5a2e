//! The graph IR: tensors (shape, dtype, quantization, constant data) and
//! nodes (builtin code, tensor indices, options), read from subgraph 0 and
//! the subgraphs it calls, with every index and size checked. Operator
//! semantics live in `ops/`; the graph stage names no operator but the
//! control flow it inlines.
//!
//! - this file: the IR and the entry point ([`Graph::read_with`]);
//! - `read`: one tensor or node from the file's tables;
//! - `inline`: subgraphs inlined under their CALL_ONCE, IF or WHILE.

mod inline;
mod read;

use crate::diag::Error;
use crate::tflite::{self, Options};
use inline::{Reader, copies};
use std::borrow::Cow;

/// Largest tensor tinyaot accepts, in bytes. No microcontroller has more
/// memory; anything larger is a corrupt or hostile file.
pub const MAX_TENSOR_BYTES: usize = 1 << 31;
/// Largest rank accepted.
pub const MAX_RANK: usize = 6;
/// Most operators accepted: far beyond any microcontroller model, and a
/// bound on compile time for hostile files.
pub const MAX_OPS: usize = 4096;
/// Most tensors accepted.
pub const MAX_TENSORS: usize = 16384;
/// A pass an operator registers over the read graph (a fold of its
/// constants, a flag on its nodes): `lowering::registry::GRAPH_PASSES`.
pub type Pass = for<'x> fn(&mut Graph<'x>) -> Result<(), Error>;

/// Deepest nesting of called subgraphs accepted (a bound on the reader's
/// recursion for hostile files; real models nest a few levels).
pub const MAX_NESTING: usize = 64;

/// Element type of a tensor (TFLite `TensorType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DType {
    /// float32
    F32,
    /// float16
    F16,
    /// int32
    I32,
    /// uint8
    U8,
    /// int64
    I64,
    /// bool
    Bool,
    /// int16
    I16,
    /// int8
    I8,
    /// uint32 (signal-library spectra)
    U32,
    /// uint64 (signal-library filter-bank sums)
    U64,
    /// Any other `TensorType` code.
    Other(i8),
}

impl DType {
    fn from_code(code: i8) -> DType {
        match code {
            0 => DType::F32,
            1 => DType::F16,
            2 => DType::I32,
            3 => DType::U8,
            4 => DType::I64,
            6 => DType::Bool,
            7 => DType::I16,
            9 => DType::I8,
            12 => DType::U64,
            15 => DType::U32,
            c => DType::Other(c),
        }
    }

    /// Lower-case name as users know it.
    pub fn name(self) -> String {
        match self {
            DType::F32 => "float32".into(),
            DType::F16 => "float16".into(),
            DType::I32 => "int32".into(),
            DType::U8 => "uint8".into(),
            DType::I64 => "int64".into(),
            DType::Bool => "bool".into(),
            DType::I16 => "int16".into(),
            DType::I8 => "int8".into(),
            DType::U32 => "uint32".into(),
            DType::U64 => "uint64".into(),
            DType::Other(13) => "resource".into(),
            DType::Other(c) => format!("TensorType {c}"),
        }
    }

    /// Bytes per element, for types tinyaot can store.
    pub fn size(self) -> Option<usize> {
        match self {
            DType::F32 | DType::I32 | DType::U32 => Some(4),
            DType::F16 | DType::I16 => Some(2),
            DType::U8 | DType::I8 | DType::Bool => Some(1),
            DType::I64 | DType::U64 => Some(8),
            DType::Other(_) => None,
        }
    }

    /// The Rust element type the generated code uses. Kernels see a bool
    /// as its byte (0 or 1); only the model's I/O accessors say `bool`.
    pub fn rust(self) -> Option<&'static str> {
        match self {
            DType::Bool => Some("u8"),
            DType::F32 => Some("f32"),
            DType::I32 => Some("i32"),
            DType::U8 => Some("u8"),
            DType::I16 => Some("i16"),
            DType::I8 => Some("i8"),
            DType::I64 => Some("i64"),
            DType::U32 => Some("u32"),
            DType::U64 => Some("u64"),
            _ => None,
        }
    }
}

/// Affine quantization parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Quant {
    /// One scale, or one per channel along `axis`.
    pub scales: Vec<f32>,
    /// Zero points (same length as `scales`).
    pub zero_points: Vec<i64>,
    /// The channel axis for per-channel parameters, as the file gives it
    /// (unchecked, like TFLM: `usize::MAX` for a negative one).
    pub axis: usize,
}

impl Quant {
    /// The per-tensor scale (the first one).
    pub fn scale(&self) -> f32 {
        self.scales[0]
    }
    /// The per-tensor zero point.
    pub fn zero_point(&self) -> i32 {
        self.zero_points[0] as i32
    }
}

/// A tensor of the graph.
#[derive(Clone, Debug)]
pub struct Tensor<'a> {
    /// Index in the subgraph.
    pub index: usize,
    /// Name from the model ("tensor N" if it has none).
    pub name: String,
    /// Shape (empty for a scalar).
    pub shape: Vec<usize>,
    /// Element type.
    pub dtype: DType,
    /// Quantization, when present.
    pub quant: Option<Quant>,
    /// Constant contents, little-endian, for tensors backed by a buffer.
    /// (Borrowed from the file; owned where the compiler folded it, as a
    /// DEQUANTIZE of float16 constants.)
    pub data: Option<Cow<'a, [u8]>>,
    /// A variable (state kept between invocations): stored outside the
    /// arena, never constant.
    pub is_variable: bool,
    /// Constant int4 data in the model (two values per byte), unpacked into
    /// `data` as int8; kernels that read the nibbles keep the packed form.
    pub int4: bool,
    /// Number of elements.
    pub elements: usize,
    /// Size in bytes (0 when the dtype has no storage size).
    pub bytes: usize,
}

impl Tensor<'_> {
    /// A tensor no op reads or writes and whose description TFLM would never
    /// look at (an LSTM's intermediates): kept as an empty placeholder so
    /// tensor indices stay as in the file.
    fn unused(index: usize, name: String) -> Self {
        Tensor {
            index,
            name,
            shape: Vec::new(),
            dtype: DType::Other(-1),
            quant: None,
            data: None,
            is_variable: false,
            int4: false,
            elements: 0,
            bytes: 0,
        }
    }

    /// `float32[1, 49, 10, 1]`.
    pub fn describe(&self) -> String {
        format!("{}{:?}", self.dtype.name(), self.shape)
    }

    /// The per-tensor quantization, or an error naming the tensor.
    pub fn per_tensor_quant(&self) -> Result<(f32, i32), String> {
        match &self.quant {
            Some(q) if q.scales.len() == 1 => Ok((q.scale(), q.zero_point())),
            Some(_) => Err(format!(
                "tensor '{}' must have one (per-tensor) scale, it has {}",
                self.name,
                self.quant.as_ref().map_or(0, |q| q.scales.len())
            )),
            None => Err(format!("tensor '{}' ({}) has no quantization parameters", self.name, self.describe())),
        }
    }
}

/// One operator of the graph, before its semantics are checked.
#[derive(Clone)]
pub struct Node<'a> {
    /// Index in its subgraph's operator list (as the model file numbers it).
    pub index: usize,
    /// The subgraph the operator belongs to (0: the model itself).
    pub subgraph: usize,
    /// The control-flow ops this node runs under, outermost first: for each,
    /// its position in [`Graph::nodes`] and which of its subgraphs holds
    /// the node (CALL_ONCE: 0, its init; IF: 0 then, 1 else; WHILE: 0 cond,
    /// 1 body). Empty for the model's own operators.
    pub scopes: Vec<(usize, usize)>,
    /// Builtin operator code (32 = CUSTOM).
    pub code: i32,
    /// Operator name (`CONV_2D`, or the custom op's name).
    pub name: String,
    /// Operator version.
    pub version: i32,
    /// Input tensor indices; `None` for an omitted optional input.
    pub inputs: Vec<Option<usize>>,
    /// Output tensor indices.
    pub outputs: Vec<usize>,
    /// `BuiltinOptions` union tag.
    pub options_type: u8,
    /// `BuiltinOptions` table.
    pub options: Option<Options<'a>>,
    /// A custom operator's options (a FlexBuffer: `tflite::flexbuffer`).
    pub custom_options: Option<&'a [u8]>,
    /// The op must run where the model puts it: state passes outside the
    /// tensors' data flow (a resource variable's read or assignment), or it
    /// may stop the invoke (CIRCULAR_BUFFER). Set by the op's graph pass.
    pub fixed_order: bool,
    /// The op computes on uint8 tensors the uint8 pass turned into int8
    /// (`lowering::uint8`): where LiteRT's uint8 arithmetic differs from
    /// the int8 one, the op follows the uint8 one.
    pub from_uint8: bool,
}

impl Node<'_> {
    /// How messages name the node: `op 3 (ADD)`, or `subgraph 1 op 0
    /// (ASSIGN_VARIABLE)` for an operator of a called subgraph.
    pub fn label(&self) -> String {
        if self.code < 0 {
            return format!("the {}", self.name);
        }
        match self.subgraph {
            0 => format!("op {} ({})", self.index, self.name),
            s => format!("subgraph {s} op {} ({})", self.index, self.name),
        }
    }
}

/// A resource variable (VAR_HANDLE's `container`/`shared_name`), resolved
/// at compile time to a variable tensor in the state memory.
#[derive(Clone, Debug)]
pub struct Resource {
    /// `shared_name`.
    pub name: String,
    /// The variable tensor that holds its bytes (appended to the tensors).
    pub tensor: usize,
    /// The byte `reset()` fills it with: TFLM's default value, the first
    /// assigned tensor's zero point (as int8) when it is quantized, else 0.
    pub fill: u8,
}

/// A model's operators, its called subgraphs inlined: the model is
/// subgraph 0; each CALL_ONCE is followed by its init subgraph's operators
/// and tensors (planned in the same arena, alive only while it runs).
pub struct Graph<'a> {
    /// All tensors: subgraph 0's at their file indices, then each inlined
    /// subgraph's, then one per resource variable.
    pub tensors: Vec<Tensor<'a>>,
    /// Operators in execution order.
    pub nodes: Vec<Node<'a>>,
    /// Graph input tensor indices.
    pub inputs: Vec<usize>,
    /// Graph output tensor indices.
    pub outputs: Vec<usize>,
    /// The resource variables the operators read and assign.
    pub resources: Vec<Resource>,
    /// Whether a constant passed into a subgraph became its input's data
    /// (TFLM copies it into the arena instead).
    pub folded_operands: bool,
    /// Ops whose uint8 tensors stay uint8 (`lowering::uint8`), by
    /// (subgraph, op index), and why: their errors say it.
    pub uint8_kept: Vec<((usize, usize), String)>,
}

/// Builtin codes the graph reader knows, and the codes of the operators it
/// adds around an inlined subgraph (negative: no builtin has them).
pub mod codes {
    /// `IF`.
    pub const IF: i32 = 118;
    /// `WHILE`.
    pub const WHILE: i32 = 119;
    /// Copies the calling op's tensors into a subgraph's inputs (TFLM's
    /// `CopyOpInputsToSubgraphInputs`): input `i` to output `i`.
    pub const SUBGRAPH_INPUTS: i32 = -1;
    /// Copies a subgraph's outputs into the calling op's outputs.
    pub const SUBGRAPH_OUTPUTS: i32 = -2;
    /// WHILE's test: leaves the loop when input 0 (the condition
    /// subgraph's output) is false, else copies inputs `1..` into the body's
    /// inputs.
    pub const LOOP_TEST: i32 = -3;
    /// Copies a variable that is a graph output into the arena tensor the
    /// output accessors read (after the model's last op).
    pub const OUTPUT_COPY: i32 = -4;
    /// `CALL_ONCE`.
    pub const CALL_ONCE: i32 = 129;
}

impl<'a> Graph<'a> {
    /// Reads a model as the file has it: subgraph 0 and, inlined, the
    /// subgraphs it calls, without the operators' graph passes
    /// (`lowering::registry::read_graph` runs those).
    pub fn read(model: &tflite::Model<'a>) -> Result<Graph<'a>, Error> {
        Graph::read_with(model, true, &[])
    }

    /// [`Graph::read`], then `passes` in order (the operators' folds and
    /// flags, registered in `lowering::registry::GRAPH_PASSES`); with
    /// `fold_constant_operands`, a constant a control-flow op passes into a
    /// subgraph becomes that subgraph input's constant data instead of a
    /// copy into the arena (the caller retries without when an op there
    /// wants the operand in memory).
    pub fn read_with(
        model: &tflite::Model<'a>,
        fold_constant_operands: bool,
        passes: &[Pass],
    ) -> Result<Graph<'a>, Error> {
        let subgraphs = model.subgraphs()?.ok_or_else(|| Error::model("the model has no subgraph"))?;
        if subgraphs.is_empty() {
            return Err(Error::model("the model has no subgraph"));
        }
        let mut graph = Graph {
            tensors: Vec::new(),
            nodes: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            resources: Vec::new(),
            folded_operands: false,
            uint8_kept: Vec::new(),
        };
        let mut reader = Reader::new(&subgraphs, model, fold_constant_operands)?;
        let (inputs, outputs) = reader.inline(&mut graph, 0, &[], None, None)?;
        (graph.inputs, graph.outputs) = (inputs, outputs);
        if graph.inputs.is_empty() {
            return Err(Error::model("the graph has no inputs"));
        }
        if graph.outputs.is_empty() {
            return Err(Error::model("the graph has no outputs"));
        }
        for pass in passes {
            pass(&mut graph)?;
        }
        graph.copy_variable_outputs();
        Ok(graph)
    }

    /// A variable that is a graph output (TFLM hands out the variable's
    /// bytes) is copied, after the last op, into an arena tensor that takes
    /// its place among the outputs: the accessors read the arena.
    fn copy_variable_outputs(&mut self) {
        for k in 0..self.outputs.len() {
            let v = self.outputs[k];
            if !self.tensors[v].is_variable {
                continue;
            }
            let mut copy = self.tensors[v].clone();
            (copy.index, copy.is_variable, copy.data) = (self.tensors.len(), false, None);
            self.outputs[k] = copy.index;
            self.nodes.push(copies(0, &[], codes::OUTPUT_COPY, vec![Some(v)], vec![copy.index]));
            self.tensors.push(copy);
        }
    }

    /// Removes the nodes marked in `gone` (a pass's rewrite made them
    /// unneeded), keeping every other node's scopes pointing at its
    /// control-flow ops. A control-flow op itself is never removed.
    pub fn remove_nodes(&mut self, gone: &[bool]) {
        let mut position = Vec::with_capacity(self.nodes.len());
        let mut next = 0;
        for &g in gone {
            position.push(next);
            next += usize::from(!g);
        }
        let mut k = 0;
        self.nodes.retain(|_| {
            k += 1;
            !gone[k - 1]
        });
        for node in &mut self.nodes {
            node.scopes.iter_mut().for_each(|(p, _)| *p = position[*p]);
        }
    }

    /// Whether the operators must run in the model's order: an op says so
    /// ([`Node::fixed_order`]), or control flow runs subgraphs (a
    /// CALL_ONCE's init, IF's branches, WHILE's loop).
    pub fn order_is_fixed(&self) -> bool {
        self.nodes.iter().any(|n| {
            !n.scopes.is_empty()
                || n.fixed_order
                || n.code < 0
                || matches!(n.code, codes::CALL_ONCE | codes::IF | codes::WHILE)
        })
    }
}
