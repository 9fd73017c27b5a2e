//! `tinyaot`: the reports `include_model!` prints, from the command line.
//!
//! ```text
//! tinyaot plan MODEL.tflite [--arena-limit BYTES] [--region NAME[:SECTION]:BYTES]... [--svg FILE] [--disjoint] [--keep-inputs] [--borrowed-inputs] [--summary]
//! tinyaot ops
//! ```

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// TensorFlow Lite models compiled ahead of time for microcontrollers: the
/// memory plan the `include_model!` macro would use, and the operators it
/// supports.
#[derive(Parser)]
#[command(name = "tinyaot", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the arena plan of a model: every buffer, the lower bound,
    /// TFLM's figure and, over a limit, where the peak is and why.
    Plan {
        /// The `.tflite` file.
        model: PathBuf,
        /// The RAM budget in bytes (as the macro's `arena_limit`); over it
        /// is an error with the bottleneck analysis.
        #[arg(long, value_name = "BYTES")]
        arena_limit: Option<usize>,
        /// A memory region, fastest first (as the macro's `regions`):
        /// `dtcm:.dtcm:32768`, or `sram:262144` without a link section.
        #[arg(long = "region", value_name = "NAME[:SECTION]:BYTES", value_parser = parse_region)]
        regions: Vec<tinyaot_compiler::regions::Region>,
        /// Copy the most-read weights into a region (as the macro's
        /// `copy_weights`): `dtcm:8192`.
        #[arg(long, value_name = "REGION:BYTES", value_parser = parse_copy)]
        copy_weights: Option<(String, usize)>,
        /// Also write the water-level chart (live bytes per op) as SVG.
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
        /// Keep every op's output apart from its input (`in_place = false`).
        #[arg(long)]
        disjoint: bool,
        /// Keep the inputs intact through `invoke()` (`keep_inputs = true`).
        #[arg(long)]
        keep_inputs: bool,
        /// Leave the inputs in the caller's memory, out of the arena (`borrowed_inputs = true`).
        #[arg(long)]
        borrowed_inputs: bool,
        /// Plan for Helium's vector kernels (Cortex-M55/M85: as a firmware
        /// built with the `tinyaot/helium` feature).
        #[arg(long)]
        helium: bool,
        /// One line: path, arena, lower bound, TFLM's greedy arena.
        #[arg(long)]
        summary: bool,
    },
    /// Print the supported operators and their dtypes (Markdown).
    Ops,
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    let Command::Plan {
        model,
        arena_limit,
        regions,
        copy_weights,
        svg,
        disjoint,
        keep_inputs,
        borrowed_inputs,
        helium,
        summary,
    } = cli.command
    else {
        print!("{}", tinyaot_compiler::lowering::registry::support_table());
        return Ok(());
    };
    let path = model.display().to_string();
    let bytes = std::fs::read(&model).map_err(|e| format!("cannot read {path}: {e}"))?;
    let opts = tinyaot_compiler::Options {
        in_place: !disjoint,
        keep_inputs,
        arena_limit,
        borrowed_inputs,
        regions,
        copy_weights,
        helium,
        ..Default::default()
    };
    let a = tinyaot_compiler::analyze_with(&bytes, &opts).map_err(|e| format!("{path}: {e}"))?;
    if summary {
        println!("{} {} {} {}", path, a.plan.arena_size, a.lower_bound, a.tflm_greedy.arena_size);
        return Ok(());
    }
    if opts.copy_weights.is_some() {
        // What is copied is known once the code is emitted: the macro's report.
        let target = tinyaot_compiler::Target {
            vis: Default::default(),
            name: tinyaot_compiler::codegen::Ident::new("Model", tinyaot_compiler::codegen::Span::call_site()),
            track_path: None,
        };
        let compiled = tinyaot_compiler::compile(&bytes, &target, &opts).map_err(|e| format!("{path}: {e}"))?;
        print!("{}", compiled.report);
    } else {
        print!("{}", tinyaot_compiler::report::plan_table(&a));
        print!("{}", tinyaot_compiler::report::peak_analysis(&a, arena_limit));
    }
    if let Some(file) = svg {
        std::fs::write(&file, tinyaot_compiler::report::water_level_svg(&a))
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        println!("chart written to {}", file.display());
    }
    if let Some(limit) = arena_limit {
        if a.plan.arena_size > limit {
            return Err(tinyaot_compiler::report::over_budget(&a, limit));
        }
        println!("fits the arena limit of {limit} bytes ({} to spare)", limit - a.plan.arena_size);
    }
    Ok(())
}

/// `REGION:BYTES` as `copy_weights`.
fn parse_copy(s: &str) -> Result<(String, usize), String> {
    let (region, bytes) = s.split_once(':').ok_or("expected REGION:BYTES")?;
    Ok((region.to_string(), bytes.parse().map_err(|_| format!("`{bytes}` is not a number of bytes"))?))
}

/// `NAME[:SECTION]:BYTES` as a region.
fn parse_region(s: &str) -> Result<tinyaot_compiler::regions::Region, String> {
    let parts: Vec<&str> = s.split(':').collect();
    let (name, section, bytes) = match parts[..] {
        [name, bytes] => (name, None, bytes),
        [name, section, bytes] => (name, Some(section.to_string()), bytes),
        _ => return Err("expected NAME:BYTES or NAME:SECTION:BYTES".into()),
    };
    let budget = bytes.parse().map_err(|_| format!("`{bytes}` is not a number of bytes"))?;
    Ok(tinyaot_compiler::regions::Region { name: name.to_string(), section, budget })
}
