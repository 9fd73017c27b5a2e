//! The compiler's FlexBuffers reader (custom operators' options) against
//! the project's writer, on hostile bytes, and on the custom operators of
//! the shared audio front-end models when that folder exists.

use tinyaot_compiler::tflite::flexbuffer::FlexMap;
use tinyaot_tests::writer::{Flex, flexbuffer_map};

#[test]
fn reads_what_the_writer_wrote_in_key_order() {
    let bytes = flexbuffer_map(&[
        ("zeta", Flex::Int(-7)),
        ("alpha", Flex::Ints(vec![3, -1, 1 << 40])),
        ("mid", Flex::Bool(true)),
        ("beta", Flex::Int(i64::MAX)),
    ]);
    let map = FlexMap::root(&bytes).unwrap();
    assert_eq!(map.len(), 4);
    // Values by position, keys sorted: alpha, beta, mid, zeta.
    assert_eq!(map.ints(0).unwrap(), vec![3, -1, 1 << 40]);
    assert_eq!(map.int(1).unwrap(), i64::MAX);
    assert!(map.bool(2).unwrap());
    assert_eq!(map.int(3).unwrap(), -7);
    assert!(map.int(4).is_err(), "past the end");
    assert!(map.int(0).is_err(), "a vector is not a number");
    assert!(map.ints(1).is_err(), "a number is not a vector");
}

#[test]
fn hostile_bytes_are_errors_not_panics() {
    let good = flexbuffer_map(&[("a", Flex::Ints(vec![1, 2, 3])), ("b", Flex::Int(5))]);
    for cut in 0..good.len() {
        if let Ok(map) = FlexMap::root(&good[cut..]) {
            let _ = (map.ints(0), map.int(1));
        }
        if let Ok(map) = FlexMap::root(&good[..cut]) {
            let _ = (map.ints(0), map.int(1));
        }
    }
    for i in 0..good.len() {
        for v in [0u8, 0x7F, 0xFF] {
            let mut bad = good.clone();
            bad[i] = v;
            if let Ok(map) = FlexMap::root(&bad) {
                for k in 0..map.len() {
                    let _ = (map.ints(k), map.int(k));
                }
            }
        }
    }
    assert!(FlexMap::root(&[]).is_err());
}

#[test]
fn reads_the_shared_audio_front_ends_options() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/models");
    let path = dir.join("audio_preprocessor_int8.tflite");
    let Ok(bytes) = std::fs::read(&path) else {
        println!("{} not found: skipped (CI has it)", path.display());
        return;
    };
    let model = tinyaot_compiler::tflite::read(&bytes).unwrap();
    let graph = tinyaot_compiler::graph::Graph::read(&model).unwrap();
    let mut customs = 0;
    for node in graph.nodes.iter().filter(|n| n.code == 32) {
        // FFT_AUTO_SCALE has no parameters.
        if let Some(options) = node.custom_options {
            let map = FlexMap::root(options).unwrap_or_else(|e| panic!("{}: {}", node.name, e.message));
            let values: Vec<String> = (0..map.len())
                .map(|k| map.int(k).map(|v| v.to_string()).or_else(|_| map.ints(k).map(|v| format!("{v:?}"))))
                .collect::<Result<_, _>>()
                .unwrap_or_else(|e| panic!("{}: {}", node.name, e.message));
            println!("{}: {values:?}", node.name);
        }
        customs += 1;
    }
    assert_eq!(customs, 9, "the int8 front end has nine signal ops");
    // WINDOW's one option, `shift`, is 12 in TFLM's audio front end.
    let window = graph.nodes.iter().find(|n| n.name == "CUSTOM:SignalWindow").unwrap();
    assert_eq!(FlexMap::root(window.custom_options.unwrap()).unwrap().int(0).unwrap(), 12);
}
