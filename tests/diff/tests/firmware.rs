//! The differential suite as firmware under QEMU, compared byte for byte
//! with TFLM's interpreter, on the cores whose kernels no host run takes:
//! the Cortex-M55 with the Helium kernels (`mps3-an547`, the firmware's
//! `helium` feature; half the cases from the int8 convolution, depthwise,
//! fully connected and elementwise generators: the vector layouts, the
//! tail predication and the vector requantization meet option and shape
//! draws no project model has) and the Cortex-M3 (`mps2-an385`; half from
//! the int8 convolution generators, which its two-pixel kernel runs); the
//! other half of each from every generator in turn.
//!
//! `TINYAOT_DIFF_FW_CASES=N` (defaults 48 on the M55, 24 on the M3) and
//! `TINYAOT_DIFF_SEED=S` (default 1) choose the sample,
//! `TINYAOT_DIFF_OPS=MAX_POOL_2D,ADD` draws only from those generators,
//! `TINYAOT_DIFF_FW_CORE=m4` runs on that core alone (its mix above, the
//! M55's for a core not listed). Needs
//! the firmware toolchain (`.ci/run` installs it) and Python with
//! `tflite-micro`; without them the test says so and passes, unless
//! `TINYAOT_REQUIRE_FIRMWARE=1` or `TINYAOT_REQUIRE_TFLM=1` (CI).

use std::path::{Path, PathBuf};
use std::process::Command;
use tinyaot_diff::{case, case_of};
use tinyaot_tests::firmware::{build_with, missing_toolchain, run, target_named, test_dir};

/// The generators whose int8 cases take the vector kernels.
const OPS: [&str; 6] =
    ["CONV_2D_WIDE", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTHWISE_CONV_2D_WIDE", "FULLY_CONNECTED", "ADD_SUB_MUL_RUNS"];

/// The generators whose int8 cases take the Cortex-M3's two-pixel
/// convolution (`conv2d_two_s8`; a depthwise layer of input depth 1 too).
const M3_OPS: [&str; 3] = ["CONV_2D", "CONV_2D_WIDE", "DEPTHWISE_CONV_2D"];

/// The samples the suite runs: core, the generators half of its cases
/// come from, the default count.
const SAMPLES: [(&str, &[&str], u64); 2] = [("m55", &OPS, 48), ("m3", &M3_OPS, 24)];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn differential_cases_run_bit_exact_on_the_m55_and_the_m3() {
    if let Some(why) = missing_toolchain() {
        assert!(std::env::var_os("TINYAOT_REQUIRE_FIRMWARE").is_none(), "firmware toolchain required: {why}");
        println!("SKIPPED: {why}");
        return;
    }
    let samples = match std::env::var("TINYAOT_DIFF_FW_CORE") {
        Ok(core) => {
            // A listed core's own mix; the M55's on any other.
            let (ops, count) = SAMPLES.iter().find(|s| s.0 == core).map_or((&OPS[..], 48), |s| (s.1, s.2));
            vec![(core, ops, count)]
        }
        Err(_) => SAMPLES.iter().map(|&(core, ops, count)| (core.to_string(), ops, count)).collect(),
    };
    for (core, ops, count) in samples {
        if !sample(&core, ops, env_u64("TINYAOT_DIFF_FW_CASES", count)) {
            return;
        }
    }
}

/// Runs `count` cases on `core`, half from `ops`; false where TFLM's
/// interpreter is missing (the test then skips).
fn sample(core: &str, ops: &[&str], count: u64) -> bool {
    let target = target_named(core).unwrap_or_else(|| panic!("no firmware target {core}"));
    let seed = env_u64("TINYAOT_DIFF_SEED", 1);
    let only_var = std::env::var("TINYAOT_DIFF_OPS").unwrap_or_default();
    let only: Vec<&str> = only_var.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("diff-firmware-{core}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // The firmware compares one model's outputs invoke after invoke: cases
    // that reset mid-run, skip outputs or need a twin model for TFLM are
    // left to the host suite, as are those tinyaot refuses (reported there).
    let mut names = Vec::new();
    for i in 0..count {
        // Every other case from `ops`, the rest from every generator in
        // turn (the other kernels on this core); or only the generators
        // `TINYAOT_DIFF_OPS` names, in turn.
        let c = match &only[..] {
            [] if i % 2 == 0 => case_of(ops[(i / 2 % ops.len() as u64) as usize], seed, i),
            [] => case(seed, i),
            ops => case_of(ops[(i % ops.len() as u64) as usize], seed, i),
        };
        let simple = c.reference.is_none() && c.reset_at.is_none() && c.unwritten.is_none() && !c.litert;
        if !simple || tinyaot_compiler::analyze(&c.model).is_err() {
            continue;
        }
        std::fs::write(dir.join(format!("{}.tflite", c.name)), &c.model).unwrap();
        std::fs::write(dir.join(format!("{}.input.bin", c.name)), &c.input).unwrap();
        names.push((c.name, c.label));
    }
    let script = repo().join("tests/diff/tflm_reference.py");
    let answered = Command::new("python3").arg(&script).arg(&dir).output();
    if !answered.as_ref().is_ok_and(|o| o.status.success()) {
        assert!(std::env::var_os("TINYAOT_REQUIRE_TFLM").is_none(), "TFLM's interpreter is required: {answered:?}");
        println!("SKIPPED: TFLM's Python interpreter (pip install tflite-micro) is not here");
        return false;
    }
    // The cases TFLM runs (it wrote their outputs).
    names.retain(|(name, _)| dir.join(format!("{name}.output.bin")).exists());
    assert!(names.len() * 2 >= count as usize, "TFLM ran only {} of {count} cases", names.len());
    let only: Vec<&str> = names.iter().map(|(n, _)| n.as_str()).collect();
    let elf = build_with(target, Some(&only.join(",")), Some(&dir), &test_dir()).unwrap_or_else(|e| panic!("{e}"));
    let r = run(target, &elf, None, None).unwrap_or_else(|e| panic!("{e}"));
    let failures: Vec<String> = names
        .iter()
        .filter(|(name, _)| !r.stdout.lines().any(|l| l == format!("{name}: ok")))
        .map(|(name, label)| {
            let line = r.stdout.lines().find(|l| l.starts_with(&format!("{name}: "))).unwrap_or("did not run");
            format!("{name} [{label}]: {line}")
        })
        .collect();
    println!(
        "{} ({}): {} differential cases, seed {seed}, {} matched TFLM",
        target.core,
        target.machine,
        names.len(),
        names.len() - failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} cases differ from TFLM on the {}:\n{}",
        failures.len(),
        target.core,
        failures.join("\n")
    );
    true
}
