//! The hostile and unsupported models the compile-fail tests use, written
//! by `tinyaot_tests::writer`. This test keeps the committed files in
//! `tests/ui/fixtures` equal to what the writer makes (`TINYAOT_BLESS=1`
//! rewrites them) and checks the compiler's verdict on each.

use std::path::Path;
use tinyaot_tests::writer::{OpDef, QuantDef, TensorDef, dtype, fc_model};

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

    let mut m = base.clone();
    m.subgraphs.push(m.subgraphs[0].clone());
    v.push(("two_subgraphs", m.to_bytes(), "2 subgraphs"));

    let mut m = base.clone();
    m.opcodes = vec![(7, None)]; // EMBEDDING_LOOKUP
    m.subgraphs[0].ops[0].options = None;
    v.push(("unsupported_op", m.to_bytes(), "op 0 (EMBEDDING_LOOKUP): operator not supported"));

    let mut m = base.clone();
    for t in [0, 3] {
        m.subgraphs[0].tensors[t].dtype = dtype::U8;
    }
    v.push(("unsupported_dtype", m.to_bytes(), "input uint8, weights int8, output uint8 is not supported"));

    let mut m = base.clone();
    m.subgraphs[0].tensors[3].shape = vec![1, 5];
    v.push(("shape_mismatch", m.to_bytes(), "has shape [1, 5], but the op's inputs give [1, 3]"));

    let mut m = base.clone();
    m.subgraphs[0].tensors[0].shape = vec![-1, 4];
    v.push(("dynamic_dim", m.to_bytes(), "dynamic (-1) dimension"));

    let mut m = base.clone();
    m.subgraphs[0].tensors[0].shape = vec![65536, 65536, 4];
    v.push(("huge_tensor", m.to_bytes(), "too large for any microcontroller"));

    let mut m = base.clone();
    m.subgraphs[0].tensors[1].buffer = 99;
    v.push(("buffer_oob", m.to_bytes(), "refers to buffer 99, which does not exist"));

    let mut m = base.clone();
    m.subgraphs[0].tensors.push(TensorDef::new("dead", &[1, 4], dtype::I8, QuantDef::per_tensor(1.0, 0)));
    m.subgraphs[0].ops[0].inputs[0] = 4;
    v.push(("read_before_write", m.to_bytes(), "reads tensor 'dead' before any op writes it"));

    let mut m = base;
    m.subgraphs[0].ops.push(OpDef { opcode: 0, inputs: vec![3, 1, 2], outputs: vec![3], options: None });
    v.push(("fc_bad_depth", m.to_bytes(), "not a multiple of the weights' depth"));
    v
}

#[test]
fn fixtures_are_current_and_rejected() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/fixtures");
    let bless = std::env::var_os("TINYAOT_BLESS").is_some();
    for (name, bytes, expect) in fixtures() {
        let path = dir.join(format!("{name}.tflite"));
        if bless {
            std::fs::write(&path, &bytes).unwrap();
        }
        let committed =
            std::fs::read(&path).unwrap_or_else(|_| panic!("{} missing: run with TINYAOT_BLESS=1", path.display()));
        assert_eq!(committed, bytes, "{name}.tflite is stale: run with TINYAOT_BLESS=1");
        let err = tinyaot_compiler::analyze(&bytes).err().unwrap_or_else(|| panic!("{name} compiled"));
        assert!(err.message.contains(expect), "{name}: {:?} does not contain {expect:?}", err.message);
    }
}

#[test]
fn the_base_fixture_compiles() {
    assert!(tinyaot_compiler::analyze(&fc_model(4, 3).to_bytes()).is_ok());
}
