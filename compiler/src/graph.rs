//! The graph IR: tensors (shape, dtype, quantization, constant data) and
//! nodes (builtin code, tensor indices, options), read from subgraph 0 and
//! the subgraphs it calls, with every index and size checked. Operator semantics live in `ops/`.

use crate::diag::Error;
use crate::tflite::{self, Options, names};
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
}

fn tensor_index(raw: i32, count: usize, what: &str) -> Result<usize, Error> {
    usize::try_from(raw)
        .ok()
        .filter(|&i| i < count)
        .ok_or_else(|| Error::model(format!("{what} refers to tensor {raw}, but the graph has {count} tensors")))
}

/// Builtin codes the graph reader knows, and the codes of the operators it
/// adds around an inlined subgraph (negative: no builtin has them).
pub mod codes {
    /// `DEQUANTIZE`.
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

/// Reads subgraphs into one [`Graph`], inlining CALL_ONCE's callees.
struct Reader<'m, 'a> {
    subgraphs: &'m tflite::List<'a, tflite::SubGraph<'a>>,
    codes: Option<CodeVec<'a>>,
    buffers: Option<BufferVec<'a>>,
    /// Subgraphs being read (to refuse recursion).
    stack: Vec<usize>,
    /// Whether constants passed into a subgraph become its inputs' data.
    fold_constant_operands: bool,
    /// Labels of the control-flow ops whose subgraphs are being read.
    callers: Vec<String>,
}

/// An operator the reader adds around an inlined subgraph: its code and
/// the calling side's tensors (the sources of the inputs' copies, or the
/// destinations of the outputs').
type Copies = Option<(i32, Vec<usize>)>;

impl<'a> Reader<'_, 'a> {
    /// Appends subgraph `s`'s tensors and operators to `graph`, under the
    /// control-flow `scopes`; `enter` copies into its inputs first, `leave`
    /// copies its outputs out after. Returns its inputs and outputs (as
    /// graph tensor indices).
    fn inline(
        &mut self,
        graph: &mut Graph<'a>,
        s: usize,
        scopes: &[(usize, usize)],
        enter: Copies,
        leave: Copies,
    ) -> Result<(Vec<usize>, Vec<usize>), Error> {
        let sg = self.subgraphs.get(s)?;
        let what = if s == 0 { "the graph".to_string() } else { format!("subgraph {s}") };
        let raw_tensors = sg.tensors()?.ok_or_else(|| Error::model(format!("{what} has no tensors")))?;
        let count = raw_tensors.len();
        if graph.tensors.len() + count > MAX_TENSORS {
            return Err(Error::model(format!(
                "the model has more than {MAX_TENSORS} tensors (with its called subgraphs); tinyaot accepts up to {MAX_TENSORS}"
            )));
        }
        let op_count = sg.operators()?.map_or(0, |o| o.len());
        if graph.nodes.len() + op_count > MAX_OPS {
            return Err(Error::model(format!(
                "the model has more than {MAX_OPS} operators (with its called subgraphs); tinyaot accepts up to {MAX_OPS}"
            )));
        }
        let mut nodes = Vec::new();
        if let Some(ops) = sg.operators()? {
            for (index, op) in ops.iter().enumerate() {
                let mut node = read_node(index, &op?, self.codes.as_ref(), count)?;
                node.subgraph = s;
                nodes.push(node);
            }
        }
        let ends = |v: Option<tflite::flat::Vector<'a, i32>>, role: &str| -> Result<Vec<usize>, Error> {
            v.map(|v| v.iter().map(|i| tensor_index(i, count, role)).collect::<Result<Vec<_>, _>>())
                .transpose()
                .map(Option::unwrap_or_default)
        };
        let inputs = ends(sg.inputs()?, &format!("an input of {what}"))?;
        let outputs = ends(sg.outputs()?, &format!("an output of {what}"))?;

