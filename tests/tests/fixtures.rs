//! The hostile and unsupported models the compile-fail tests use, written
//! by `tinyaot_tests::writer`. This test keeps the committed files in
//! `tests/ui/fixtures` equal to what the writer makes (`TINYAOT_BLESS=1`
//! rewrites them) and checks the compiler's verdict on each.

use std::path::Path;
use tinyaot_tests::writer::{
    Extras, ModelDef, OpDef, QuantDef, Scalar, SubgraphDef, TensorDef, dtype, fc_model, relocate,
};

/// (name, bytes, a fragment the compiler's error must contain)
fn fixtures() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let base = fc_model(4, 3);
    let ok = base.to_bytes();
    let mut v = vec![
        ("not_tflite", b"this is a text file, not a model\n".to_vec(), "not a TFLite model"),
        ("truncated", ok[..ok.len() / 2].to_vec(), "corrupt or truncated"),
    ];
    let mut corrupt = ok.clone();
    corrupt[..4].copy_from_slice(&0xFFFF_FF00u32.to_le_bytes());
    v.push(("corrupt", corrupt, "corrupt or truncated"));

    let mut m = base.clone();
    m.version = 2;
    v.push(("schema_v2", m.to_bytes(), "schema version 2"));

    let mut m = base.clone();
    m.subgraphs.clear();
    v.push(("no_subgraph", m.to_bytes(), "no subgraph"));

    // CALL_ONCE: a callee that does not exist, and one that calls itself.
    let mut m = base.clone();
    let op = call_once(&mut m, 5);
    m.subgraphs[0].ops.insert(0, op);
    v.push(("call_once_missing_subgraph", m.to_bytes(), "op 0 (CALL_ONCE): subgraph 5 does not exist"));
    let mut m = base.clone();
    let op = call_once(&mut m, 1);
    m.subgraphs[0].ops.insert(0, op);
    let recursive = SubgraphDef { ops: vec![call_once(&mut m, 1)], ..SubgraphDef::default() };
    m.subgraphs.push(recursive);
    v.push((
        "call_once_recursion",
        m.to_bytes(),
        "subgraph 1 op 0 (CALL_ONCE): calls subgraph 1, which is already running",
    ));

    // Subgraphs calling the next, 70 deep (a bound for hostile files).
    let mut m = base.clone();
    let op = call_once(&mut m, 1);
    m.subgraphs[0].ops.insert(0, op);
    for next in 2..=70 {
        let op = call_once(&mut m, next);
        m.subgraphs.push(SubgraphDef { ops: vec![op], ..SubgraphDef::default() });
    }
    v.push(("call_once_too_deep", m.to_bytes(), "control flow nested more than 64 subgraphs deep"));

    // A called subgraph with a dynamic tensor shape.
    let mut m = base.clone();
    let op = call_once(&mut m, 1);
    m.subgraphs[0].ops.insert(0, op);
    let dynamic =
        SubgraphDef { tensors: vec![TensorDef::new("rows", &[-1, 4], dtype::I8, None)], ..SubgraphDef::default() };
    m.subgraphs.push(dynamic);
    v.push((
        "callee_dynamic_shape",
        m.to_bytes(),
        "subgraph 1 (run by op 0 (CALL_ONCE)): tensor 'rows' has a dynamic (-1) dimension",
    ));

    // An IF whose branch takes another number of operands than it passes.
    let mut m = base.clone();
    m.subgraphs[0].tensors.push(TensorDef::new("cond", &[1], dtype::BOOL, None));
    m.subgraphs[0].inputs.push(4);
    let op = OpDef {
        opcode: opcode(&mut m, 118),
        inputs: vec![4, 0],
        outputs: vec![],
        options: Some((92, vec![(0, Scalar::I32(1)), (1, Scalar::I32(1))])),
        custom_options: None,
    };
    m.subgraphs[0].ops.push(op);
    let two_inputs = SubgraphDef {
        tensors: vec![TensorDef::new("a", &[1, 4], dtype::I8, None), TensorDef::new("b", &[1, 4], dtype::I8, None)],
        inputs: vec![0, 1],
        ..SubgraphDef::default()
    };
    m.subgraphs.push(two_inputs);
    v.push(("if_arity", m.to_bytes(), "op 1 (IF): passes 1 inputs and expects 0 outputs, but subgraph 1 has 2 and 0"));

    // A resource variable read but never assigned (TFLM reads a null
    // buffer), and one read into a tensor of another size.
    let mut m = base.clone();
    let read = variable_ops(&mut m, "v", None, &[1, 4]);
    m.subgraphs[0].ops.splice(0..0, read);
    v.push(("variable_never_assigned", m.to_bytes(), "reads resource variable 'v', which no ASSIGN_VARIABLE"));
    let mut m = base.clone();
    let ops = variable_ops(&mut m, "v", Some(&[1, 3]), &[1, 4]);
    m.subgraphs[0].ops.splice(0..0, ops);
    v.push(("variable_size_mismatch", m.to_bytes(), "does not match resource variable 'v'"));

    let mut m = base.clone();
    m.opcodes = vec![(15, None)]; // LSH_PROJECTION (TFLM has none either)
    m.subgraphs[0].ops[0].options = None;
    v.push(("unsupported_op", m.to_bytes(), "op 0 (LSH_PROJECTION): operator not supported"));

    let mut m = base.clone();
    for t in [0, 3] {
        m.subgraphs[0].tensors[t].dtype = dtype::U8;
    }
    v.push(("unsupported_dtype", m.to_bytes(), "input uint8, weights int8, output uint8 is not supported"));

    // A uint8 layer whose output a CAST reads (CAST gives the raw uint8
    // values, which the int8 form would move): the set stays uint8 and
    // the layer's error says why.
    let mut m = base.clone();
    for t in [0, 1, 3] {
        m.subgraphs[0].tensors[t].dtype = dtype::U8;
    }
    m.subgraphs[0].tensors.push(TensorDef::new("as_float", &[1, 3], dtype::F32, None));
    let cast =
        OpDef { opcode: opcode(&mut m, 53), inputs: vec![3], outputs: vec![4], options: None, custom_options: None };
    m.subgraphs[0].ops.push(cast);
    m.subgraphs[0].outputs = vec![4];
    v.push(("uint8_kept", m.to_bytes(), "its uint8 tensors takes uint8: op 1 (CAST) does not take uint8"));

    let mut m = base.clone();
    m.subgraphs[0].tensors[3].shape = vec![1, 5];
    v.push(("shape_mismatch", m.to_bytes(), "has shape [1, 5], but the op's inputs give [1, 3]"));

    let mut m = base.clone();
    m.subgraphs[0].tensors[0].shape = vec![-1, 4];
    v.push(("dynamic_dim", m.to_bytes(), "dynamic (-1) dimension"));

    let mut m = base.clone();
    m.subgraphs[0].tensors[0].shape = vec![65536, 65536, 4];
    v.push(("huge_tensor", m.to_bytes(), "too large for any microcontroller"));

    // A vector whose length runs past the end of the file.
    let mut bytes = ok.clone();
    let at = output_shape_position(&ok);
    bytes[at..at + 4].copy_from_slice(&0x4000_0000u32.to_le_bytes());
    v.push(("vector_oob", bytes, "tensor 3's shape (4294967296 bytes at byte"));

    let mut m = base.clone();
    m.subgraphs[0].tensors[1].buffer = 99;
    v.push(("buffer_oob", m.to_bytes(), "refers to buffer 99, which does not exist"));

    let mut m = base.clone();
    m.subgraphs[0].tensors.push(TensorDef::new("dead", &[1, 4], dtype::I8, QuantDef::per_tensor(1.0, 0)));
    m.subgraphs[0].ops[0].inputs[0] = 4;
    v.push(("read_before_write", m.to_bytes(), "reads tensor 'dead' before any op writes it"));

    let mut m = base.clone();
    m.subgraphs[0].ops.push(OpDef {
        opcode: 0,
        inputs: vec![3, 1, 2],
        outputs: vec![3],
        options: None,
        custom_options: None,
    });
    v.push(("fc_bad_depth", m.to_bytes(), "not a multiple of the weights' depth"));

    // TFLM DECODE of the weights: Huffman tables with no whole entry and
    // look-up tables too short for the indices (TFLM would read past
    // both).
    let huffman = decode_weights(&base, 1, vec![0xFF; 3]);
    v.push((
        "decode_huffman",
        huffman.to_bytes(),
        "op 0 (CUSTOM:TFLM_DECODE): element 0: Huffman table entry 0 is past",
    ));
    let short = decode_weights(&base, 0, vec![5]);
    v.push(("decode_short_tables", short.to_bytes(), "index 1 of channel 0 reaches past the value tables"));

    // A float input with int8 weights and an int8 output: neither a
    // quantized layer nor a hybrid one (float32 in and out), which TFLM and
    // LiteRT refuse too.
    let mut m = base;
    m.subgraphs[0].tensors[0].dtype = dtype::F32;
    m.subgraphs[0].tensors[0].quant = None;
    v.push(("hybrid_fc_int8_output", m.to_bytes(), "input float32, weights int8, output int8"));
    v
}

