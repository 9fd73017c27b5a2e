//! The measured peer: TFLM (with CMSIS-NN's kernels on Arm, its reference
//! kernels on RV32) built as bare-metal firmware for the same QEMU boards,
//! run on the same model and input by `tests/tools/tflm-peer/run.sh` and
//! counted by the same plugins. A benchmark tool, not part of CI: it needs
//! TFLM's sources, fetched from public repositories and built once per core
//! by `tests/tools/tflm-peer/setup.sh` (see its README).

use crate::firmware::{Target, repo};
use std::path::Path;
use std::process::Command;

/// One run of the peer on one core.
#[derive(Clone, Debug)]
pub struct PeerRun {
    /// `ok` when output 0 matched the reference bytes; else what went wrong.
    pub status: String,
    /// Instructions executed by one `Invoke()`.
    pub insns: Option<u64>,
    /// Estimated cycles of one `Invoke()` (the M4 and M55 models only).
    pub cycles: Option<u64>,
    /// Code, constants and initialized data, the model included.
    pub flash: Option<u64>,
    /// TFLM's `arena_used_bytes()` plus its static RAM (.data + .bss less
    /// the arena array).
    pub ram: Option<u64>,
}

/// The peer's core name for one of the firmware targets (the RV32IMAC
/// target has none: TFLM's RISC-V build is RV32IMC).
pub fn peer_core(target: &Target) -> Option<&'static str> {
    match target.short {
        "m0" => Some("m0"),
        "m3" => Some("m3"),
        "m4" => Some("m4"),
        "m7" => Some("m7"),
        "m33" => Some("m33"),
        "m55" => Some("m55"),
        "rv32imc" => Some("rv32"),
        _ => None,
    }
}

/// The builtin operators a model's file names (TFLM's op resolver is built
/// from them).
pub fn builtin_ops(bytes: &[u8]) -> Result<Vec<String>, String> {
    let model = tinyaot_compiler::tflite::read(bytes).map_err(|e| e.to_string())?;
    let mut ops = Vec::new();
    if let Some(codes) = model.operator_codes().map_err(|e| e.to_string())? {
        for code in codes.iter() {
            let code = code.map_err(|e| e.to_string())?;
            let c = code.code().map_err(|e| e.to_string())?;
            if let Some(name) = tinyaot_compiler::tflite::names::builtin_name(c) {
                ops.push(name.to_string());
            }
        }
    }
    Ok(ops)
}

/// Runs the peer on `core` for the model at `model` (its `.input.bin` and
/// `.output.bin` beside it).
pub fn run_peer(core: &str, model: &Path) -> Result<PeerRun, String> {
    let bytes = std::fs::read(model).map_err(|e| format!("{}: {e}", model.display()))?;
    let ops = builtin_ops(&bytes)?.join(",");
    let script = repo().join("tests/tools/tflm-peer/run.sh");
    let out = Command::new("bash")
        .arg(&script)
        .arg(core)
        .arg(model)
        .arg(&ops)
        .output()
        .map_err(|e| format!("{}: {e}", script.display()))?;
    let line = String::from_utf8_lossy(&out.stdout);
    let line = line.lines().last().unwrap_or_default();
    let number = |key: &str| -> Option<u64> {
        let rest = line.split(&format!("\"{key}\":")).nth(1)?;
        rest.split([',', '}']).next()?.trim().parse().ok()
    };
    let status = line
        .split("\"status\":\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .ok_or_else(|| format!("peer on {core}: no status in {line:?}"))?
        .to_string();
    let ram = match (number("arena_used"), number("ram_static")) {
        (Some(a), Some(s)) => Some(a + s),
        _ => None,
    };
    Ok(PeerRun { status, insns: number("insns"), cycles: number("cycles"), flash: number("flash_total"), ram })
}
