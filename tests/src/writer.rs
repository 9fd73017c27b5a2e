//! Writes `.tflite` flatbuffers from a small description: the project's own
//! model-writing helper for cases no converter produces (corrupt, hostile or
//! unsupported models). Field ids follow the TFLite schema.

use flatbuffers::{FlatBufferBuilder, TableFinishedWIPOffset, WIPOffset};

/// `TensorType` codes.
pub mod dtype {
    /// float32
    pub const F32: i8 = 0;
    /// float16
    pub const F16: i8 = 1;
    /// int32
    pub const I32: i8 = 2;
    /// uint8
    pub const U8: i8 = 3;
    /// int64
    pub const I64: i8 = 4;
    /// string
    pub const STRING: i8 = 5;
    /// bool
    pub const BOOL: i8 = 6;
    /// int16
    pub const I16: i8 = 7;
    /// int8
    pub const I8: i8 = 9;
}

/// Affine quantization.
#[derive(Clone, Debug)]
pub struct QuantDef {
    /// Scales.
    pub scale: Vec<f32>,
    /// Zero points.
    pub zero_point: Vec<i64>,
    /// Channel axis.
    pub axis: i32,
}

impl QuantDef {
    /// Per-tensor parameters.
    pub fn per_tensor(scale: f32, zero_point: i64) -> Option<QuantDef> {
        Some(QuantDef { scale: vec![scale], zero_point: vec![zero_point], axis: 0 })
    }
}

/// A tensor.
#[derive(Clone, Debug)]
pub struct TensorDef {
    /// Name.
    pub name: String,
    /// Shape (may hold -1 or 0 for hostile cases).
    pub shape: Vec<i32>,
    /// `TensorType` code.
    pub dtype: i8,
    /// Buffer index (0 = none).
    pub buffer: u32,
    /// Quantization.
    pub quant: Option<QuantDef>,
    /// A variable (state kept between invocations, e.g. SVDF's).
    pub is_variable: bool,
    /// `shape_signature` (-1 for a dimension known only at run time), when
    /// written.
    pub signature: Option<Vec<i32>>,
}

impl TensorDef {
    /// An activation tensor.
    pub fn new(name: &str, shape: &[i32], dtype: i8, quant: Option<QuantDef>) -> Self {
        TensorDef {
            name: name.into(),
            shape: shape.to_vec(),
            dtype,
            buffer: 0,
            quant,
            is_variable: false,
            signature: None,
        }
    }
    /// A constant backed by buffer `buffer`.
    pub fn constant(name: &str, shape: &[i32], dtype: i8, buffer: u32, quant: Option<QuantDef>) -> Self {
        TensorDef {
            name: name.into(),
            shape: shape.to_vec(),
            dtype,
            buffer,
            quant,
            is_variable: false,
            signature: None,
        }
    }
}