/// `m` (`fc_model(4, 3)`) with its weights behind a TFLM DECODE of type
/// `decode_type`: 1-bit indices alternating 0 and 1, `tables` the bytes
/// after the 16-byte header.
fn decode_weights(m: &ModelDef, decode_type: u8, tables: Vec<u8>) -> ModelDef {
    let mut m = m.clone();
    let mut ancillary = vec![decode_type, 1, 0, 0, 1, 1, 2];
    ancillary.resize(16, 0);
    ancillary.extend(tables);
    for (name, bytes) in [("weights_encoded", vec![0b0101_0101; 2]), ("weights_ancillary", ancillary)] {
        let len = bytes.len() as i32;
        m.buffers.push(bytes);
        let buffer = m.buffers.len() as u32 - 1;
        m.subgraphs[0].tensors.push(TensorDef::constant(name, &[len], dtype::U8, buffer, None));
    }
    m.subgraphs[0].tensors[1].buffer = 0;
    m.opcodes.push((32, Some("TFLM_DECODE".into())));
    let decode = OpDef {
        opcode: m.opcodes.len() as u32 - 1,
        inputs: vec![4, 5],
        outputs: vec![1],
        options: None,
        custom_options: None,
    };
    m.subgraphs[0].ops.insert(0, decode);
    m
}

