//! Planner invariants on every real model we have: the plan is valid
//! (checked again here), never worse than TFLM's greedy planner, and never
//! below the lower bound.

use std::path::{Path, PathBuf};
use tinyaot_compiler::plan;

fn model_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut dirs = vec![root.join("tests/models")];
    let shared = std::env::var_os("TINYAOT_SHARED_MODELS").map(PathBuf::from).unwrap_or(root.join("../shared/models"));
    if shared.is_dir() {
        dirs.push(shared);
    } else {
        println!("SKIPPED shared models: {} not found", shared.display());
    }
    dirs
}

#[test]
fn every_plan_is_valid_and_at_least_as_good_as_tflm() {
    let mut checked = 0;
    for dir in model_dirs() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "tflite")) {
            let bytes = std::fs::read(f).unwrap();
            let Ok(a) = tinyaot_compiler::analyze(&bytes) else {
                println!("{}: not supported, skipped", f.display());
                continue;
            };
            let reqs = a.schedule.requests();
            plan::check(&reqs, &a.plan).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            plan::check(&a.tflm_requests, &a.tflm_greedy).unwrap_or_else(|e| panic!("{}: tflm: {e}", f.display()));
            assert!(a.plan.arena_size >= a.lower_bound, "{}", f.display());
            assert!(
                a.plan.arena_size <= a.tflm_greedy.arena_size,
                "{}: ours {} > TFLM greedy {}",
                f.display(),
                a.plan.arena_size,
                a.tflm_greedy.arena_size
            );
            println!(
                "{:<40} arena {:>7}  lower bound {:>7}  TFLM greedy {:>7}",
                f.file_name().unwrap().to_string_lossy(),
                a.plan.arena_size,
                a.lower_bound,
                a.tflm_greedy.arena_size
            );
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} models checked");
}

#[test]
fn branches_are_reordered_to_halve_the_arena() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/branches_int8.tflite");
    let bytes = std::fs::read(path).unwrap();
    let a = tinyaot_compiler::analyze(&bytes).unwrap();
    assert!(a.reordered(), "the wide-first order should be replaced");
    assert!(tinyaot_compiler::order::is_topological(&a.graph, &a.order));
    assert!(
        a.plan.arena_size * 3 / 2 < a.tflm_greedy.arena_size,
        "{} vs {}",
        a.plan.arena_size,
        a.tflm_greedy.arena_size
    );
}

#[test]
fn arena_limit_trades_fast_kernels_for_scratch_free_ones() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/conv_options_int8.tflite");
    let bytes = std::fs::read(path).unwrap();
    let fast = tinyaot_compiler::analyze(&bytes).unwrap();
    let direct = fast.direct_arena.expect("im2col kernels are chosen by default");
    let scratch_kernels = |a: &tinyaot_compiler::Analysis<'_>| a.choice.iter().filter(|v| v.scratch > 0).count();
    assert!(scratch_kernels(&fast) > 0);
    if direct < fast.plan.arena_size {
        // Their scratch sits at the peak: a limit at the direct plan's size
        // makes the planner give it up, and the plan fits.
        let opts = tinyaot_compiler::Options { arena_limit: Some(direct), ..Default::default() };
        let tight = tinyaot_compiler::analyze_with(&bytes, &opts).unwrap();
        assert!(tight.plan.arena_size <= direct);
        assert!(scratch_kernels(&tight) < scratch_kernels(&fast));
    } else {
        panic!("expected the im2col scratch of conv_options_int8 to cost arena ({direct} vs {})", fast.plan.arena_size);
    }
}

#[test]
fn variables_live_in_the_state_memory_not_the_arena() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/svdf_int8.tflite");
    let bytes = std::fs::read(path).unwrap();
    let a = tinyaot_compiler::analyze(&bytes).unwrap();
    let state = a.graph.tensors.iter().position(|t| t.is_variable).expect("the SVDF state is a variable");
    // int16 [2, 24]: 96 bytes, 16-aligned, at the start of the state memory.
    assert_eq!((a.state_offsets[state], a.state_size), (Some(0), 96));
    assert_eq!(a.tensor_offset(state), None, "a variable must not be planned in the arena");
    assert!(a.placements().iter().all(|p| !p.name.contains("state")));
    // Stateless models have no state memory.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/fc_chain_int8.tflite");
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(tinyaot_compiler::analyze(&bytes).unwrap().state_size, 0);
}

/// An operator's `Debug` shows the constants it computed: the FC layer's
/// requantization multiplier and shift are TFLite's for its scales.
#[test]
fn operators_show_their_constants() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/fc_chain_int8.tflite");
    let bytes = std::fs::read(path).unwrap();
    let a = tinyaot_compiler::analyze(&bytes).unwrap();
    let node = &a.graph.nodes[0];
    let scale = |i: usize| a.graph.tensors[i].quant.as_ref().expect("quantized").scales[0] as f64;
    let (x, w, y) = (node.inputs[0].unwrap(), node.inputs[1].unwrap(), node.outputs[0]);
    // TFLite's QuantizeMultiplier: significand in [0.5, 1) as Q0.31, exponent.
    let eff = scale(x) * scale(w) / scale(y);
    let mut s = eff.log2().floor() as i32 + 1;
    let mut m = (eff / 2f64.powi(s) * 2f64.powi(31)).round() as i64;
    if m == 1 << 31 {
        (m, s) = (m / 2, s + 1);
    }
    let shown = format!("{:?}", a.ops[0]);
    assert!(shown.starts_with("FullyConnected"), "{shown}");
    assert!(shown.contains(&format!("multiplier: [{m}")) && shown.contains(&format!("shift: [{s}")), "{shown}");
}
