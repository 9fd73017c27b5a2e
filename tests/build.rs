//! Generates one `include_model!` module per model with reference vectors:
//! the project's own models (`tests/models/`, always) and the shared oracle
//! models (`../shared/models/` beside the repository, or
//! `$TINYAOT_SHARED_MODELS`) when that folder exists. Models the compiler
//! rejects are listed with the reason instead, so the tests can report them.

use std::fmt::Write;
use std::path::{Path, PathBuf};

fn models_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "tflite"));
    v.sort();
    v
}

fn generate(out: &mut String, set: &str, dir: &Path) {
    let _ = writeln!(out, "pub mod {set} {{");
    let _ = writeln!(out, "    pub const DIR: &str = {:?};", dir.display().to_string());
    let mut entries = String::new();
    let mut rejected = String::new();
    for path in models_in(dir) {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(&path).unwrap_or_default();
        match tinyaot_compiler::analyze(&bytes) {
            Ok(plain) => {
                let m = format!("m_{}", stem.to_ascii_lowercase().replace(|c: char| !c.is_ascii_alphanumeric(), "_"));
                // Models with a chain of window ops also run tiled, at the
                // smallest arena tiling reaches (the most bands).
                let tiled = tinyaot_compiler::smallest_tiled_arena(&bytes, &Default::default())
                    .filter(|&arena| arena < plain.plain_arena());
                // The disjoint plan is also split over two memory regions:
                // a fast one of half its arena (in a link section of its
                // own) and 4 KB for the weights copied into it, and a slow
                // one for the rest.
                let disjoint = tinyaot_compiler::Options { in_place: false, ..Default::default() };
                let half = tinyaot_compiler::analyze_with(&bytes, &disjoint).map_or(0, |a| a.plan.arena_size / 32 * 16);
                let slow = 4 * half + 65536;
                let fast = half + 4096;
                let regions =
                    format!("regions = [fast(\".tinyaot_fast\", {fast}), slow({slow})], copy_weights = fast(4096)");
                let mut variants =
                    vec![("", "in_place = true".to_string()), ("_disjoint", format!("in_place = false, {regions}"))];
                if let Some(arena) = tiled {
                    variants.push(("_tiled", format!("arena_limit = {arena}")));
                }
                let load = "                for (i, t) in Model::INPUTS.iter().enumerate() {\n                    assert!(model.write_input(i, &set[off..off + t.bytes]));\n                    off += t.bytes;\n                }\n";
                // Each variant's outputs are checked against TFLM's; the
                // disjoint plan runs step by step (`invoke_step`), the tiled
                // one through a hook that checks every op's before/after.
                let invoke_for = |suffix: &str| match suffix {
                    "_disjoint" => {
                        "let mut steps = 0;\n                while model.invoke_step() == tinyaot::Step::Ran {\n                    steps += 1;\n                }\n                assert!(steps < Model::STEPS);"
                    }
                    "_tiled" => {
                        "let mut hook = crate::harness::CheckedHook::new(&Model::PLAN);\n                #[allow(clippy::unit_arg)] // `()` for most models, `Invoked` for streaming ones\n                let invoked = tinyaot::Invoked::from(model.invoke_with(&mut hook));\n                if invoked == tinyaot::Invoked::Completed {\n                    hook.finish();\n                }"
                    }
                    _ => "model.invoke();",
                };
                for (suffix, args) in variants {
                    let arenas = |leak| if suffix == "_disjoint" { two_regions(leak) } else { one_arena(leak) };
                    let run = run_fn(&arenas(false), load, invoke_for(suffix));
                    let _ = writeln!(
                        out,
                        r#"    pub mod {m}{suffix} {{
        tinyaot::include_model!(pub Model = {path:?}, {args});
{run}        /// Loads `input`, then returns a closure that runs one `invoke()`
        /// (for benchmarks: the arena is set up once).
        pub fn invoker(input: &[u8]) -> impl FnMut() + use<> {{
{leaked}
            let mut off = 0;
            for (i, t) in Model::INPUTS.iter().enumerate() {{
                let n = t.bytes.min(input.len().saturating_sub(off));
                let mut set = input[off..off + n].to_vec();
                set.resize(t.bytes, 0);
                assert!(model.write_input(i, &set));
                off += n;
            }}
            move || model.invoke()
        }}
    }}"#,
                        path = path.display().to_string(),
                        leaked = arenas(true)
                    );
                }
                // And with borrowed inputs, at the smallest tiled arena then
                // (a tiled first stage reads the caller's input band by band).
                let borrowed = borrowed_run(&bytes, &path.display().to_string());
                if let Some(module) = &borrowed {
                    let _ = writeln!(out, "    pub mod {m}_borrowed {{\n{module}    }}");
                }
                let _ = writeln!(
                    entries,
                    "        crate::harness::Entry {{ name: {stem:?}, run: {m}::run, run_disjoint: {m}_disjoint::run, invoker: |i| Box::new({m}::invoker(i)), macs: {m}::Model::MACS, outputs: &{m}::Model::OUTPUTS, plan: {m}::Model::PLAN, plan_disjoint: {m}_disjoint::Model::PLAN, tiled: {tiled}, borrowed: {borrowed} }},",
                    tiled = if tiled.is_some() {
                        format!("Some(({m}_tiled::run, {m}_tiled::Model::PLAN))")
                    } else {
                        "None".into()
                    },
                    borrowed = if borrowed.is_some() {
                        format!("Some(({m}_borrowed::run, {m}_borrowed::Model::PLAN))")
                    } else {
                        "None".into()
                    }
                );
            }
            Err(e) => {
                let _ = writeln!(rejected, "        ({stem:?}, {:?}),", e.message);
            }
        }
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let _ = writeln!(out, "    pub const MODELS: &[crate::harness::Entry] = &[\n{entries}    ];");
    let _ = writeln!(out, "    pub const REJECTED: &[(&str, &str)] = &[\n{rejected}    ];");
    let _ = writeln!(out, "}}");
}

