//! Driving the Cortex-M firmware (`examples/firmware`): build it with
//! Debian's rustc and `-Zbuild-std=core`, run it under `qemu-system-arm`
//! with a timeout, count instructions with the QEMU plugin.
//! See `../shared/cortex-m.md` for the recipe this follows.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A Cortex-M target and the QEMU board that runs it.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// Rust target triple.
    pub triple: &'static str,
    /// QEMU machine.
    pub machine: &'static str,
    /// Display name.
    pub core: &'static str,
    /// Short name on the report tools' command lines.
    pub short: &'static str,
    /// The QEMU system emulator.
    pub qemu: &'static str,
}

/// The targets of the firmware tests: three Cortex-M cores and two RISC-V
/// (QEMU's `virt` board, started without firmware: `-bios none`).
pub const TARGETS: [Target; 5] = [
    Target {
        triple: "thumbv7em-none-eabihf",
        machine: "mps2-an386",
        core: "Cortex-M4F",
        short: "m4",
        qemu: "qemu-system-arm",
    },
    Target {
        triple: "thumbv7m-none-eabi",
        machine: "mps2-an385",
        core: "Cortex-M3",
        short: "m3",
        qemu: "qemu-system-arm",
    },
    Target {
        triple: "thumbv6m-none-eabi",
        machine: "microbit",
        core: "Cortex-M0",
        short: "m0",
        qemu: "qemu-system-arm",
    },
    Target {
        triple: "riscv32imc-unknown-none-elf",
        machine: "virt",
        core: "RV32IMC",
        short: "rv32imc",
        qemu: "qemu-system-riscv32",
    },
    Target {
        triple: "riscv32imac-unknown-none-elf",
        machine: "virt",
        core: "RV32IMAC",
        short: "rv32imac",
        qemu: "qemu-system-riscv32",
    },
];

/// The target whose [`Target::short`] name is `short`.
pub fn target_named(short: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.short == short)
}

/// The short names of [`TARGETS`], for usage messages.
pub fn target_names() -> String {
    TARGETS.iter().map(|t| t.short).collect::<Vec<_>>().join("|")
}

/// Repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").canonicalize().expect("repository root")
}

/// What is missing to build and run firmware here, if anything.
pub fn missing_toolchain() -> Option<String> {
    let needs = [
        ("/usr/bin/rustc", "Debian rustc-web"),
        ("/usr/bin/cargo", "Debian cargo-web"),
        ("/usr/lib/rustlib/src/rust/library/core", "Debian rust-web-src"),
        ("/usr/bin/rust-lld", "rust-web-llvm and lld-22"),
    ];
    for (path, what) in needs {
        if !Path::new(path).exists() {
            return Some(format!("{path} not found ({what})"));
        }
    }
    for (qemu, package) in [("qemu-system-arm", "qemu-system-arm"), ("qemu-system-riscv32", "qemu-system-misc")] {
        if Command::new(qemu).arg("--version").output().is_err() {
            return Some(format!("{qemu} not found (Debian {package})"));
        }
    }
    None
}

/// Builds the firmware for `target` (all models, or `only` one) into its
/// own target directory; returns the ELF path.
pub fn build(target: &Target, only: Option<&str>, target_dir: &Path) -> Result<PathBuf, String> {
    build_with(target, only, None, target_dir)
}

/// [`build`], also taking the models (with reference vectors) in `extra`.
pub fn build_with(
    target: &Target,
    only: Option<&str>,
    extra: Option<&Path>,
    target_dir: &Path,
) -> Result<PathBuf, String> {
    let mut cmd = debian_cargo(target, target_dir);
    match only {
        Some(m) => cmd.env("TINYAOT_FW_ONLY", m),
        None => cmd.env_remove("TINYAOT_FW_ONLY"),
    };
    match extra {
        Some(dir) => cmd.env("TINYAOT_FW_EXTRA_DIR", dir),
        None => cmd.env_remove("TINYAOT_FW_EXTRA_DIR"),
    };
    finish(cmd, target.triple, target_dir, "tinyaot-firmware")
}

/// Builds the streaming keyword spotter (`examples/firmware/src/bin/kws.rs`)
/// for `target`; returns the ELF path.
pub fn build_kws(target: &Target, target_dir: &Path) -> Result<PathBuf, String> {
    let mut cmd = debian_cargo(target, target_dir);
    cmd.args(["--features", "kws", "--bin", "kws"]);
    finish(cmd, target.triple, target_dir, "kws")
}

/// Builds a board example (`examples/boards/<board>`, its own workspace,
/// for the target its `.cargo/config.toml` names) with Debian's toolchain;
/// returns the ELF path.
pub fn build_board(board: &str, triple: &str, target_dir: &Path) -> Result<PathBuf, String> {
    let dir = repo().join("examples/boards").join(board);
    finish(debian_cargo_in(&dir, triple, target_dir), triple, target_dir, &format!("tinyaot-kws-{board}"))
}

/// `cargo build --release --target T --target-dir D` in the firmware crate
/// with Debian's toolchain.
fn debian_cargo(target: &Target, target_dir: &Path) -> Command {
    debian_cargo_in(&repo().join("examples/firmware"), target.triple, target_dir)
}