        // Like TFLM's allocator, look only at tensors the graph reads or
        // writes: LSTM intermediates (quantization notes with shape [0]) and
        // tensors no op touches are never allocated, whatever they hold.
        let mut used = vec![false; count];
        for &t in inputs.iter().chain(&outputs) {
            used[t] = true;
        }
        for node in &nodes {
            for &t in node.inputs.iter().flatten().chain(&node.outputs) {
                used[t] = true;
            }
        }
        let base = graph.tensors.len();
        for (index, t) in raw_tensors.iter().enumerate() {
            let t = t?;
            // A -1 dimension TFLM refuses on any tensor (it sizes them all).
            let dynamic = t.shape()?.is_some_and(|s| s.iter().any(|d| d < 0));
            let name = match (t.name()?, s) {
                ("", 0) => format!("tensor {index}"),
                ("", s) => format!("subgraph {s} tensor {index}"),
                (n, _) => n.to_string(),
            };
            let tensor = read_tensor(base + index, name.clone(), &t, self.buffers.as_ref());
            graph.tensors.push(match tensor {
                Ok(tensor) => tensor,
                Err(_) if !used[index] && !dynamic => Tensor::unused(base + index, name),
                Err(e) => match self.callers.last() {
                    Some(caller) => return Err(Error::model(format!("subgraph {s} (run by {caller}): {e}"))),
                    None => return Err(e),
                },
            });
        }
        let inputs: Vec<usize> = inputs.iter().map(|&t| base + t).collect();
        let outputs: Vec<usize> = outputs.iter().map(|&t| base + t).collect();
        if let Some((code, sources)) = enter {
            // A constant passed in (tf.cond hands the branches their weights
            // this way) becomes the subgraph input's own constant data: no
            // copy, no arena bytes. The other operands are copied.
            let offset = usize::from(code == codes::LOOP_TEST);
            let written = |t: usize| nodes.iter().any(|n| n.outputs.iter().any(|&o| base + o == t));
            let mut kept_sources: Vec<Option<usize>> = sources.iter().map(|&t| Some(t)).collect();
            let mut kept_inputs = inputs.clone();
            // With a count mismatch (the caller reports it) nothing is folded.
            if self.fold_constant_operands && sources.len() == inputs.len() + offset {
                kept_sources.truncate(offset);
                kept_inputs.clear();
                for (&source, &input) in sources[offset..].iter().zip(&inputs) {
                    match graph.tensors[source].data.clone() {
                        Some(data) if graph.tensors[source].bytes == graph.tensors[input].bytes && !written(input) => {
                            graph.tensors[input].data = Some(data);
                            graph.folded_operands = true;
                        }
                        _ => {
                            kept_sources.push(Some(source));
                            kept_inputs.push(input);
                        }
                    }
                }
            }
            graph.nodes.push(copies(s, scopes, code, kept_sources, kept_inputs));
        }
        for mut node in nodes {
            for t in node.inputs.iter_mut().flatten().chain(&mut node.outputs) {
                *t += base;
            }
            node.scopes = scopes.to_vec();
            let position = graph.nodes.len();
            let calls = self.callees(&node)?;
            let original = (node.inputs.clone(), node.outputs.clone());
            // The copies in and out of IF's branches replace its operands.
            if node.code == codes::IF {
                node.inputs.truncate(1);
                node.outputs.clear();
            }
            graph.nodes.push(node);
            let scope = |part: usize| {
                let mut chain = scopes.to_vec();
                chain.push((position, part));
                chain
            };
            for &callee in &calls {
                self.stack.push(callee);
            }
            self.callers.push(graph.nodes[position].label());
            match (graph.nodes[position].code, calls.as_slice()) {
                (codes::CALL_ONCE, &[init]) => {
                    self.inline(graph, init, &scope(0), None, None)?;
                }
                (codes::IF, &[then, otherwise]) => {
                    let label = graph.nodes[position].label();
                    let xs: Vec<usize> = original
                        .0
                        .iter()
                        .skip(1)
                        .map(|t| {
                            t.ok_or_else(|| {
                                Error::model(format!("{label}: an omitted input cannot be passed to a subgraph"))
                            })
                        })
                        .collect::<Result<_, _>>()?;
                    let ys = original.1;
                    for (part, branch) in [then, otherwise].into_iter().enumerate() {
                        let (ins, outs) = self.inline(
                            graph,
                            branch,
                            &scope(part),
                            Some((codes::SUBGRAPH_INPUTS, xs.clone())),
                            Some((codes::SUBGRAPH_OUTPUTS, ys.clone())),
                        )?;
                        arity(&label, branch, (xs.len(), ins.len()), (ys.len(), outs.len()))?;
                    }
                }
                (codes::WHILE, &[cond, body]) => {
                    let label = graph.nodes[position].label();
                    let (xs, ys) = (original.0.len(), original.1);
                    if xs != ys.len() {
                        return Err(Error::model(format!(
                            "{label}: has {xs} inputs and {} outputs; WHILE's must be equal",
                            ys.len()
                        )));
                    }
                    let (ins, test) =
                        self.inline(graph, cond, &scope(0), Some((codes::SUBGRAPH_INPUTS, ys.clone())), None)?;
                    arity(&label, cond, (ys.len(), ins.len()), (1, test.len().min(1)))?;
                    let mut sources = vec![test[0]];
                    sources.extend(&ys);
                    let (ins, outs) = self.inline(
                        graph,
                        body,
                        &scope(1),
                        Some((codes::LOOP_TEST, sources)),
                        Some((codes::SUBGRAPH_OUTPUTS, ys.clone())),
                    )?;
                    arity(&label, body, (ys.len(), ins.len()), (ys.len(), outs.len()))?;
                }
                _ => {}
            }
            for _ in &calls {
                self.stack.pop();
            }
            self.callers.pop();
        }
        if let Some((code, destinations)) = leave {
            graph.nodes.push(copies(s, scopes, code, outputs.iter().map(|&t| Some(t)).collect(), destinations));
        }
        Ok((inputs, outputs))
    }

    /// The subgraphs a control-flow op calls (none for other ops), checked.
    fn callees(&self, node: &Node<'a>) -> Result<Vec<usize>, Error> {
        use crate::tflite::fields::{call_once, if_, while_};
        let (tag, fields): (u8, &[u16]) = match node.code {
            codes::CALL_ONCE => (call_once::TAG, &[call_once::INIT_SUBGRAPH_INDEX]),
            codes::IF => (if_::TAG, &[if_::THEN_SUBGRAPH_INDEX, if_::ELSE_SUBGRAPH_INDEX]),
            codes::WHILE => (while_::TAG, &[while_::COND_SUBGRAPH_INDEX, while_::BODY_SUBGRAPH_INDEX]),
            _ => return Ok(Vec::new()),
        };
        let err = |msg: String| Error::model(format!("{}: {msg}", node.label()));
        let options = node.options.filter(|_| node.options_type == tag);
        let mut callees = Vec::new();
        for &field in fields {
            let raw = match options {
                Some(o) => o.scalar::<i32>(field, 0)?,
                None => 0,
            };
            let callee = usize::try_from(raw).ok().filter(|&c| c < self.subgraphs.len()).ok_or_else(|| {
                err(format!("subgraph {raw} does not exist (the model has {})", self.subgraphs.len()))
            })?;
            if self.stack.len() >= MAX_NESTING {
                return Err(err(format!(
                    "control flow nested more than {MAX_NESTING} subgraphs deep is not supported"
                )));
            }
            if callee == node.subgraph || self.stack.contains(&callee) {
                return Err(err(format!(
                    "calls subgraph {callee}, which is already running (recursion is not supported)"
                )));
            }
            callees.push(callee);
        }
        Ok(callees)
    }
}

