//! Per model and Cortex-M target: flash, RAM, instructions per inference
//! and, on the M4F and the M55, estimated cycles per inference.
//!
//! ```text
//! cargo run --release -p tinyaot-tests --bin firmware-report [--peer] [MODEL ...] [m4|m3|m0|rv32imc|rv32imac|m7|m33|m55 ...]
//! ```
//!
//! Without model names every model the firmware holds is measured; without
//! target names every target. Models come from `tests/models` and the shared
//! folder (`TINYAOT_SHARED_MODELS` points it elsewhere, e.g. at a folder of
//! benchmark models with their reference vectors).
//!
//! For each target it builds the all-models firmware to learn which models
//! fit the board, then one firmware per model (`TINYAOT_FW_ONLY`) and an
//! empty one: flash = .text + .rodata, RAM = .data + .bss, each as the
//! difference from the empty firmware, and the instructions QEMU executes
//! between the markers around one `invoke()`; on the M4F also the cycles
//! `../shared/tools/qemu-m4cycles` estimates for them from the Cortex-M4
//! TRM's timings (zero wait states), on the M55 those of the project's
//! Cortex-M55 model (`tests/tools/qemu_m55cycles.c`). Writes the Markdown table to stdout
//! and to `target/firmware-report.md`.
//!
//! `--peer` adds TFLM beside each row (CMSIS-NN's kernels on Arm, TFLM's
//! reference kernels on RV32; `tests/tools/tflm-peer`, built once per core
//! by its `setup.sh`): its flash, its RAM (arena used + static), its cycles
//! on the M4 and M55 (by the same model) or instructions elsewhere, and
//! ours over its.

use std::fmt::Write;
use tinyaot_tests::firmware::{
    TARGETS, build, build_counter, build_cycle_counter, count, cycles, missing_toolchain, model_options, model_path,
    repo, run, sections, target_named,
};
use tinyaot_tests::peer::{peer_core, run_peer};

