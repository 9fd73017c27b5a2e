//! Picks the memory map for the target's board and generates `models.rs`:
//! one `include_model!` per model with reference vectors that fits the board.
//!
//! Models: the project's own (`tests/models`) and, when the folder exists,
//! the shared oracle models (`../shared/models` beside the repository, or
//! `$TINYAOT_SHARED_MODELS`). `TINYAOT_FW_ONLY=name` keeps one model (the
//! per-model size and instruction report builds one firmware per model),
//! `TINYAOT_FW_ONLY=a,b,c` those models, whatever the board's budget.
//! `TINYAOT_FW_MARKS=1` runs every invoke through a hook that marks each op
//! for the profiling plugin (`firmware-profile --ops`); `TINYAOT_FW_BOARD`
//! names the QEMU machine where a triple serves several boards.

use std::fmt::Write;
use std::path::{Path, PathBuf};

struct Board {
    flash: usize,
    ram: usize,
    flash_origin: usize,
    ram_origin: usize,
    /// Where the code starts when it cannot follow the vector table.
    text_origin: Option<usize>,
}

/// The board the firmware runs on: `TINYAOT_FW_BOARD` (QEMU's machine name,
/// set by the test harness) where one target triple serves several boards,
/// else the triple's usual board.
fn board(target: &str, machine: Option<&str>) -> Board {
    if let Some(b) = machine.and_then(board_named) {
        return b;
    }
    if target.starts_with("thumbv6m") {
        // micro:bit (nRF51822): 256 KB flash, 16 KB RAM.
        Board { flash: 256 * 1024, ram: 16 * 1024, flash_origin: 0, ram_origin: 0x2000_0000, text_origin: None }
    } else {
        // mps2-an385 / an386: 4 MB each; QEMU's RISC-V `virt` board: 4 MB
        // of its RAM each for code and data.
        Board { flash: 4 << 20, ram: 4 << 20, flash_origin: 0, ram_origin: 0x2000_0000, text_origin: None }
    }
}

