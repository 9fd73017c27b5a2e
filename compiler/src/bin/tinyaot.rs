//! `tinyaot plan MODEL.tflite [--arena-limit BYTES] [--svg FILE]`: prints the
//! memory plan the macro would use, and optionally writes a water-level chart.

use std::process::ExitCode;

const USAGE: &str = "usage: tinyaot plan MODEL.tflite [--arena-limit BYTES] [--svg FILE] [--disjoint] [--keep-inputs] [--summary]\n       tinyaot ops";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let (cmd, rest) = args.split_first().ok_or(USAGE)?;
    if cmd == "ops" {
        print!("{}", tinyaot_compiler::ops::support_table());
        return Ok(());
    }
    if cmd != "plan" {
        return Err(USAGE.into());
    }
    let mut model = None;
    let mut limit = None;
    let mut svg = None;
    let mut in_place = true;
    let mut keep_inputs = false;
    let mut summary = false;
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--arena-limit" => {
                let v = it.next().ok_or("--arena-limit needs a value")?;
                limit = Some(v.parse::<usize>().map_err(|_| format!("--arena-limit: not a byte count: {v}"))?);
            }
            "--svg" => svg = Some(it.next().ok_or("--svg needs a file")?.clone()),
            "--disjoint" => in_place = false,
            "--keep-inputs" => keep_inputs = true,
            "--summary" => summary = true,
            s if s.starts_with('-') => return Err(format!("unknown option {s}\n{USAGE}")),
            s => model = Some(s.to_string()),
        }
    }
    let path = model.ok_or(USAGE)?;
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let opts = tinyaot_compiler::Options { in_place, keep_inputs, arena_limit: limit };
    let a = tinyaot_compiler::analyze_with(&bytes, &opts).map_err(|e| format!("{path}: {e}"))?;
    if summary {
        // One line: arena, lower bound, TFLM greedy (for tables).
        println!("{} {} {} {}", path, a.plan.arena_size, a.lower_bound, a.tflm_greedy.arena_size);
        return Ok(());
    }
    print!("{}", tinyaot_compiler::report::plan_table(&a));
    print!("{}", tinyaot_compiler::report::peak_analysis(&a, limit));
    if let Some(file) = svg {
        std::fs::write(&file, tinyaot_compiler::report::water_level_svg(&a))
            .map_err(|e| format!("cannot write {file}: {e}"))?;
        println!("chart written to {file}");
    }
    if let Some(limit) = limit {
        if a.plan.arena_size > limit {
            return Err(tinyaot_compiler::report::over_budget(&a, limit));
        }
        println!("fits the arena limit of {limit} bytes ({} to spare)", limit - a.plan.arena_size);
    }
    Ok(())
}