fn main() -> Result<(), String> {
    if let Some(why) = missing_toolchain() {
        return Err(format!("{why}; run .ci/run first to install the Cortex-M toolchain"));
    }
    let (flags, args): (Vec<String>, Vec<String>) = std::env::args().skip(1).partition(|a| a.starts_with("--"));
    let with_peer = flags.iter().any(|f| f == "--peer");
    if let Some(f) = flags.iter().find(|f| *f != "--peer") {
        return Err(format!("unknown flag {f} (known: --peer)"));
    }
    let (cores, filter): (Vec<String>, Vec<String>) = args.into_iter().partition(|a| target_named(a).is_some());
    let target_dir = repo().join("target/firmware-report");
    std::fs::create_dir_all(&target_dir).map_err(|e| e.to_string())?;
    let so = build_counter(&target_dir)?;
    let mut md = String::new();
    let _ = write!(
        md,
        "| model | target | flash B (weights) | RAM B (arena) | cycles / inference (M4, M55) | cycles / MAC | instructions / inference | MACs | instr / MAC |"
    );
    let _ = writeln!(
        md,
        "{}",
        if with_peer {
            " TFLM flash B | TFLM RAM B | TFLM cycles (M4, M55) or instructions | ours / TFLM: time | flash | RAM |"
        } else {
            ""
        }
    );
    let _ = writeln!(
        md,
        "|---|---|---:|---:|---:|---:|---:|---:|---:|{}",
        if with_peer { "---:|---:|---:|---:|---:|---:|" } else { "" }
    );
    for t in TARGETS.iter().filter(|t| cores.is_empty() || cores.iter().any(|c| c == t.short)) {
        let all = build(t, None, &target_dir)?;
        let listing = run(t, &all, None, None)?;
        // Models that did not give their reference outputs are left out of
        // the table: say which, and what the firmware said.
        for line in listing.stdout.lines().filter(|l| !l.ends_with(": ok") && !l.trim().is_empty()) {
            eprintln!("{}: {line}", t.core);
        }
        let models: Vec<String> = listing
            .stdout
            .lines()
            .filter_map(|l| l.strip_suffix(": ok").map(str::to_string))
            .filter(|m| filter.is_empty() || filter.contains(m))
            .collect();
        // Tiled twins asked for by name (`vww_96_int8_tiled`) of models that fit.
        let twins = filter.iter().filter(|f| {
            f.strip_suffix("_tiled").is_some_and(|base| listing.stdout.lines().any(|l| l == format!("{base}: ok")))
        });
        let mut models: Vec<String> =
            models.iter().cloned().chain(twins.filter(|f| !models.contains(f)).cloned()).collect();
        // Models asked for by name beyond the board budget of the firmware
        // with every model: a firmware of their own, listed if it gives
        // their reference outputs.
        let alone: Vec<&String> = filter.iter().filter(|f| !models.contains(f) && !f.ends_with("_tiled")).collect();
        for m in alone {
            if model_path(m).is_none() {
                continue;
            }
            // A model beyond the board's flash or RAM fails to link: say so
            // and go on.
            let elf = match build(t, Some(m), &target_dir) {
                Ok(elf) => elf,
                Err(e) => {
                    let why = e.lines().find(|l| l.contains("will not fit") || l.contains("overflow")).unwrap_or("");
                    eprintln!("{}: {m} does not fit the board: {}", t.core, why.trim());
                    continue;
                }
            };
            let ran = run(t, &elf, Some(m), None)?;
            if ran.stdout.lines().any(|l| l == format!("{m}: ok")) {
                models.push(m.clone());
            } else {
                eprintln!("{}: {m} alone: {}", t.core, ran.stdout.trim());
            }
        }
        let empty = build(t, Some("-"), &target_dir)?;
        let (bt, br, bd, bb) = sections(&empty)?;
        for m in &models {
            let elf = build(t, Some(m), &target_dir)?;
            let (tx, ro, da, bs) = sections(&elf)?;
            let insns = count(t, &elf, m, &so, &target_dir)?;
            let bytes = std::fs::read(model_path(m).ok_or("model file vanished")?).map_err(|e| e.to_string())?;
            let target =
                tinyaot_compiler::Target { vis: Default::default(), name: proc_macro2_ident(), track_path: None };
            let c = tinyaot_compiler::compile(&bytes, &target, &model_options(t, m, &bytes)).map_err(|e| e.message)?;
            let flash = (tx + ro).saturating_sub(bt + br);
            let ram = (da + bs).saturating_sub(bd + bb);
            let per_mac = |n: u64| if c.macs > 0 { format!("{:.2}", n as f64 / c.macs as f64) } else { "-".into() };
            // Cores with a cycle model (the M4F, the M55) have cycles.
            let (cyc, cyc_per_mac) = if let Some(so) = build_cycle_counter(t, &target_dir)? {
                let n = cycles(t, &elf, m, &so, &target_dir)?;
                (n.to_string(), per_mac(n))
            } else {
                ("-".to_string(), "-".to_string())
            };
            let mut row = format!(
                "| {m} | {} | {flash} ({}) | {ram} ({}) | {cyc} | {cyc_per_mac} | {insns} | {} | {} |",
                t.core,
                c.weight_bytes,
                c.arena_size,
                c.macs,
                per_mac(insns)
            );
            if with_peer {
                row.push_str(&peer_cells(t, m, (&cyc, insns, flash, ram)));
            }
            println!("{row}");
            let _ = writeln!(md, "{row}");
        }
    }
    let out = repo().join("target/firmware-report.md");
    std::fs::write(&out, &md).map_err(|e| e.to_string())?;
    eprintln!("written to {}", out.display());
    Ok(())
}

/// The peer's cells of one row: its flash, RAM, cycles (M4, M55) or
/// instructions, and ours over its: time (cycles where both have them),
/// flash, RAM.
fn peer_cells(t: &tinyaot_tests::firmware::Target, model: &str, ours: (&str, u64, u64, u64)) -> String {
    let (our_cycles, our_insns, our_flash, our_ram) = ours;
    const NONE: &str = " - | - | - | - | - | - |";
    let Some(core) = peer_core(t) else {
        return NONE.into();
    };
    let Some(path) = model_path(model) else {
        return NONE.into();
    };
    match run_peer(core, &path) {
        Ok(p) if p.status == "ok" => {
            let show = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
            let (theirs, ours) = match (p.cycles, our_cycles.parse::<u64>()) {
                (Some(c), Ok(o)) => (Some(c), o),
                _ => (p.insns, our_insns),
            };
            let ratio = |ours: u64, theirs: Option<u64>| {
                theirs.filter(|&n| n > 0).map_or("-".to_string(), |n| format!("{:.2}x", ours as f64 / n as f64))
            };
            format!(
                " {} | {} | {} | {} | {} | {} |",
                show(p.flash),
                show(p.ram),
                show(theirs),
                ratio(ours, theirs),
                ratio(our_flash, p.flash),
                ratio(our_ram, p.ram)
            )
        }
        Ok(p) => format!(" TFLM: {} | - | - | - | - | - |", p.status),
        Err(e) => {
            eprintln!("{}: {model}: peer: {e}", t.core);
            NONE.into()
        }
    }
}

fn proc_macro2_ident() -> tinyaot_compiler::codegen::Ident {
    tinyaot_compiler::codegen::Ident::new("Report", tinyaot_compiler::codegen::Span::call_site())
}