/// A scalar option field value.
#[derive(Clone, Copy, Debug)]
pub enum Scalar {
    /// byte / enum
    I8(i8),
    /// int
    I32(i32),
    /// float
    F32(f32),
    /// bool
    Bool(bool),
    /// string (VAR_HANDLE's names)
    Str(&'static str),
}

/// An operator.
#[derive(Clone, Debug)]
pub struct OpDef {
    /// Index into the model's opcodes.
    pub opcode: u32,
    /// Input tensors (-1 = omitted).
    pub inputs: Vec<i32>,
    /// Output tensors.
    pub outputs: Vec<i32>,
    /// `BuiltinOptions` union tag and its scalar fields `(field id, value)`.
    pub options: Option<(u8, Vec<(u16, Scalar)>)>,
    /// A custom operator's options (see [`flexbuffer_map`]).
    pub custom_options: Option<Vec<u8>>,
}

/// A subgraph.
#[derive(Clone, Debug, Default)]
pub struct SubgraphDef {
    /// Tensors.
    pub tensors: Vec<TensorDef>,
    /// Graph inputs.
    pub inputs: Vec<i32>,
    /// Graph outputs.
    pub outputs: Vec<i32>,
    /// Operators.
    pub ops: Vec<OpDef>,
}

/// A whole model.
#[derive(Clone, Debug)]
pub struct ModelDef {
    /// Schema version (3).
    pub version: u32,
    /// Builtin operator codes (32 with a name = custom).
    pub opcodes: Vec<(i32, Option<String>)>,
    /// Subgraphs.
    pub subgraphs: Vec<SubgraphDef>,
    /// Buffers; buffer 0 should be empty.
    pub buffers: Vec<Vec<u8>>,
    /// What converters add around the graph and TFLM ignores: a
    /// description, `metadata` entries (name, buffer index), and one
    /// signature definition naming the graph inputs and outputs.
    pub extras: Option<Extras>,
    /// Write each operator code in the deprecated byte field only, as
    /// files from before schema 3a do.
    pub legacy_codes: bool,
}

/// The model-level fields a converter writes beside the graph.
#[derive(Clone, Debug, Default)]
pub struct Extras {
    /// `Model.description`.
    pub description: String,
    /// `Model.metadata`: (name, buffer index).
    pub metadata: Vec<(String, u32)>,
    /// `Model.metadata_buffer` (deprecated): buffer indices.
    pub metadata_buffer: Vec<i32>,
    /// `Model.signature_defs[0].signature_key`.
    pub signature_key: String,
}

const fn slot(id: u16) -> u16 {
    4 + 2 * id
}

type Table = WIPOffset<TableFinishedWIPOffset>;

impl ModelDef {
    /// A version-3 model with one subgraph and the empty buffer 0.
    pub fn new(opcodes: &[i32], subgraph: SubgraphDef, buffers: Vec<Vec<u8>>) -> Self {
        let mut all = vec![Vec::new()];
        all.extend(buffers);
        ModelDef {
            version: 3,
            opcodes: opcodes.iter().map(|&c| (c, None)).collect(),
            subgraphs: vec![subgraph],
            buffers: all,
            extras: None,
            legacy_codes: false,
        }
    }

    /// Serializes with the `TFL3` identifier.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = FlatBufferBuilder::new();
        let codes: Vec<Table> =
            self.opcodes.iter().map(|(c, custom)| opcode(&mut b, *c, custom.as_deref(), self.legacy_codes)).collect();
        let codes = b.create_vector(&codes);
        let subgraphs: Vec<Table> = self.subgraphs.iter().map(|s| subgraph(&mut b, s)).collect();
        let subgraphs = b.create_vector(&subgraphs);
        let buffers: Vec<Table> = self
            .buffers
            .iter()
            .map(|data| {
                let v = (!data.is_empty()).then(|| {
                    b.start_vector::<u8>(data.len());
                    for &x in data.iter().rev() {
                        b.push(x);
                    }
                    b.end_vector::<u8>(data.len())
                });
                let t = b.start_table();
                if let Some(v) = v {
                    b.push_slot_always(slot(0), v);
                }
                b.end_table(t)
            })
            .collect();
        let buffers = b.create_vector(&buffers);
        let extras = self.extras.as_ref().map(|e| extras(&mut b, e, self.subgraphs.first()));
        let t = b.start_table();
        b.push_slot::<u32>(slot(0), self.version, 0);
        b.push_slot_always(slot(1), codes);
        b.push_slot_always(slot(2), subgraphs);
        b.push_slot_always(slot(4), buffers);
        if let Some((description, metadata_buffer, metadata, signatures)) = extras {
            b.push_slot_always(slot(3), description);
            b.push_slot_always(slot(5), metadata_buffer);
            b.push_slot_always(slot(6), metadata);
            b.push_slot_always(slot(7), signatures);
        }
        let root = b.end_table(t);
        b.finish(root, Some("TFL3"));
        b.finished_data().to_vec()
    }
}

