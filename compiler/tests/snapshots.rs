//! Snapshots (naga's way): for a handful of the project's models, the plan
//! report and the generated code, pretty-printed, are checked in under
//! `tests/snapshots/`, so a change to what the compiler emits is a diff a
//! reviewer reads. `TINYAOT_BLESS=1` rewrites them after a deliberate change.

use std::path::Path;
use tinyaot_compiler::codegen::{Ident, Span};
use tinyaot_compiler::{Options, Target, compile};

/// Each kind of model once: convolutions and pools, a residual ADD, state
/// (LSTM, SVDF), control flow, a streaming CIRCULAR_BUFFER, compressed
/// weights (DECODE's graph pass), hybrid layers (LiteRT's kernels).
const MODELS: &[&str] = &[
    "ds_cnn_kws_int8",
    "resnet_block_int8",
    "lstm_int8",
    "svdf_int8",
    "control_if_int8",
    "streaming_kws_int8",
    "lut_compressed_int8",
    "hybrid_float",
    "legacy_uint8",
];

/// Models snapshotted again with their inputs borrowed and kept (the
/// other forms of the generated `invoke` and accessors), and split over two
/// memory regions with weights copied into one (one arena per region in the
/// type, `run` and `new`; the copies made in `new`, read in `run`).
const BORROWED: &[&str] = &["ds_cnn_kws_int8", "control_if_int8"];

/// Models snapshotted again as planned for Helium (the vector depthwise,
/// no ring of widened rows).
const HELIUM: &[&str] = &["ds_cnn_kws_int8"];

fn generated(model: &str, opts: &Options) -> (String, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models");
    let bytes = std::fs::read(dir.join(format!("{model}.tflite"))).unwrap();
    let target = Target { vis: Default::default(), name: Ident::new("Model", Span::call_site()), track_path: None };
    let compiled = compile(&bytes, &target, opts).unwrap_or_else(|e| panic!("{model}: {}", e.message));
    let code = match syn::parse2::<syn::File>(compiled.tokens.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(e) => panic!("{model}: the generated code does not parse as Rust items: {e}"),
    };
    (compiled.report, code)
}

#[test]
fn generated_code_and_plans_match_their_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let bless = std::env::var_os("TINYAOT_BLESS").is_some();
    let mut stale = Vec::new();
    let borrowed = Options { borrowed_inputs: true, ..Options::default() };
    let kept = Options { keep_inputs: true, ..Options::default() };
    let region = |name: &str, section: &str, budget| tinyaot_compiler::regions::Region {
        name: name.into(),
        section: Some(section.into()),
        budget,
    };
    // 2 KB of activations in the fast region, and its weights copied there.
    let split = Options {
        regions: vec![region("dtcm", ".dtcm", 8192), region("sram", ".sram2", 65536)],
        copy_weights: Some(("dtcm".into(), 6144)),
        ..Options::default()
    };
    let runs = MODELS.iter().map(|m| (m.to_string(), Options::default())).chain(BORROWED.iter().flat_map(|m| {
        [
            (format!("{m}.borrowed"), borrowed.clone()),
            (format!("{m}.kept"), kept.clone()),
            (format!("{m}.regions"), split.clone()),
        ]
    }));
    let helium = Options { helium: true, ..Options::default() };
    let runs = runs.chain(HELIUM.iter().map(|m| (format!("{m}.helium"), helium.clone())));
    for (model, opts) in runs {
        let source = model.split('.').next().unwrap_or(&model);
        let (report, code) = generated(source, &opts);
        // What each target runs is selected in the runtime (`__private::by_family!`
        // and friends): the user's crate never sees a `cfg` of ours.
        assert!(!code.contains("cfg("), "{model}: the generated code holds a cfg");
        for (file, text) in [(format!("{model}.plan.txt"), report), (format!("{model}.rs.txt"), code)] {
            let path = dir.join(&file);
            if bless {
                std::fs::write(&path, &text).unwrap();
            }
            let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
            if on_disk != text {
                stale.push(file);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "generated output differs from its snapshot (review the change, then TINYAOT_BLESS=1): {stale:?}"
    );
}