/// A CALL_ONCE of subgraph `init` (its operator code added to `m`).
fn call_once(m: &mut ModelDef, init: i32) -> OpDef {
    OpDef {
        opcode: opcode(m, 129),
        inputs: vec![],
        outputs: vec![],
        options: Some((103, vec![(0, Scalar::I32(init))])),
        custom_options: None,
    }
}

/// The index of builtin `code` in `m`'s operator codes (added if new).
fn opcode(m: &mut ModelDef, code: i32) -> u32 {
    let at = m.opcodes.iter().position(|c| c.0 == code).unwrap_or_else(|| {
        m.opcodes.push((code, None));
        m.opcodes.len() - 1
    });
    at as u32
}

/// VAR_HANDLE `name`, an ASSIGN_VARIABLE of graph input 0 (shape
/// `assigned`, when given) and a READ_VARIABLE into a new tensor of shape
/// `read`, in subgraph 0 of `m` (ops returned, tensors added).
fn variable_ops(m: &mut ModelDef, name: &'static str, assigned: Option<&[i32]>, read: &[i32]) -> Vec<OpDef> {
    let q = QuantDef::per_tensor(0.5, 0);
    let sg = &mut m.subgraphs[0];
    sg.tensors.push(TensorDef::new("handle", &[], 13, None));
    let handle = sg.tensors.len() as i32 - 1;
    sg.tensors.push(TensorDef::new("read", read, dtype::I8, q.clone()));
    let value = sg.tensors.len() as i32 - 1;
    let mut ops = vec![OpDef {
        opcode: opcode(m, 142),
        inputs: vec![],
        outputs: vec![handle],
        options: Some((111, vec![(1, Scalar::Str(name))])),
        custom_options: None,
    }];
    if let Some(shape) = assigned {
        let sg = &mut m.subgraphs[0];
        sg.tensors.push(TensorDef::new("assigned", shape, dtype::I8, q));
        let source = sg.tensors.len() as i32 - 1;
        // A graph input of that shape feeds the assignment.
        sg.inputs.push(source);
        ops.push(OpDef {
            opcode: opcode(m, 144),
            inputs: vec![handle, source],
            outputs: vec![],
            options: None,
            custom_options: None,
        });
    }
    ops.push(OpDef {
        opcode: opcode(m, 143),
        inputs: vec![handle],
        outputs: vec![value],
        options: None,
        custom_options: None,
    });
    ops
}