/// Checks that a called subgraph takes as many inputs and gives as many
/// outputs as its caller passes and expects: `(caller's, subgraph's)`.
fn arity(caller: &str, subgraph: usize, inputs: (usize, usize), outputs: (usize, usize)) -> Result<(), Error> {
    if inputs.0 != inputs.1 || outputs.0 != outputs.1 {
        return Err(Error::model(format!(
            "{caller}: passes {} inputs and expects {} outputs, but subgraph {subgraph} has {} and {}",
            inputs.0, outputs.0, inputs.1, outputs.1
        )));
    }
    Ok(())
}

/// An operator the reader adds: copies `inputs[i]` to `outputs[i]` (after
/// LOOP_TEST's condition), named after the subgraph it enters or leaves.
fn copies<'a>(
    subgraph: usize,
    scopes: &[(usize, usize)],
    code: i32,
    inputs: Vec<Option<usize>>,
    outputs: Vec<usize>,
) -> Node<'a> {
    let name = match code {
        codes::SUBGRAPH_INPUTS => "subgraph inputs",
        codes::SUBGRAPH_OUTPUTS => "subgraph outputs",
        codes::OUTPUT_COPY => "graph output copy",
        _ => "loop test",
    };
    Node {
        index: 0,
        subgraph,
        scopes: scopes.to_vec(),
        code,
        name: format!("{name} of subgraph {subgraph}"),
        version: 1,
        inputs,
        outputs,
        options_type: 0,
        options: None,
        custom_options: None,
        fixed_order: false,
    }
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
        };
        let mut reader = Reader {
            subgraphs: &subgraphs,
            codes: model.operator_codes()?,
            buffers: model.buffers()?,
            stack: vec![0],
            fold_constant_operands,
            callers: Vec::new(),
        };
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