/// `cargo build --release -Zbuild-std=core` for `triple` in crate `dir`
/// with Debian's toolchain.
fn debian_cargo_in(dir: &Path, triple: &str, target_dir: &Path) -> Command {
    let mut cmd = Command::new("/usr/bin/cargo");
    // The host's rustup/cargo environment must not leak into the Debian build.
    for (k, _) in std::env::vars() {
        if k.starts_with("CARGO") || k.starts_with("RUSTUP") || k.starts_with("RUSTC") || k == "RUSTFLAGS" {
            cmd.env_remove(k);
        }
    }
    cmd.current_dir(dir)
        .env("RUSTC", "/usr/bin/rustc")
        .env("RUSTDOC", "/usr/bin/rustdoc")
        .env("RUSTC_BOOTSTRAP", "1")
        .args(["build", "--release", "-Zbuild-std=core", "--target", triple, "--target-dir"])
        .arg(target_dir);
    cmd
}

/// Runs the build; returns the path of binary `bin`.
fn finish(mut cmd: Command, triple: &str, target_dir: &Path, bin: &str) -> Result<PathBuf, String> {
    let out = cmd.output().map_err(|e| format!("cannot run /usr/bin/cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!("firmware build ({bin}) for {triple} failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(target_dir.join(triple).join("release").join(bin))
}

/// Output and exit code of one QEMU run.
pub struct Run {
    /// Semihosting output.
    pub stdout: String,
    /// QEMU's exit code (the firmware's status).
    pub code: Option<i32>,
}

/// Runs an ELF under QEMU with a timeout. `arg` selects one model;
/// `plugin` is QEMU's `-plugin` argument (library and options).
pub fn run(target: &Target, elf: &Path, arg: Option<&str>, plugin: Option<String>) -> Result<Run, String> {
    run_with(target, elf, arg, plugin, &[])
}

/// [`run`] with more QEMU arguments (`-icount ...`).
pub fn run_with(
    target: &Target,
    elf: &Path,
    arg: Option<&str>,
    plugin: Option<String>,
    qemu_args: &[&str],
) -> Result<Run, String> {
    let mut semi = String::from("enable=on,target=native");
    if let Some(a) = arg {
        semi.push_str(&format!(",arg=firmware,arg={a}"));
    }
    let mut cmd = Command::new(target.qemu);
    cmd.args(["-M", target.machine, "-nographic", "-monitor", "none", "-serial", "none", "-semihosting-config", &semi]);
    if target.machine == "virt" {
        cmd.args(["-bios", "none"]);
    }
    if let Some(plugin) = plugin {
        cmd.arg("-plugin").arg(plugin);
    }
    cmd.args(qemu_args);
    cmd.arg("-kernel").arg(elf).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| format!("cannot start {}: {e}", target.qemu))?;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if child.try_wait().map_err(|e| e.to_string())?.is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return Err(format!("{} on {}: QEMU timed out after 120 s", elf.display(), target.machine));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    Ok(Run { stdout: String::from_utf8_lossy(&out.stdout).into_owned(), code: out.status.code() })
}

/// Address of a symbol in an ELF (`llvm-nm-22`).
pub fn symbol(elf: &Path, name: &str) -> Result<u64, String> {
    let out = Command::new("llvm-nm-22").arg(elf).output().map_err(|e| format!("llvm-nm-22: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find_map(|l| {
            let mut it = l.split_whitespace();
            let (addr, _kind, sym) = (it.next()?, it.next()?, it.next()?);
            (sym == name).then(|| u64::from_str_radix(addr, 16).ok()).flatten()
        })
        .ok_or_else(|| format!("symbol {name} not found in {}", elf.display()))
}

/// Section sizes (`llvm-size-22 -A`): (.text, .rodata, .data, .bss).
pub fn sections(elf: &Path) -> Result<(u64, u64, u64, u64), String> {
    let out = Command::new("llvm-size-22").arg("-A").arg(elf).output().map_err(|e| format!("llvm-size-22: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let size = |name: &str| {
        text.lines()
            .find_map(|l| {
                let mut it = l.split_whitespace();
                (it.next()? == name).then(|| it.next()?.parse::<u64>().ok()).flatten()
            })
            .unwrap_or(0)
    };
    Ok((size(".text"), size(".rodata"), size(".data"), size(".bss")))
}

/// Builds `../shared/tools/qemu-insncount` into `dir`; returns the plugin path.
pub fn build_counter(dir: &Path) -> Result<PathBuf, String> {
    build_plugin(&repo().join("../shared/tools/qemu-insncount/insncount.c"), &dir.join("libinsncount.so"))
}

/// Builds the project's per-instruction profiling plugin
/// (`tests/tools/qemu_profile.c`) into `dir`.
pub fn build_profiler(dir: &Path) -> Result<PathBuf, String> {
    build_plugin(&repo().join("tests/tools/qemu_profile.c"), &dir.join("libprofile.so"))
}

fn build_plugin(src: &Path, so: &Path) -> Result<PathBuf, String> {
    if !src.exists() {
        return Err(format!("{} not found", src.display()));
    }
    let so = so.to_path_buf();
    let st = Command::new("gcc")
        .args(["-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-o"])
        .arg(&so)
        .arg(src)
        .status()
        .map_err(|e| format!("gcc: {e}"))?;
    if !st.success() {
        return Err("building the QEMU instruction counter failed".into());
    }
    Ok(so)
}

/// Builds `../shared/tools/qemu-m4cycles` (Cortex-M4 cycles from the TRM's
/// instruction timings, zero wait states) into `dir`.
pub fn build_cycle_counter(dir: &Path) -> Result<PathBuf, String> {
    build_plugin(&repo().join("../shared/tools/qemu-m4cycles/m4cycles.c"), &dir.join("libm4cycles.so"))
}

/// Runs one model under a marker plugin (`so`: the instruction or cycle
/// counter, writing to `out`) and returns its `region=` figure: what was
/// counted between the markers.
fn region(target: &Target, elf: &Path, model: &str, so: &Path, out: &Path) -> Result<u64, String> {
    let start = symbol(elf, "tinyaot_bench_start")?;
    let stop = symbol(elf, "tinyaot_bench_stop")?;
    let plugin = format!("{},start={start:#x},stop={stop:#x},out={}", so.display(), out.display());
    let r = run(target, elf, Some(model), Some(plugin))?;
    if r.code != Some(0) {
        return Err(format!("{model} on {}: exit {:?}\n{}", target.core, r.code, r.stdout));
    }
    let text = std::fs::read_to_string(out).map_err(|e| e.to_string())?;
    text.split_whitespace()
        .find_map(|w| w.strip_prefix("region=").and_then(|v| v.parse().ok()))
        .ok_or_else(|| format!("no region count in {text}"))
}

/// Instructions between the markers for one model on one target.
pub fn count(target: &Target, elf: &Path, model: &str, so: &Path, scratch: &Path) -> Result<u64, String> {
    region(target, elf, model, so, &scratch.join(format!("insns-{}-{model}.txt", target.triple)))
}

/// Estimated Cortex-M4 cycles between the markers for one model (the
/// `build_cycle_counter` plugin; meaningful on the M4F target only).
pub fn cycles(target: &Target, elf: &Path, model: &str, so: &Path, scratch: &Path) -> Result<u64, String> {
    region(target, elf, model, so, &scratch.join(format!("cycles-{}-{model}.txt", target.triple)))
}

/// Instructions executed and estimated Cortex-M4 cycles per function
/// (demangled name, instructions, cycles), most cycles first, for one
/// model on one target, from the profiling plugin (`tests/tools/
/// qemu_profile.c`: the Cortex-M4's timings, whatever the core).
pub fn profile(
    target: &Target,
    elf: &Path,
    model: &str,
    so: &Path,
    scratch: &Path,
) -> Result<Vec<(String, u64, u64)>, String> {
    let out = scratch.join(format!("profile-{}-{model}.txt", target.triple));
    let r = run(target, elf, Some(model), Some(format!("{},limit=0x400000,out={}", so.display(), out.display())))?;
    if r.code != Some(0) {
        return Err(format!("{model} on {}: exit {:?}\n{}", target.core, r.code, r.stdout));
    }
    let counts = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
    // Function symbols with sizes: "addr size kind name".
    let nm =
        Command::new("llvm-nm-22").args(["-C", "-S", "--defined-only"]).arg(elf).output().map_err(|e| e.to_string())?;
    let mut funcs: Vec<(u64, u64, String)> = String::from_utf8_lossy(&nm.stdout)
        .lines()
        .filter_map(|l| {
            let mut it = l.splitn(4, ' ');
            let addr = u64::from_str_radix(it.next()?, 16).ok()?;
            let size = u64::from_str_radix(it.next()?, 16).ok()?;
            let kind = it.next()?;
            matches!(kind, "T" | "t").then(|| (addr & !1, size, it.next().unwrap_or("?").to_string()))
        })
        .collect();
    funcs.sort();
    let mut per: std::collections::HashMap<String, (u64, u64)> = std::collections::HashMap::new();
    for line in counts.lines() {
        let mut it = line.split_whitespace();
        let (Some(a), Some(c), Some(k)) = (it.next(), it.next(), it.next()) else { continue };
        let (Ok(a), Ok(c), Ok(k)) = (u64::from_str_radix(a, 16), c.parse::<u64>(), k.parse::<u64>()) else { continue };
        let i = funcs.partition_point(|f| f.0 <= a);
        let name = match i.checked_sub(1).map(|i| &funcs[i]) {
            Some((start, size, name)) if a < start + size.max(&2) => name.clone(),
            _ => format!("?{a:#x}"),
        };
        let e = per.entry(name).or_default();
        (e.0, e.1) = (e.0 + c, e.1 + k);
    }
    let mut v: Vec<(String, u64, u64)> = per.into_iter().map(|(n, (c, k))| (n, c, k)).collect();
    v.sort_by_key(|r| std::cmp::Reverse(r.2));
    Ok(v)
}