/// The Armv8-M boards, whose memory sits elsewhere (secure aliases: the
/// firmware runs in the Secure state these boards start in).
fn board_named(machine: &str) -> Option<Board> {
    match machine {
        // mps2-an505 (Cortex-M33): 4 MB of SSRAM1 for the code, where the
        // secure vector table is fetched; SSRAM2 and 3 (2 + 2 MB) for data.
        "mps2-an505" => Some(Board {
            flash: 4 << 20,
            ram: 4 << 20,
            flash_origin: 0x1000_0000,
            ram_origin: 0x3800_0000,
            text_origin: None,
        }),
        // mps3-an547 (Cortex-M55): the vector table in the 512 KB ITCM at 0,
        // where the core fetches it; the code and constants in the 4 MB
        // SRAM at 0x2100_0000 (cortex-m-rt's `_stext`: FLASH spans both);
        // data in the 512 KB DTCM.
        "mps3-an547" => Some(Board {
            flash: 4 << 20,
            ram: 512 << 10,
            flash_origin: 0,
            ram_origin: 0x2000_0000,
            text_origin: Some(0x2100_0000),
        }),
        _ => None,
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let target = std::env::var("TARGET").unwrap();
    println!("cargo:rerun-if-env-changed=TINYAOT_FW_BOARD");
    let machine = std::env::var("TINYAOT_FW_BOARD").ok();
    let b = board(&target, machine.as_deref());
    // Two memory regions for the regions twin (below) on the Cortex-M3 and
    // up: the top of the data RAM (the an547's DTCM) as the fast one, and
    // past it (the an547's SRAM after the code) as the slow one.
    let regions = (target.starts_with("thumbv7") || target.starts_with("thumbv8")).then(|| {
        if b.text_origin.is_some() {
            (b.ram_origin + b.ram - FAST_RAM, b.flash_origin.max(b.text_origin.unwrap_or(0)) + b.flash - SLOW_RAM)
        } else {
            (b.ram_origin + b.ram - FAST_RAM - SLOW_RAM, b.ram_origin + b.ram - SLOW_RAM)
        }
    });
    let memory = if target.starts_with("riscv32") {
        // QEMU's `virt` board: RAM from 0x8000_0000, where `-bios none`
        // starts; riscv-rt places sections through these aliases.
        format!(
            "MEMORY {{\n  FLASH : ORIGIN = 0x80000000, LENGTH = {}\n  RAM : ORIGIN = 0x80400000, LENGTH = {}\n}}\n\
             REGION_ALIAS(\"REGION_TEXT\", FLASH);\nREGION_ALIAS(\"REGION_RODATA\", FLASH);\n\
             REGION_ALIAS(\"REGION_DATA\", RAM);\nREGION_ALIAS(\"REGION_BSS\", RAM);\n\
             REGION_ALIAS(\"REGION_HEAP\", RAM);\nREGION_ALIAS(\"REGION_STACK\", RAM);\n",
            b.flash, b.ram
        )
    } else {
        let (flash_length, text) = match b.text_origin {
            Some(t) => (t + b.flash - b.flash_origin, format!("_stext = {t:#010x};\n")),
            None => (b.flash, String::new()),
        };
        // The regions come off the end of RAM (and, on the an547, FLASH).
        let (flash_length, ram_length, regions) = match regions {
            Some((fast, slow)) if b.text_origin.is_some() => {
                (flash_length - SLOW_RAM, b.ram - FAST_RAM, region_map(fast, slow))
            }
            Some((fast, slow)) => (flash_length, b.ram - FAST_RAM - SLOW_RAM, region_map(fast, slow)),
            None => (flash_length, b.ram, (String::new(), String::new())),
        };
        format!(
            "MEMORY {{\n  FLASH : ORIGIN = {:#010x}, LENGTH = {}\n  RAM : ORIGIN = {:#010x}, LENGTH = {}\n{}}}\n{text}{}",
            b.flash_origin, flash_length, b.ram_origin, ram_length, regions.0, regions.1
        )
    };
    std::fs::write(out.join("memory.x"), memory).unwrap();
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-env-changed=TINYAOT_FW_ONLY");
    println!("cargo:rerun-if-env-changed=TINYAOT_SHARED_MODELS");
    println!("cargo:rerun-if-env-changed=TINYAOT_FW_EXTRA_DIR");
    println!("cargo:rerun-if-env-changed=TINYAOT_FW_ARENA_LIMIT");
    println!("cargo:rerun-if-env-changed=TINYAOT_FW_MARKS");

    let only = std::env::var("TINYAOT_FW_ONLY").ok();
    // Planned as the macro plans them: for the vector kernels with the
    // `helium` feature (tinyaot's turns on the macro's).
    let plain =
        tinyaot_compiler::Options { helium: std::env::var_os("CARGO_FEATURE_HELIUM").is_some(), ..Default::default() };
    let marks = std::env::var_os("TINYAOT_FW_MARKS").is_some();
    let mut dirs = vec![manifest.join("../../tests/models")];
    let shared = std::env::var_os("TINYAOT_SHARED_MODELS")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../../shared/models"));
    if shared.is_dir() {
        dirs.push(shared);
    }
    // Models with reference vectors made at test time (the audio front end
    // over consecutive frames), for `TINYAOT_FW_ONLY` builds.
    if let Some(extra) = std::env::var_os("TINYAOT_FW_EXTRA_DIR") {
        dirs.push(PathBuf::from(extra));
    }
    // Budget on the small board: leave room for the stack and the code.
    // Model files are a proxy for flash; each model's code (its kernel
    // instances and the checking harness) is counted as 1 KB on top.
    let (ram_budget, flash_budget) = (b.ram / 2, b.flash * 3 / 8);
    // Candidates: the shared (real) models first, then the project's own;
    // each smallest first, so the small board runs as many as fit.
    let mut candidates = Vec::new();
    for (priority, dir) in dirs.into_iter().rev().enumerate() {
        let dir = dir.canonicalize().unwrap_or(dir);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files: Vec<PathBuf> =
            std::fs::read_dir(&dir).map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
        files.sort();
        for f in files.into_iter().filter(|f| f.extension().is_some_and(|e| e == "tflite")) {
            let stem = f.file_stem().unwrap().to_string_lossy().to_string();
            // `NAME_tiled` / `NAME_regions` ask for NAME's twin (below).
            let twin = |name: &str| [format!("{stem}_tiled"), format!("{stem}_regions")].iter().any(|t| t == name);
            if only.as_ref().is_some_and(|o| !o.split(',').any(|name| name == stem || twin(name))) {
                continue;
            }
            let (input, output) = (dir.join(format!("{stem}.input.bin")), dir.join(format!("{stem}.output.bin")));
            if !input.exists() || !output.exists() {
                continue;
            }
            let bytes = std::fs::read(&f).unwrap();
            let Ok(a) = tinyaot_compiler::analyze_with(&bytes, &plain) else { continue };
            candidates.push((priority, bytes.len(), a.plan.arena_size, stem, f, input, output));
        }
    }
    candidates.sort();
    let mut models = Vec::new();
    let mut max_arena = 0;
    let mut flash = 0;
    for (_, size, arena, stem, f, input, output) in candidates {
        const CODE_PER_MODEL: usize = 1024;
        if only.is_none() && (arena > ram_budget || flash + size + CODE_PER_MODEL > flash_budget) {
            continue;
        }
        flash += size + CODE_PER_MODEL;
        max_arena = max_arena.max(arena);
        models.push((stem, f, input, output));
    }

    // Tiled twins: these models again at the smallest arena a tiled plan
    // reaches (their high-resolution layers run band by band), on every
    // board, so the tiled code runs on every core.
    // `TINYAOT_FW_ONLY=NAME_tiled` builds that twin alone (for the report).
    const TILED: [&str; 2] = ["ds_cnn_kws_int8", "depthwise_shapes_int8"];
    let asked = |stem: &str| only.as_ref().map(|o| o.split(',').any(|name| name == format!("{stem}_tiled")));
    let mut twins = Vec::new();
    for (stem, path, input, output) in &models {
        if !asked(stem).unwrap_or(TILED.contains(&stem.as_str())) {
            continue;
        }
        let bytes = std::fs::read(path).unwrap();
        let floor = tinyaot_compiler::smallest_tiled_arena(&bytes, &plain);
        // `TINYAOT_FW_ARENA_LIMIT=N`: the twin at that budget instead.
        let floor = std::env::var("TINYAOT_FW_ARENA_LIMIT").ok().and_then(|v| v.parse().ok()).or(floor);
        // `TINYAOT_FW_BORROWED=1`: a one-int8-input twin also borrows its
        // input (`borrowed_inputs = true`, read from the flash copy).
        let one_int8 = tinyaot_compiler::analyze_with(&bytes, &plain).ok().and_then(|a| match a.graph.inputs[..] {
            [t] if a.graph.tensors[t].dtype == tinyaot_compiler::graph::DType::I8 => Some(a.graph.tensors[t].bytes),
            _ => None,
        });
        let borrowed = one_int8.filter(|_| std::env::var_os("TINYAOT_FW_BORROWED").is_some());
        if let Some(arena) = floor {
            twins.push((format!("{stem}_tiled"), path.clone(), input.clone(), output.clone(), arena, borrowed));
        }
    }
    // The regions twin: the keyword model over two memory regions (an 8 KB
    // fast one, 6 KB of it for the weights it copies there from flash, the
    // rest in the slow one), on its static arenas in their link sections;
    // `TINYAOT_FW_ONLY=ds_cnn_kws_int8_regions` alone.
    const SPLIT: &str = "ds_cnn_kws_int8";
    let asked_split = only.as_ref().map(|o| o.split(',').any(|name| name == format!("{SPLIT}_regions")));
    let split_twins: Vec<(String, PathBuf, PathBuf, PathBuf)> = models
        .iter()
        .filter(|(stem, ..)| stem == SPLIT && regions.is_some() && asked_split.unwrap_or(true))
        .map(|(stem, path, input, output)| (format!("{stem}_regions"), path.clone(), input.clone(), output.clone()))
        .collect();
    let borrowed_twins: Vec<(String, usize)> =
        twins.iter().filter_map(|(stem, .., borrowed)| Some((stem.clone(), (*borrowed)?))).collect();
    if let Some(o) = &only {
        models.retain(|(stem, ..)| o.split(',').any(|name| name == stem));
    }
    let mut s = String::new();
    let _ = writeln!(s, "pub const MAX_ARENA: usize = {};", if only.is_some() { 0 } else { max_arena });
    let _ = writeln!(s, "pub const MARKS: bool = {marks};");
    for (stem, path, ..) in &models {
        let m = ident(stem);
        let _ = writeln!(s, "pub mod {m} {{ tinyaot::include_model!(pub Model = {:?}); }}", path.display().to_string());
    }
    for (stem, path, _, _, arena, borrowed) in &twins {
        let m = ident(stem);
        let path = path.display().to_string();
        let borrow = if borrowed.is_some() { ", borrowed_inputs = true" } else { "" };
        let _ = writeln!(
            s,
            "pub mod {m} {{ tinyaot::include_model!(pub Model = {path:?}, arena_limit = {arena}{borrow}); }}"
        );
    }
    for (stem, path, ..) in &split_twins {
        let m = ident(stem);
        let path = path.display().to_string();
        let _ = writeln!(
            s,
            "pub mod {m} {{ tinyaot::include_model!(pub Model = {path:?}, regions = [fast(\".tinyaot_fast\", 8K), slow(\".tinyaot_slow\", 64K)], copy_weights = fast(6K)); }}"
        );
    }
    let on_static: Vec<String> = split_twins.iter().map(|(stem, ..)| stem.clone()).collect();
    let models: Vec<(String, PathBuf, PathBuf, PathBuf)> = models
        .into_iter()
        .chain(twins.into_iter().map(|(stem, path, input, output, ..)| (stem, path, input, output)))
        .chain(split_twins)
        .collect();
    let _ = writeln!(
        s,
        "pub fn run_all(arena: &mut tinyaot::Arena<MAX_ARENA>, only: Option<&[u8]>, report: &mut impl FnMut(&str, Result<(), Mismatch>)) {{\n    let _ = (&arena, &only, &report);"
    );
    for (stem, _, input, output) in &models {
        let m = ident(stem);
        let _ = writeln!(
            s,
            r#"    if only.is_none_or(|o| o == {stem:?}.as_bytes()) {{
        let mut model = {acquire};
        let outcome = crate::check(&mut model, include_bytes!({input:?}), include_bytes!({output:?}), &{m}::Model::INPUTS, &{m}::Model::OUTPUTS,
            {write}, {invoke}, |m| m.reset(), |m, i| m.output_bytes(i));
        report({stem:?}, outcome);
    }}"#,
            input = input.display().to_string(),
            output = output.display().to_string(),
            // A borrowed input is passed to `invoke`: its bytes from flash.
            write = if borrowed_twins.iter().any(|(s, _)| s == stem) {
                "|_, _, _| true"
            } else {
                "|m, i, b| m.write_input(i, b)"
            },
            // `TINYAOT_FW_MARKS=1` (the per-op profile): through the hook
            // that marks every op for the profiling plugin.
            invoke = match (borrowed_twins.iter().find(|(s, _)| s == stem), marks) {
                (Some((_, n)), _) => format!(
                    "|m| {{ m.invoke{with}(unsafe {{ &*include_bytes!({:?}).as_ptr().cast::<[i8; {n}]>() }}{hook}); }}",
                    input.display().to_string(),
                    with = if marks { "_with" } else { "" },
                    hook = if marks { ", &mut crate::OpMarks" } else { "" },
                ),
                (None, true) => "|m| { m.invoke_with(&mut crate::OpMarks); }".to_string(),
                (None, false) => "|m| { m.invoke(); }".to_string(),
            },
            // One model: its own generated static arena, as a user's firmware
            // has it (the report measures this RAM). All models: turns on one
            // shared arena, so the 16 KB board holds them all.
            // A model over regions: its static arenas, in their sections.
            acquire = if only.is_some() || on_static.contains(stem) {
                format!("{m}::Model::take().expect(\"taken once\")")
            } else {
                format!("{m}::Model::new_in(arena)")
            }
        );
        let _ = &Path::new(stem);
    }
    let _ = writeln!(s, "}}");
    std::fs::write(out.join("models.rs"), s).unwrap();
}