/// TFLite's `INT4` tensor type.
const INT4: i8 = 17;

/// `n` int4 values packed two per byte, low nibble first (TFLM's
/// `UnpackDenseInt4IntoInt8`), as int8 bytes.
fn unpack_int4(packed: &[u8], n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| {
            let byte = packed[i / 2] as i8;
            let value = if i % 2 == 0 { (byte << 4) >> 4 } else { byte >> 4 };
            value as u8
        })
        .collect()
}

type CodeVec<'a> = tflite::List<'a, tflite::OperatorCode<'a>>;
type BufferVec<'a> = tflite::List<'a, tflite::Buffer<'a>>;

fn read_node<'a>(
    index: usize,
    op: &tflite::Operator<'a>,
    codes: Option<&CodeVec<'a>>,
    count: usize,
) -> Result<Node<'a>, Error> {
    let opcode_index = op.opcode_index()? as usize;
    let code = codes
        .filter(|c| opcode_index < c.len())
        .map(|c| c.get(opcode_index))
        .ok_or_else(|| Error::model(format!("op {index}: operator code index {opcode_index} is out of range")))??;
    let builtin = code.code()?;
    let name = if builtin == 32 {
        format!("CUSTOM:{}", code.custom_code()?.unwrap_or("?"))
    } else {
        names::builtin_name(builtin).map_or_else(|| format!("builtin operator {builtin}"), str::to_string)
    };
    let what = format!("op {index} ({name})");
    let inputs = op
        .inputs()?
        .map(|v| {
            v.iter()
                .map(|i| if i < 0 { Ok(None) } else { tensor_index(i, count, &what).map(Some) })
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?
        .unwrap_or_default();
    let outputs = op
        .outputs()?
        .map(|v| v.iter().map(|i| tensor_index(i, count, &what)).collect::<Result<Vec<_>, _>>())
        .transpose()?
        .unwrap_or_default();
    Ok(Node {
        index,
        code: builtin,
        name,
        version: code.version()?,
        inputs,
        outputs,
        options_type: op.builtin_options_type()?,
        options: op.builtin_options()?,
        custom_options: op.custom_options()?,
        fixed_order: false,
        subgraph: 0,
        scopes: Vec::new(),
    })
}

fn read_tensor<'a>(
    index: usize,
    name: String,
    t: &tflite::Tensor<'a>,
    buffers: Option<&BufferVec<'a>>,
) -> Result<Tensor<'a>, Error> {
    // int4 (TensorType 17) is taken as TFLM takes it, for constant weights
    // only: unpacked here into int8 (two per byte, low nibble first).
    let int4 = t.dtype()? == INT4;
    let dtype = if int4 { DType::I8 } else { DType::from_code(t.dtype()?) };
    let raw_shape: Vec<i32> = t.shape()?.map(|s| s.iter().collect()).unwrap_or_default();
    if raw_shape.len() > MAX_RANK {
        return Err(Error::model(format!(
            "tensor '{name}' has rank {}; tinyaot supports up to {MAX_RANK} dimensions",
            raw_shape.len()
        )));
    }
    // `shape_signature` may mark a dimension dynamic (-1) while `shape` holds
    // the size the model was converted with; like TFLM, use `shape`.
    if raw_shape.iter().any(|&d| d < 0) {
        return Err(Error::model(format!(
            "tensor '{name}' has a dynamic (-1) dimension {raw_shape:?}; tinyaot needs every shape \
             fixed at compile time (convert with a fixed batch size, e.g. `batch_size=1`)"
        )));
    }
    let shape: Vec<usize> = raw_shape.iter().map(|&d| d as usize).collect();
    if shape.contains(&0) {
        return Err(Error::model(format!("tensor '{name}' has an empty dimension in its shape {shape:?}")));
    }
    let elements =
        shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).filter(|&n| n <= MAX_TENSOR_BYTES).ok_or_else(
            || Error::model(format!("tensor '{name}' with shape {shape:?} is too large for any microcontroller")),
        )?;
    let bytes = match dtype.size() {
        Some(s) => elements.checked_mul(s).filter(|&b| b <= MAX_TENSOR_BYTES).ok_or_else(|| {
            Error::model(format!("tensor '{name}' with shape {shape:?} is too large for any microcontroller"))
        })?,
        None => 0,
    };
    if t.is_sparse() {
        return Err(Error::model(format!("tensor '{name}' is sparse; sparse tensors are not supported")));
    }

    let quant = match t.quantization()? {
        Some(q) if q.details_type()? != 0 => {
            return Err(Error::model(format!(
                "tensor '{name}' uses custom quantization details, which are not supported"
            )));
        }
        Some(q) => match q.scale()? {
            Some(scales) if !scales.is_empty() => {
                let scales: Vec<f32> = scales.iter().collect();
                // As TFLM's allocator: one zero point per scale where the
                // counts agree, else the first for every channel (weights'
                // zero points written once); none reads as 0.
                let written: Vec<i64> = q.zero_point()?.map(|z| z.iter().collect()).unwrap_or_default();
                let zero_points: Vec<i64> = match written.len() {
                    n if n == scales.len() => written,
                    0 => vec![0; scales.len()],
                    _ => vec![written[0]; scales.len()],
                };
                // TFLM's allocator copies the dimension without checking it:
                // only a kernel that reads per-channel parameters looks at it
                // (and checks the count against its own channel axis), so a
                // bias that carries its filter's axis 3 at rank 1 is fine.
                let axis = usize::try_from(q.quantized_dimension()?).unwrap_or(usize::MAX);
                let (zmin, zmax) = match dtype {
                    DType::I8 => (-128, 127),
                    DType::U8 => (0, 255),
                    DType::I16 => (-32768, 32767),
                    _ => (i32::MIN as i64, i32::MAX as i64),
                };
                if let Some(z) = zero_points.iter().find(|&&z| z < zmin || z > zmax) {
                    return Err(Error::model(format!(
                        "tensor '{name}' ({}) has zero point {z}, outside its type's range",
                        dtype.name()
                    )));
                }
                if scales.iter().any(|s| !s.is_finite() || *s <= 0.0) {
                    return Err(Error::model(format!("tensor '{name}' has a non-positive or non-finite scale")));
                }
                Some(Quant { scales, zero_points, axis })
            }
            _ => None,
        },
        None => None,
    };

    let buffer_index = t.buffer()? as usize;
    let data = if buffer_index == 0 {
        None
    } else {
        let buffers = buffers.filter(|b| buffer_index < b.len()).ok_or_else(|| {
            Error::model(format!("tensor '{name}' refers to buffer {buffer_index}, which does not exist"))
        })?;
        let buffer = buffers.get(buffer_index)?;
        if buffer.offset()? > 1 {
            return Err(Error::model(format!(
                "tensor '{name}' keeps its data outside the flatbuffer (a >2 GB model); not supported"
            )));
        }
        match buffer.data()? {
            Some(d) if !d.is_empty() && int4 => {
                if d.len() != elements.div_ceil(2) {
                    return Err(Error::model(format!(
                        "int4 tensor '{name}' {shape:?} needs {} bytes of packed data, its buffer has {}",
                        elements.div_ceil(2),
                        d.len()
                    )));
                }
                Some(Cow::Owned(unpack_int4(d, elements)))
            }
            Some(d) if !d.is_empty() => {
                if d.len() != bytes {
                    return Err(Error::model(format!(
                        "tensor '{name}' ({}{:?}) needs {bytes} bytes of data, its buffer has {}",
                        dtype.name(),
                        shape,
                        d.len()
                    )));
                }
                // The generated code hands bool tensors out as `&[bool]`:
                // a byte other than 0 or 1 would not be a `bool`.
                if let (DType::Bool, Some(i)) = (dtype, d.iter().position(|&b| b > 1)) {
                    return Err(Error::model(format!(
                        "bool constant '{name}' holds the byte {} at element {i}; a bool is 0 or 1",
                        d[i]
                    )));
                }
                Some(Cow::Borrowed(d))
            }
            _ => None,
        }
    };
    if int4 && data.is_none() {
        return Err(Error::model(format!(
            "int4 tensor '{name}' is not a constant; int4 is supported (as in TFLM) for constant weights only"
        )));
    }
    // TFLM never reads a variable's buffer: it resets the state to zero
    // (int8: the zero point) when the interpreter is set up and on reset.
    let is_variable = t.is_variable()?;
    let data = if is_variable { None } else { data };
    if is_variable && (bytes == 0 || dtype.size().is_none()) {
        return Err(Error::model(format!("variable tensor '{name}' ({}{shape:?}) has no storage", dtype.name())));
    }
    let int4 = int4 && data.is_some();
    Ok(Tensor { index, name, shape, dtype, quant, data, is_variable, int4, elements, bytes })
}