/// Quirks of real files that TFLM runs, each on the base model (same
/// arithmetic): `ui/pass/lenient.rs` compiles every one with
/// `include_model!` and checks its output against the base model's.
fn lenient() -> Vec<(&'static str, Vec<u8>)> {
    let base = fc_model(4, 3);
    let mut v = Vec::new();

    // One scale with any quantized_dimension (converters leave the filter's
    // axis 3 on a rank-1 bias: person_detect), negative too.
    let mut m = base.clone();
    m.subgraphs[0].tensors[2].quant.as_mut().unwrap().axis = 3;
    m.subgraphs[0].tensors[1].quant.as_mut().unwrap().axis = -1;
    m.subgraphs[0].tensors[0].quant.as_mut().unwrap().axis = 7;
    v.push(("accept_per_tensor_axis", m.to_bytes()));

    // Per-channel parameters on a tensor whose kernel never reads them
    // per channel: TFLM copies the dimension unchecked.
    let mut m = base.clone();
    m.subgraphs[0].tensors[2].quant = Some(QuantDef { scale: vec![0.125; 3], zero_point: vec![0; 3], axis: 3 });
    v.push(("accept_bias_channel_axis", m.to_bytes()));

    // Tensors no op reads or writes, with shapes and types TFLM never
    // checks: an LSTM's intermediates ([0], the quantization of its
    // gates), a constant whose buffer has the wrong size. (A -1 dimension
    // TFLM refuses even on an unused tensor, and so does tinyaot.)
    let mut m = base.clone();
    let unused = [
        TensorDef::new("input_to_input_intermediate", &[0], dtype::I16, QuantDef::per_tensor(0.007, 0)),
        TensorDef::constant("odd_constant", &[5, 5], dtype::I8, 2, None),
    ];
    m.subgraphs[0].tensors.extend(unused);
    v.push(("accept_unused_tensors", m.to_bytes()));

    // What converters write around the graph: a description, metadata
    // (e.g. `min_runtime_version`), a signature definition; operator codes
    // in the deprecated byte field only (files before schema 3a).
    let mut m = base.clone();
    m.buffers.push(b"1.5.0\0\0\0\0\0\0\0\0\0\0\0".to_vec());
    m.extras = Some(Extras {
        description: "MLIR Converted.".into(),
        metadata: vec![("min_runtime_version".into(), 3), ("CONVERSION_METADATA".into(), 3)],
        metadata_buffer: vec![3],
        signature_key: "serving_default".into(),
    });
    m.legacy_codes = true;
    v.push(("accept_converter_extras", m.to_bytes()));

    // A subgraph no op calls (TFLM prepares it and never runs it).
    let mut m = base.clone();
    m.subgraphs.push(m.subgraphs[0].clone());
    v.push(("accept_uncalled_subgraph", m.to_bytes()));

    // An omitted optional input (-1): FULLY_CONNECTED without a bias, on a
    // model whose bias is zero anyway.
    let mut m = base.clone();
    m.subgraphs[0].ops[0].inputs[2] = -1;
    v.push(("accept_omitted_bias", m.to_bytes()));

    // Layouts other writers make (TFLM reads them, the flatbuffers
    // verifier calls them unaligned): an int64 zero-point vector at 4 past
    // an 8-byte boundary, a shape vector, a weights buffer and an options
    // table at odd addresses.
    v.push(("accept_unaligned", unaligned(&base.to_bytes())));

    // One zero point for several scales (TFLM gives every channel the
    // first), names and a description that are not UTF-8 (TFLM never
    // reads them as text), no file identifier, bytes after the flatbuffer.
    let mut m = base.clone();
    m.subgraphs[0].tensors[2].quant = Some(QuantDef { scale: vec![0.125; 3], zero_point: vec![0], axis: 0 });
    m.extras = Some(Extras { description: "Converted by a vendor tool".into(), ..Extras::default() });
    let mut bytes = m.to_bytes();
    for text in [&b"\x06\0\0\0output"[..], b"\x1a\0\0\0Converted by"] {
        let at = find_once(&bytes, text) + 4;
        bytes[at] = 0xff;
    }
    bytes[4..8].fill(0);
    bytes.extend_from_slice(&[0xab; 3]);
    v.push(("accept_loose_file", bytes));
    v
}