/// Bytes of the fast and the slow memory region the regions twin uses.
const FAST_RAM: usize = 64 << 10;
const SLOW_RAM: usize = 256 << 10;

/// The MEMORY lines and the output sections of the two regions: each
/// model static in `.tinyaot_fast` / `.tinyaot_slow` goes there, NOLOAD (an
/// arena holds nothing before the model writes it). After `.got`, the last
/// section of cortex-m-rt's `link.x`: it takes the location counter after
/// `.bss` as the end of what it zeroes and after `.uninit` as the stack's
/// end, which sections inserted there would move into another memory.
fn region_map(fast: usize, slow: usize) -> (String, String) {
    (
        format!(
            "  TINYAOT_FAST : ORIGIN = {fast:#010x}, LENGTH = {FAST_RAM}\n  TINYAOT_SLOW : ORIGIN = {slow:#010x}, LENGTH = {SLOW_RAM}\n"
        ),
        "SECTIONS {\n  .tinyaot_fast (NOLOAD) : ALIGN(16) { KEEP(*(.tinyaot_fast .tinyaot_fast.*)) } > TINYAOT_FAST\n  \
         .tinyaot_slow (NOLOAD) : ALIGN(16) { KEEP(*(.tinyaot_slow .tinyaot_slow.*)) } > TINYAOT_SLOW\n} INSERT AFTER .got;\n"
            .to_string(),
    )
}

fn ident(stem: &str) -> String {
    format!("m_{}", stem.to_ascii_lowercase().replace(|c: char| !c.is_ascii_alphanumeric(), "_"))
}
