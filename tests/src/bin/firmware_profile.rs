//! Where a model's time goes on a Cortex-M core: the estimated Cortex-M4
//! cycles and the instructions QEMU executes in each function of a
//! one-model firmware (the kernels are `#[inline(never)]`, so each op
//! family is its own line), most cycles first. The cycles follow the
//! Cortex-M4 TRM's timings whatever the core (meaningful on the M4F), as
//! `../shared/tools/qemu-m4cycles` does, less its unaligned-access cycles;
//! on the M55 its own model's (`tests/tools/qemu_m55cycles.c`), over the
//! invoke only.
//!
//! ```text
//! cargo run --release -p tinyaot-tests --bin firmware-profile MODEL [m4|m3|m0|...] [--ops]
//! ```
//!
//! The whole run is counted (start-up, the input copy and the output check
//! too); kernels run only inside `invoke()`. With `--ops`, the first
//! invoke's estimated M4 cycles op by op instead (the firmware runs it
//! through `invoke_with` and a hook that marks each op for the plugin).

use tinyaot_tests::firmware::{
    TARGETS, build, build_profiler, missing_toolchain, model_options, model_path, op_cycles, profile, repo,
    target_named, target_names,
};

fn main() -> Result<(), String> {
    if let Some(why) = missing_toolchain() {
        return Err(format!("{why}; run .ci/run first to install the Cortex-M toolchain"));
    }
    let (flags, mut args): (Vec<String>, Vec<String>) = std::env::args().skip(1).partition(|a| a.starts_with("--"));
    let per_op = flags.iter().any(|f| f == "--ops");
    if let Some(f) = flags.iter().find(|f| *f != "--ops") {
        return Err(format!("unknown option {f}"));
    }
    args.reverse();
    let usage = || format!("usage: firmware-profile MODEL [{}] [--ops]", target_names());
    let model = args.pop().ok_or_else(usage)?;
    let target = match args.pop() {
        None => &TARGETS[0],
        Some(t) => target_named(&t).ok_or_else(|| format!("unknown target {t}: one of {}", target_names()))?,
    };
    let dir = repo().join("target/firmware-report");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let so = build_profiler(&dir)?;
    if per_op {
        return print_ops(target, &model, &so, &dir);
    }
    let elf = build(target, Some(&model), &dir)?;
    let rows = profile(target, &elf, &model, &so, &dir)?;
    let total: u64 = rows.iter().map(|r| r.1).sum();
    let cycles: u64 = rows.iter().map(|r| r.2).sum();
    let core = if target.short == "m55" { "Cortex-M55" } else { "Cortex-M4" };
    println!("{model} on {}: {total} instructions, {cycles} estimated {core} cycles in all", target.core);
    println!("{:>12}  {:>6}  {:>12}  {:>6}  function", "cycles", "", "instructions", "");
    for (name, n, k) in rows.iter().take(25) {
        let name: String = name.chars().take(100).collect();
        let share = |part: u64, all: u64| 100.0 * part as f64 / all.max(1) as f64;
        println!("{k:>12}  {:>5.1}%  {n:>12}  {:>5.1}%  {name}", share(*k, cycles), share(*n, total));
    }
    Ok(())
}

/// `--ops`: each op of the first invoke, in the order it ran, with its
/// estimated M4 cycles and share.
fn print_ops(
    target: &tinyaot_tests::firmware::Target,
    model: &str,
    so: &std::path::Path,
    dir: &std::path::Path,
) -> Result<(), String> {
    let path = model_path(model).ok_or_else(|| format!("no model {model} with reference vectors"))?;
    let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
    let a = tinyaot_compiler::analyze_with(&bytes, &model_options(target, model, &bytes)).map_err(|e| e.message)?;
    let ops = op_cycles(target, Some(model), so, dir)?.pop().ok_or("the model did not run")?.1;
    let total: u64 = ops.iter().map(|o| o.1).sum();
    println!("{model} on {}: {total} estimated Cortex-M4 cycles in its ops", target.core);
    println!("{:>4}  {:<28} {:>9} {:>12} {:>6}", "#", "op", "sg:index", "M4 cycles", "share");
    for &(position, cycles) in &ops {
        let node = &a.graph.nodes[a.order[position]];
        println!(
            "{position:>4}  {:<28} {:>9} {cycles:>12} {:>5.1}%",
            node.name,
            format!("{}:{}", node.subgraph, node.index),
            100.0 * cycles as f64 / total.max(1) as f64
        );
    }
    Ok(())
}
