//! Where a model's time goes on a Cortex-M core: the estimated Cortex-M4
//! cycles and the instructions QEMU executes in each function of a
//! one-model firmware (the kernels are `#[inline(never)]`, so each op
//! family is its own line), most cycles first. The cycles follow the
//! Cortex-M4 TRM's timings whatever the core (meaningful on the M4F), as
//! `../shared/tools/qemu-m4cycles` does, less its unaligned-access cycles.
//!
//! ```text
//! cargo run --release -p tinyaot-tests --bin firmware-profile MODEL [m4|m3|m0|rv32imc|rv32imac]
//! ```
//!
//! The whole run is counted (start-up, the input copy and the output check
//! too); kernels run only inside `invoke()`.

use tinyaot_tests::firmware::{
    TARGETS, build, build_profiler, missing_toolchain, profile, repo, target_named, target_names,
};

fn main() -> Result<(), String> {
    if let Some(why) = missing_toolchain() {
        return Err(format!("{why}; run .ci/run first to install the Cortex-M toolchain"));
    }
    let mut args = std::env::args().skip(1);
    let model = args.next().ok_or_else(|| format!("usage: firmware-profile MODEL [{}]", target_names()))?;
    let target = match args.next() {
        None => &TARGETS[0],
        Some(t) => target_named(&t).ok_or_else(|| format!("unknown target {t}: one of {}", target_names()))?,
    };
    let dir = repo().join("target/firmware-report");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let so = build_profiler(&dir)?;
    let elf = build(target, Some(&model), &dir)?;
    let rows = profile(target, &elf, &model, &so, &dir)?;
    let total: u64 = rows.iter().map(|r| r.1).sum();
    let cycles: u64 = rows.iter().map(|r| r.2).sum();
    println!("{model} on {}: {total} instructions, {cycles} estimated Cortex-M4 cycles in all", target.core);
    println!("{:>12}  {:>6}  {:>12}  {:>6}  function", "M4 cycles", "", "instructions", "");
    for (name, n, k) in rows.iter().take(25) {
        let name: String = name.chars().take(100).collect();
        let share = |part: u64, all: u64| 100.0 * part as f64 / all.max(1) as f64;
        println!("{k:>12}  {:>5.1}%  {n:>12}  {:>5.1}%  {name}", share(*k, cycles), share(*n, total));
    }
    Ok(())
}