fn opcode(b: &mut FlatBufferBuilder<'_>, code: i32, custom: Option<&str>, legacy: bool) -> Table {
    let custom = custom.map(|c| b.create_string(c));
    let t = b.start_table();
    b.push_slot::<i8>(slot(0), code.min(127) as i8, 0);
    if let Some(c) = custom {
        b.push_slot_always(slot(1), c);
    }
    b.push_slot::<i32>(slot(2), 1, 1);
    if !legacy {
        b.push_slot::<i32>(slot(3), code, 0);
    }
    b.end_table(t)
}

type Any = WIPOffset<flatbuffers::UnionWIPOffset>;

/// The description string, deprecated metadata buffer list, `Metadata`
/// tables and one `SignatureDef` (graph inputs and outputs by name).
fn extras(b: &mut FlatBufferBuilder<'_>, e: &Extras, graph: Option<&SubgraphDef>) -> (Any, Any, Any, Any) {
    let description = b.create_string(&e.description);
    let metadata_buffer = b.create_vector(&e.metadata_buffer);
    let metadata: Vec<Table> = e
        .metadata
        .iter()
        .map(|(name, buffer)| {
            let name = b.create_string(name);
            let t = b.start_table();
            b.push_slot_always(slot(0), name);
            b.push_slot::<u32>(slot(1), *buffer, 0);
            b.end_table(t)
        })
        .collect();
    let metadata = b.create_vector(&metadata);
    let mut maps = |indices: &[i32]| -> WIPOffset<_> {
        let tables: Vec<Table> = indices
            .iter()
            .map(|&i| {
                let name = graph.and_then(|g| g.tensors.get(i as usize)).map_or("?", |t| t.name.as_str());
                let name = b.create_string(&format!("serving_{name}"));
                let t = b.start_table();
                b.push_slot_always(slot(0), name);
                b.push_slot::<u32>(slot(1), i as u32, 0);
                b.end_table(t)
            })
            .collect();
        b.create_vector(&tables)
    };
    let inputs = maps(graph.map_or(&[][..], |g| &g.inputs));
    let outputs = maps(graph.map_or(&[][..], |g| &g.outputs));
    let key = b.create_string(&e.signature_key);
    let t = b.start_table();
    b.push_slot_always(slot(0), inputs);
    b.push_slot_always(slot(1), outputs);
    b.push_slot_always(slot(2), key);
    b.push_slot::<u32>(slot(4), 0, 0);
    let signature = b.end_table(t);
    let signatures = b.create_vector(&[signature]);
    (
        description.as_union_value(),
        metadata_buffer.as_union_value(),
        metadata.as_union_value(),
        signatures.as_union_value(),
    )
}

fn subgraph(b: &mut FlatBufferBuilder<'_>, s: &SubgraphDef) -> Table {
    let tensors: Vec<Table> = s.tensors.iter().map(|t| tensor(b, t)).collect();
    let tensors = b.create_vector(&tensors);
    let inputs = b.create_vector(&s.inputs);
    let outputs = b.create_vector(&s.outputs);
    let ops: Vec<Table> = s.ops.iter().map(|o| operator(b, o)).collect();
    let ops = b.create_vector(&ops);
    let t = b.start_table();
    b.push_slot_always(slot(0), tensors);
    b.push_slot_always(slot(1), inputs);
    b.push_slot_always(slot(2), outputs);
    b.push_slot_always(slot(3), ops);
    b.end_table(t)
}

fn tensor(b: &mut FlatBufferBuilder<'_>, t: &TensorDef) -> Table {
    let shape = b.create_vector(&t.shape);
    let signature = t.signature.as_ref().map(|s| b.create_vector(s));
    let name = b.create_string(&t.name);
    let quant = t.quant.as_ref().map(|q| {
        let scale = b.create_vector(&q.scale);
        let zp = b.create_vector(&q.zero_point);
        let qt = b.start_table();
        b.push_slot_always(slot(2), scale);
        b.push_slot_always(slot(3), zp);
        b.push_slot::<i32>(slot(6), q.axis, 0);
        b.end_table(qt)
    });
    let tt = b.start_table();
    b.push_slot_always(slot(0), shape);
    b.push_slot::<i8>(slot(1), t.dtype, 0);
    b.push_slot::<u32>(slot(2), t.buffer, 0);
    b.push_slot_always(slot(3), name);
    if let Some(q) = quant {
        b.push_slot_always(slot(4), q);
    }
    b.push_slot::<bool>(slot(5), t.is_variable, false);
    if let Some(signature) = signature {
        b.push_slot_always(slot(7), signature);
    }
    b.end_table(tt)
}

