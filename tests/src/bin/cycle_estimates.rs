//! The compiler's cycle estimates against the cycle estimator, per model
//! and per op: one firmware with every model that fits the board, built
//! with `TINYAOT_FW_MARKS=1` (each invoke through a hook that marks every
//! op) and run under the profiling plugin, gives each op's Cortex-M4
//! cycles in the first invoke; `tinyaot_compiler::Analysis::op_cycles` is
//! what `CYCLES_M4` and `PLAN.ops[i].cycles_m4` say.
//!
//! ```text
//! cargo run --release -p tinyaot-tests --bin cycle-estimates [m4] [MODEL...] [--csv FILE]
//! ```
//!
//! Models named run in a firmware of their own, whatever the board's
//! budget (the benchmark set: `TINYAOT_SHARED_MODELS=folder` with their
//! reference vectors, as for `firmware-report`).
//!
//! Prints one row per model (measured, estimated, ratio), most MACs first,
//! and how many models are within 15%; `--csv` writes one row per op (the
//! features the estimates are fitted on).

use std::fmt::Write;
use tinyaot_tests::firmware::{
    TARGETS, build_profiler, missing_toolchain, model_options, model_path, op_cycles, repo, target_named,
};

fn main() -> Result<(), String> {
    if let Some(why) = missing_toolchain() {
        return Err(format!("{why}; run .ci/run first to install the Cortex-M toolchain"));
    }
    let mut args = std::env::args().skip(1);
    let (mut target, mut csv_path, mut models) = (&TARGETS[0], None, Vec::new());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--csv" => csv_path = Some(args.next().ok_or("--csv FILE")?),
            t => match target_named(t) {
                Some(core) => target = core,
                None => models.push(a),
            },
        }
    }
    let only = (!models.is_empty()).then(|| models.join(","));
    let dir = repo().join("target/firmware-report");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let so = build_profiler(&dir)?;
    let measured = op_cycles(target, only.as_deref(), &so, &dir)?;
    let mut csv = String::from("model,position,op,arithmetic,outputs,inputs,macs,kernel,variants,measured,estimated\n");
    let mut rows = Vec::new();
    for (model, ops) in &measured {
        let path = model_path(model).ok_or_else(|| format!("no file for {model}"))?;
        let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
        let a = tinyaot_compiler::analyze_with(&bytes, &model_options(target, model, &bytes)).map_err(|e| e.message)?;
        let estimates = a.op_cycles();
        // A WHILE body runs its ops several times: sum per position.
        let mut got = vec![0u64; estimates.len()];
        for &(p, c) in ops {
            got[p] += c;
        }
        for (p, (&m, &e)) in got.iter().zip(&estimates).enumerate() {
            let n = a.order[p];
            let node = &a.graph.nodes[n];
            let (outputs, inputs) = tinyaot_compiler::lowering::cost::sizes(node, &a.graph);
            let arithmetic = tinyaot_compiler::lowering::cost::arithmetic(node, &a.graph);
            let _ = writeln!(
                csv,
                "{model},{p},{},{arithmetic},{outputs},{inputs},{},{},{},{m},{e}",
                node.name,
                a.ops[n].macs(),
                a.choice[n].kernel.name(),
                a.variants[n].len()
            );
        }
        let (m, e): (u64, u64) = (got.iter().sum(), estimates.iter().sum());
        rows.push((a.macs(), model.clone(), m, e));
    }
    rows.sort_by_key(|r| std::cmp::Reverse(r.0));
    println!("| model | MACs | measured M4 cycles | estimated | estimate / measured |\n|---|---:|---:|---:|---:|");
    let mut within = 0;
    for (macs, model, m, e) in &rows {
        let ratio = *e as f64 / (*m).max(1) as f64;
        within += usize::from((ratio - 1.0).abs() <= 0.15);
        println!("| {model} | {macs} | {m} | {e} | {ratio:.2} |");
    }
    println!("{within} of {} models within 15% on {}", rows.len(), target.core);
    if let Some(p) = csv_path {
        std::fs::write(&p, csv).map_err(|e| e.to_string())?;
        println!("per-op rows written to {p}");
    }
    Ok(())
}
