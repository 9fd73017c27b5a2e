//! Bad and hostile input: every corrupted model is an error or a valid
//! compile, never a panic; fuzzer crashers stay fixed.

use std::path::Path;
use tinyaot_compiler::codegen::{Ident, Span};
use tinyaot_compiler::{Options, Target, compile};

fn target() -> Target {
    Target { vis: Default::default(), name: Ident::new("M", Span::call_site()), track_path: None }
}

fn limit(arena_limit: Option<usize>) -> Options {
    Options { arena_limit, ..Options::default() }
}

/// Ok(()) for a successful compile, Err(message) for a diagnostic; a panic
/// fails the calling test with the input's description.
fn outcome(bytes: &[u8], what: &str) -> Result<(), String> {
    outcome_with(bytes, what, true)
}

/// [`outcome`], with a tight arena limit too (`tight`), so the over-budget
/// report (its search for a plan that fits) runs on the input.
fn outcome_with(bytes: &[u8], what: &str, tight: bool) -> Result<(), String> {
    if tight {
        let tight = std::panic::catch_unwind(|| compile(bytes, &target(), &limit(Some(64))).map(|_| ()));
        assert!(tight.is_ok(), "the compiler panicked on {what} with arena_limit = 64");
    }
    match std::panic::catch_unwind(|| compile(bytes, &target(), &limit(None)).map(|_| ()).map_err(|e| e.message)) {
        Ok(r) => r,
        Err(_) => panic!("the compiler panicked on {what}"),
    }
}

fn real_model() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/ds_cnn_kws_int8.tflite")).unwrap()
}

#[test]
fn fuzz_crashers_are_errors() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crashers");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let bytes = std::fs::read(&p).unwrap();
        let _ = outcome(&bytes, &p.display().to_string());
        n += 1;
    }
    assert!(n > 0);
}

#[test]
fn every_truncation_is_an_error() {
    let model = real_model();
    assert!(outcome(&model, "the intact model").is_ok());
    for len in 0..model.len() {
        let r = outcome(&model[..len], &format!("the model truncated to {len} bytes"));
        assert!(r.is_err(), "truncated to {len} bytes but compiled");
    }
}

#[test]
fn corrupted_root_is_an_error_and_identifier_is_not_checked() {
    let model = real_model();
    for i in 0..8 {
        let mut m = model.clone();
        m[i] ^= 0xA5;
        let r = outcome(&m, &format!("byte {i} flipped"));
        // TFLM casts the bytes without looking at the identifier: a model
        // whose structure reads is a model, whatever bytes 4..8 say.
        assert_eq!(r.is_err(), i < 4, "header byte {i} flipped: {r:?}");
    }
}

/// Every byte of the file's structure (header, vtables, tables, vectors)
/// and a sample of its constant data (each buffer's first and last 8 bytes,
/// every 61st between: a weight's value changes no path of the compile) set
/// to three hostile values: the compiler must answer, not panic or hang.
#[test]
fn every_byte_mutated_answers_without_panic() {
    let model = real_model();
    let data: Vec<std::ops::Range<usize>> = {
        let read = tinyaot_compiler::tflite::read(&model).unwrap();
        let buffers = read.buffers().unwrap().unwrap();
        buffers
            .iter()
            .filter_map(|b| b.unwrap().data().unwrap())
            .map(|d| {
                let start = d.as_ptr() as usize - model.as_ptr() as usize;
                start + 8..(start + d.len()).saturating_sub(8)
            })
            .collect()
    };
    let sampled = |i: usize| data.iter().all(|r| !r.contains(&i) || (i - r.start).is_multiple_of(61));
    let full = std::env::var_os("TINYAOT_HOSTILE_FULL").is_some();
    let (mut errors, mut compiled) = (0, 0);
    for i in (0..model.len()).filter(|&i| sampled(i)) {
        for v in [0x00u8, 0xFF, model[i] ^ 0x80] {
            if v == model[i] {
                continue;
            }
            let mut m = model.clone();
            m[i] = v;
            // The over-budget search for one mutation in 8 (every one with
            // `TINYAOT_HOSTILE_FULL=1`).
            let tight = full || (i + v as usize).is_multiple_of(8);
            match outcome_with(&m, &format!("byte {i} set to {v:#04x}"), tight) {
                Ok(()) => compiled += 1,
                Err(_) => errors += 1,
            }
        }
    }
    println!("{} mutations: {errors} rejected with a diagnostic, {compiled} still valid models", errors + compiled);
    assert!(errors > 1000, "too few mutations were rejected: {errors}");
}

/// The model TFLM's compression tool wrote (DECODE ops and their
/// look-up tables, `tests/models/lut_compressed_int8`): bytes spread over
/// the file set to hostile values, so the compile-time decoder sees
/// corrupted headers, tables and indices. An answer each time, never a
/// panic; the over-budget search on one mutation in 8. (Every third byte,
/// 9,762 mutations, passes too: too slow for every run.)
#[test]
fn compressed_model_mutated_answers_without_panic() {
    let model = project_model("lut_compressed_int8");
    let errors = every_step_mutated(&model, 37, true);
    assert!(errors > 100, "too few mutations of the compressed model were rejected: {errors}");
}

/// A model whose weights the converter stored after the flatbuffer
/// (`tests/models/buffer_offset_float`: buffers addressed by `offset` and
/// `size`): offsets and sizes set to hostile values point outside the
/// file or into the tables, and each mutation is answered, never a panic.
#[test]
fn buffer_offset_model_mutated_answers_without_panic() {
    let model = project_model("buffer_offset_float");
    let errors = every_step_mutated(&model, 3, false);
    // Past the end of the file by one byte: one clear error.
    let read = tinyaot_compiler::tflite::read(&model).unwrap();
    let buffers = read.buffers().unwrap().unwrap();
    let external = buffers.iter().map(|b| b.unwrap()).find(|b| b.offset().unwrap() > 1).unwrap();
    let (offset, size) = (external.offset().unwrap() as usize, external.size().unwrap() as usize);
    let message = outcome(&model[..offset + size - 1], "the file cut inside its last weights").unwrap_err();
    assert!(message.contains("lie outside the"), "{message}");
    assert!(errors > 100, "too few mutations were rejected: {errors}");
}

/// `tests/models/NAME.tflite`, checked to compile as it is.
fn project_model(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../tests/models/{name}.tflite"));
    let model = std::fs::read(path).unwrap();
    assert!(outcome(&model, &format!("{name} intact")).is_ok());
    model
}

/// Every `step`-th byte of `model` set to three hostile values, each
/// mutation answered (a panic fails the test); with `tight`, the
/// over-budget search on one mutation in 8. Returns how many were errors.
fn every_step_mutated(model: &[u8], step: usize, tight: bool) -> usize {
    let mut errors = 0;
    for i in (0..model.len()).step_by(step) {
        for v in [0x00u8, 0xFF, model[i] ^ 0x80] {
            let mut m = model.to_vec();
            m[i] = v;
            let tight = tight && (i / step + v as usize).is_multiple_of(8);
            errors += outcome_with(&m, &format!("byte {i} set to {v:#04x}"), tight).is_err() as usize;
        }
    }
    errors
}