fn operator(b: &mut FlatBufferBuilder<'_>, o: &OpDef) -> Table {
    let custom = o.custom_options.as_ref().map(|c| b.create_vector(c));
    let inputs = b.create_vector(&o.inputs);
    let outputs = b.create_vector(&o.outputs);
    let options = o.options.as_ref().map(|(tag, fields)| {
        // Strings are written before the table that points at them.
        let strings: Vec<_> = fields
            .iter()
            .map(|&(_, v)| match v {
                Scalar::Str(text) => Some(b.create_string(text)),
                _ => None,
            })
            .collect();
        let t = b.start_table();
        for (&(id, v), string) in fields.iter().zip(strings) {
            match (v, string) {
                (Scalar::I8(x), _) => b.push_slot_always::<i8>(slot(id), x),
                (Scalar::I32(x), _) => b.push_slot_always::<i32>(slot(id), x),
                (Scalar::F32(x), _) => b.push_slot_always::<f32>(slot(id), x),
                (Scalar::Bool(x), _) => b.push_slot_always::<bool>(slot(id), x),
                (Scalar::Str(_), Some(string)) => b.push_slot_always(slot(id), string),
                (Scalar::Str(_), None) => {}
            }
        }
        (*tag, b.end_table(t))
    });
    let t = b.start_table();
    b.push_slot::<u32>(slot(0), o.opcode, 0);
    b.push_slot_always(slot(1), inputs);
    b.push_slot_always(slot(2), outputs);
    if let Some((tag, table)) = options {
        b.push_slot::<u8>(slot(3), tag, 0);
        b.push_slot_always(slot(4), table);
    }
    if let Some(c) = custom {
        b.push_slot_always(slot(5), c);
    }
    b.end_table(t)
}

/// A value of a custom operator's options.
#[derive(Clone, Debug)]
pub enum Flex {
    /// An integer.
    Int(i64),
    /// A bool.
    Bool(bool),
    /// A vector of integers.
    Ints(Vec<i64>),
    /// A float (written as a double).
    Float(f64),
}

/// A FlexBuffers root map, as custom operators' options are written (keys
/// sorted, as the format requires; every slot 8 bytes wide).
pub fn flexbuffer_map(entries: &[(&str, Flex)]) -> Vec<u8> {
    const WIDE: u8 = 3; // 8-byte slots
    let mut entries: Vec<&(&str, Flex)> = entries.iter().collect();
    entries.sort_by_key(|(k, _)| *k);
    let mut buf: Vec<u8> = Vec::new();
    fn pad(buf: &mut Vec<u8>) {
        while !buf.len().is_multiple_of(8) {
            buf.push(0);
        }
    }
    fn put(buf: &mut Vec<u8>, v: u64) {
        buf.extend_from_slice(&v.to_le_bytes());
    }
    let keys: Vec<usize> = entries
        .iter()
        .map(|(k, _)| {
            let at = buf.len();
            buf.extend_from_slice(k.as_bytes());
            buf.push(0);
            at
        })
        .collect();
    let vectors: Vec<usize> = entries
        .iter()
        .map(|(_, v)| match v {
            Flex::Ints(xs) => {
                pad(&mut buf);
                put(&mut buf, xs.len() as u64);
                let at = buf.len();
                for &x in xs {
                    put(&mut buf, x as u64);
                }
                at
            }
            _ => 0,
        })
        .collect();
    pad(&mut buf);
    put(&mut buf, keys.len() as u64);
    let keys_at = buf.len();
    for &k in &keys {
        let here = buf.len();
        put(&mut buf, (here - k) as u64);
    }
    let here = buf.len();
    put(&mut buf, (here - keys_at) as u64);
    put(&mut buf, 8);
    put(&mut buf, entries.len() as u64);
    let map_at = buf.len();
    for (i, (_, v)) in entries.iter().enumerate() {
        let here = buf.len();
        match v {
            Flex::Int(x) => put(&mut buf, *x as u64),
            Flex::Bool(b) => put(&mut buf, u64::from(*b)),
            Flex::Float(x) => put(&mut buf, x.to_bits()),
            Flex::Ints(_) => put(&mut buf, (here - vectors[i]) as u64),
        }
    }
    for (_, v) in &entries {
        let code: u8 = match v {
            Flex::Int(_) => 1,
            Flex::Bool(_) => 26,
            Flex::Float(_) => 3,
            Flex::Ints(_) => 11,
        };
        buf.push((code << 2) | WIDE);
    }
    pad(&mut buf);
    let here = buf.len();
    put(&mut buf, (here - map_at) as u64);
    buf.push((9 << 2) | WIDE);
    buf.push(8);
    buf
}