/// Where the base model's output tensor's shape vector starts.
fn output_shape_position(bytes: &[u8]) -> usize {
    let model = tinyaot_compiler::tflite::read(bytes).unwrap();
    let sg = model.subgraphs().unwrap().unwrap().get(0).unwrap();
    sg.tensors().unwrap().unwrap().get(3).unwrap().shape().unwrap().unwrap().position()
}

/// Where `needle` occurs in `bytes`, which it must do exactly once.
fn find_once(bytes: &[u8], needle: &[u8]) -> usize {
    let hits: Vec<usize> =
        bytes.windows(needle.len()).enumerate().filter(|(_, w)| *w == needle).map(|(i, _)| i).collect();
    assert_eq!(hits.len(), 1, "{needle:?} should occur once");
    hits[0]
}

/// The base model with its input's zero points, its output's shape, its
/// weights and its operator's options moved where the builder never puts
/// them (see `writer::relocate`).
fn unaligned(bytes: &[u8]) -> Vec<u8> {
    use tinyaot_compiler::tflite;
    let model = tflite::read(bytes).unwrap();
    let sg = model.subgraphs().unwrap().unwrap().get(0).unwrap();
    let tensors = sg.tensors().unwrap().unwrap();
    let quant = tensors.get(0).unwrap().quantization().unwrap().unwrap();
    let zero_points = quant.zero_point().unwrap().unwrap();
    let output = tensors.get(3).unwrap();
    let shape = output.shape().unwrap().unwrap();
    let buffer = model.buffers().unwrap().unwrap().get(1).unwrap().table_view();
    let weights = buffer.vector::<u8>(0, "data").unwrap().unwrap();
    let op = sg.operators().unwrap().unwrap().get(0).unwrap().table_view();
    let options = op.table(4, "options").unwrap().unwrap();
    // A table's inline size is its vtable's second half-word.
    let at = options.position();
    let vtable = at - i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let options_len = u16::from_le_bytes([bytes[vtable + 2], bytes[vtable + 3]]) as usize;
    // (referrer, object, bytes, is a table, where)
    let moves = [
        (quant.table_view().field(3), zero_points.position(), 4 + 8 * zero_points.len(), false, (8, 4)),
        (output.table_view().field(0), shape.position(), 4 + 4 * shape.len(), false, (2, 1)),
        (buffer.field(0), weights.position(), 4 + weights.len(), false, (4, 1)),
        (op.field(4), at, options_len, true, (2, 1)),
    ];
    moves.into_iter().fold(bytes.to_vec(), |out, (referrer, pos, len, table, place)| {
        relocate(&out, referrer.unwrap(), pos, len, table, place)
    })
}

/// Keeps a committed fixture equal to what the writer makes.
fn committed(name: &str, bytes: &[u8]) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("ui/fixtures/{name}.tflite"));
    if std::env::var_os("TINYAOT_BLESS").is_some() {
        std::fs::write(&path, bytes).unwrap();
    }
    let on_disk =
        std::fs::read(&path).unwrap_or_else(|_| panic!("{} missing: run with TINYAOT_BLESS=1", path.display()));
    assert_eq!(on_disk, bytes, "{name}.tflite is stale: run with TINYAOT_BLESS=1");
}

#[test]
fn lenient_fixtures_are_current_and_accepted() {
    for (name, bytes) in lenient() {
        committed(name, &bytes);
        if let Err(e) = tinyaot_compiler::analyze(&bytes) {
            panic!("{name}: TFLM runs this model, tinyaot refused it: {}", e.message);
        }
    }
}

#[test]
fn fixtures_are_current_and_rejected() {
    for (name, bytes, expect) in fixtures() {
        committed(name, &bytes);
        let err = tinyaot_compiler::analyze(&bytes).err().unwrap_or_else(|| panic!("{name} compiled"));
        assert!(err.message.contains(expect), "{name}: {:?} does not contain {expect:?}", err.message);
    }
}

#[test]
fn the_base_fixture_compiles() {
    assert!(tinyaot_compiler::analyze(&fc_model(4, 3).to_bytes()).is_ok());
}