/// The body of a module compiling the model with `borrowed_inputs = true`
/// at the smallest arena a tiled plan then reaches, and a `run` that passes
/// each set of inputs to `invoke` as typed arrays; `None` when tiling does
/// not lower its arena.
fn borrowed_run(bytes: &[u8], path: &str) -> Option<String> {
    let borrowed = tinyaot_compiler::Options { borrowed_inputs: true, ..Default::default() };
    let plain = tinyaot_compiler::analyze_with(bytes, &borrowed).ok()?;
    let arena = tinyaot_compiler::smallest_tiled_arena(bytes, &borrowed)?;
    if arena >= plain.plain_arena() {
        return None;
    }
    let mut arrays = String::new();
    let mut args = Vec::new();
    for (k, &t) in plain.graph.inputs.iter().enumerate() {
        let tensor = &plain.graph.tensors[t];
        let n = tensor.elements;
        let value = match tensor.dtype.rust() {
            _ if tensor.dtype == tinyaot_compiler::graph::DType::Bool => "set[off + i] != 0".to_string(),
            Some(ty) => {
                let size = tensor.dtype.size()?;
                format!("{ty}::from_le_bytes(set[off + {size} * i..off + {size} * (i + 1)].try_into().unwrap())")
            }
            None => return None,
        };
        let ty = if tensor.dtype == tinyaot_compiler::graph::DType::Bool { "bool" } else { tensor.dtype.rust()? };
        let _ = writeln!(arrays, "                let x{k}: [{ty}; {n}] = core::array::from_fn(|i| {value});");
        let _ = writeln!(arrays, "                off += {};", tensor.bytes);
        args.push(format!("&x{k}"));
    }
    // Step by step, the inputs passed to every step (`borrowed_inputs.rs`
    // checks `invoke` itself).
    let args = args.join(", ");
    let run =
        run_fn(&one_arena(false), &arrays, &format!("while model.invoke_step({args}) == tinyaot::Step::Ran {{}}"));
    Some(format!(
        "        tinyaot::include_model!(pub Model = {path:?}, borrowed_inputs = true, arena_limit = {arena});\n        #[allow(clippy::all)]\n{run}"
    ))
}

/// `let mut model = ..` on its arenas (each a `Box`, or leaked for a
/// `'static` model): one arena, or the two regions `fast` and `slow`.
fn arenas_of(names: &[(&str, &str)], leak: bool) -> String {
    let mut s = String::new();
    for (name, size) in names {
        let arena = format!("Box::new(tinyaot::Arena::<{{ Model::{size} }}>::new())");
        let _ = if leak {
            writeln!(s, "            let {name} = Box::leak({arena});")
        } else {
            writeln!(s, "            let mut {name} = {arena};")
        };
    }
    let args: Vec<String> =
        names.iter().map(|(name, _)| if leak { name.to_string() } else { format!("&mut {name}") }).collect();
    let _ = writeln!(s, "            let mut model = Model::new({});", args.join(", "));
    s
}

fn one_arena(leak: bool) -> String {
    arenas_of(&[("arena", "ARENA_SIZE")], leak)
}

fn two_regions(leak: bool) -> String {
    arenas_of(&[("fast", "FAST_SIZE"), ("slow", "SLOW_SIZE")], leak)
}

/// A generated `run`: one `invoke()` per set of inputs in `input` (several
/// for a stateful model: the state carries over), then, for a stateful
/// model, `reset()` and the first set again; returns all outputs. `load`
/// takes a set's inputs from `set` at `off`, `invoke` runs the model.
fn run_fn(arenas: &str, load: &str, invoke: &str) -> String {
    format!(
        r#"        /// Runs one `invoke()` per set of inputs in `input` (several for a
        /// stateful model: the state carries over), then, for a stateful
        /// model, `reset()` and the first set again; returns all outputs.
        pub fn run(input: &[u8]) -> Vec<u8> {{
{arenas}
            let per: usize = Model::INPUTS.iter().map(|t| t.bytes).sum();
            assert!(per > 0 && input.len().is_multiple_of(per), "input file is not a whole number of input sets");
            let mut out = Vec::new();
            let mut once = |model: &mut Model<'_>, set: &[u8]| {{
                let mut off = 0;
{load}                let _ = off;
                {invoke}
                let mut i = 0;
                while let Some(b) = model.output_bytes(i) {{
                    out.extend_from_slice(b);
                    i += 1;
                }}
            }};
            for set in input.chunks(per) {{
                once(&mut model, set);
            }}
            if Model::STATE_SIZE != 0 {{
                model.reset();
                once(&mut model, &input[..per]);
            }}
            out
        }}
"#
    )
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    println!("cargo::rustc-check-cfg=cfg(shared_models)");
    println!("cargo:rerun-if-env-changed=TINYAOT_SHARED_MODELS");
    let own = manifest.join("models");
    println!("cargo:rerun-if-changed={}", own.display());
    let mut out = String::new();
    generate(&mut out, "own", &own);

    let shared = std::env::var_os("TINYAOT_SHARED_MODELS")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../shared/models"));
    println!("cargo:rerun-if-changed={}", shared.display());
    if shared.is_dir() {
        println!("cargo:rustc-cfg=shared_models");
        generate(&mut out, "shared", &shared.canonicalize().unwrap_or(shared));
    }
    std::fs::write(out_dir.join("models.rs"), out).unwrap();
}