/// A one-op int8 FULLY_CONNECTED model, `[1, depth] -> [1, units]`: the
/// base most fixtures mutate.
pub fn fc_model(depth: i32, units: i32) -> ModelDef {
    let q = |s: f32, z: i64| QuantDef::per_tensor(s, z);
    let weights = vec![1u8; (depth * units).max(0) as usize];
    let bias: Vec<u8> = (0..units).flat_map(|_| 0i32.to_le_bytes()).collect();
    ModelDef::new(
        &[9],
        SubgraphDef {
            tensors: vec![
                TensorDef::new("input", &[1, depth], dtype::I8, q(0.5, 0)),
                TensorDef::constant("weights", &[units, depth], dtype::I8, 1, q(0.25, 0)),
                TensorDef::constant("bias", &[units], dtype::I32, 2, q(0.125, 0)),
                TensorDef::new("output", &[1, units], dtype::I8, q(1.0, 0)),
            ],
            inputs: vec![0],
            outputs: vec![3],
            ops: vec![OpDef {
                custom_options: None,
                opcode: 0,
                inputs: vec![0, 1, 2],
                outputs: vec![3],
                options: Some((8, vec![(0, Scalar::I8(0))])),
            }],
        },
        vec![weights, bias],
    )
}

/// Moves the object of `len` bytes at `pos` (a vector with its length
/// word, or a table with scalar fields only) to the end of the file, at an
/// address `r` past a multiple of `m`, and points the offset stored at
/// `referrer` there: layouts the flatbuffers builder never writes and
/// other writers do (a vector of `int64` at 4 past an 8-byte boundary, a
/// table at an odd address). `table` says whether the object begins with
/// its vtable's signed offset, which is moved along.
pub fn relocate(bytes: &[u8], referrer: usize, pos: usize, len: usize, table: bool, (m, r): (usize, usize)) -> Vec<u8> {
    let stored = u32::from_le_bytes(bytes[referrer..referrer + 4].try_into().unwrap()) as usize;
    assert_eq!(referrer + stored, pos, "the offset at {referrer} does not point to {pos}");
    let mut out = bytes.to_vec();
    while out.len() % m != r {
        out.push(0);
    }
    let new = out.len();
    out.extend_from_slice(&bytes[pos..pos + len]);
    if table {
        let vtable = pos as i64 - i64::from(i32::from_le_bytes(bytes[pos..pos + 4].try_into().unwrap()));
        out[new..new + 4].copy_from_slice(&((new as i64 - vtable) as i32).to_le_bytes());
    }
    out[referrer..referrer + 4].copy_from_slice(&((new - referrer) as u32).to_le_bytes());
    out
}
