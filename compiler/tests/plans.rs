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

/// Every `.tflite` file in the model folders, sorted, with its bytes.
fn model_files() -> Vec<(PathBuf, Vec<u8>)> {
    let mut models = Vec::new();
    for dir in model_dirs() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files.into_iter().filter(|f| f.extension().is_some_and(|e| e == "tflite")) {
            let bytes = std::fs::read(&f).unwrap();
            models.push((f, bytes));
        }
    }
    models
}

#[test]
fn every_plan_is_valid_and_at_least_as_good_as_tflm() {
    let mut checked = 0;
    for (f, bytes) in model_files() {
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
    assert_eq!(a.tensor_place(state), None, "a variable must not be planned in the arena");
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

/// Over two memory regions, on every model: each region's plan is valid
/// and within its budget, every buffer is in exactly one region, no buffer
/// in the fast region is colder than one that would have fit there in its
/// place at no cost (the hottest buffer that fits the fast region alone is
/// there), and `copy_weights` picks ops by reads per weight byte within
/// its budget.
#[test]
fn region_plans_are_valid_and_the_hottest_bytes_are_in_the_fast_region() {
    use tinyaot_compiler::regions::Region;
    let mut checked = 0;
    for (f, bytes) in model_files() {
        let Ok(one) = tinyaot_compiler::analyze(&bytes) else { continue };
        let fast = one.plan.arena_size / 3 / 16 * 16 + 2048;
        let opts = tinyaot_compiler::Options {
            regions: vec![
                Region { name: "fast".into(), section: None, budget: fast },
                Region { name: "slow".into(), section: None, budget: 1 << 24 },
            ],
            copy_weights: Some(("fast".into(), 2048)),
            ..Default::default()
        };
        let a = tinyaot_compiler::analyze_with(&bytes, &opts).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let split = a.regions.as_ref().expect("regions planned");
        let reqs = a.schedule.requests();
        assert_eq!(split.members.iter().map(Vec::len).sum::<usize>(), reqs.len(), "{}", f.display());
        for (k, members) in split.members.iter().enumerate() {
            let sub = tinyaot_compiler::regions::subset(&reqs, members);
            plan::check(&sub, &split.plans[k]).unwrap_or_else(|e| panic!("{} region {k}: {e}", f.display()));
            for (i, &b) in members.iter().enumerate() {
                assert_eq!(split.places[b], (k, split.plans[k].offsets[i]));
            }
        }
        // The copies come off the fast region's budget.
        assert!(split.plans[0].arena_size + 2048 <= fast, "{}: fast region over budget", f.display());
        // The hottest buffer that fits the fast region alone is there
        // (or one as hot: ties go to the smaller).
        let fits = (0..reqs.len()).filter(|&b| plan::align(reqs[b].size) + 2048 <= fast);
        if let Some(hottest) = fits.map(|b| split.heat[b]).max_by(f64::total_cmp) {
            let in_fast = (0..reqs.len()).filter(|&b| split.places[b].0 == 0).map(|b| split.heat[b]);
            assert_eq!(
                in_fast.max_by(f64::total_cmp),
                Some(hottest),
                "{}: the hottest buffer is not in the fast region",
                f.display()
            );
        }
        let copy = a.weight_copy.as_ref().expect("copy_weights chosen");
        assert_eq!((copy.region, copy.budget), (0, 2048));
        assert!(copy.offset >= split.plans[0].arena_size && copy.offset.is_multiple_of(16));
        checked += 1;
    }
    assert!(checked > 50, "only {checked} models checked");
}

/// A plan for Helium (`Options::helium`, the runtime's `helium` feature)
/// runs every depthwise layer the vector kernel takes on it, with no
/// scratch: never a larger arena than the plain plan, valid, and on the
/// keyword model (whose peak is a depthwise layer's ring of widened rows)
/// smaller. Layers the vector kernel does not take keep their variants.
#[test]
fn helium_plans_take_the_vector_depthwise_without_scratch() {
    use tinyaot_compiler::lowering::variant::Kernel;
    let helium = tinyaot_compiler::Options { helium: true, ..Default::default() };
    let (mut vector_ops, mut smaller) = (0, Vec::new());
    for (f, bytes) in model_files() {
        let (Ok(plain), Ok(a)) = (tinyaot_compiler::analyze(&bytes), tinyaot_compiler::analyze_with(&bytes, &helium))
        else {
            continue;
        };
        let name = f.file_stem().unwrap().to_string_lossy().to_string();
        plan::check(&a.schedule.requests(), &a.plan).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            a.plan.arena_size <= plain.plan.arena_size,
            "{name}: {} > {}",
            a.plan.arena_size,
            plain.plan.arena_size
        );
        for (n, v) in a.choice.iter().enumerate() {
            let offered = a.ops[n].vector_variant();
            assert!(v.kernel != Kernel::WidenedRows || offered.is_none(), "{name}: op {n} kept its ring");
            if v.kernel == Kernel::Vector {
                assert_eq!((Some(*v), v.scratch), (offered, 0), "{name}: op {n}");
                vector_ops += 1;
            }
        }
        if a.plan.arena_size < plain.plan.arena_size {
            smaller.push(name);
        }
    }
    assert!(vector_ops > 0, "no depthwise layer took the vector kernel");
    assert!(smaller.iter().any(|m| m == "ds_cnn_kws_int8"), "smaller arenas: {smaller:?}");
}
