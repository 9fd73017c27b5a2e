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
    /// `-C target-cpu` where the triple alone does not name the core (the
    /// M7 shares the M4F's triple; the M33 and M55 share one).
    pub cpu: Option<&'static str>,
    /// Features of the firmware crate this core builds with (the M55's
    /// `helium`: the vector kernels).
    pub features: Option<&'static str>,
}

impl Target {
    /// The source of the QEMU plugin that estimates this core's cycles, if
    /// there is one: the Cortex-M4's (`../shared/tools/qemu-m4cycles`) for
    /// the M4F, the project's Cortex-M55 model (`tests/tools/
    /// qemu_m55cycles.c`, Helium's dual-beat overlap) for the M55.
    pub fn cycle_model(&self) -> Option<PathBuf> {
        match self.short {
            "m4" => Some(repo().join("../shared/tools/qemu-m4cycles/m4cycles.c")),
            "m55" => Some(repo().join("tests/tools/qemu_m55cycles.c")),
            _ => None,
        }
    }
}

/// The targets of the firmware tests: six Cortex-M cores (the M33 with the
/// DSP extension, the M55 with it and its vector unit: the `helium`
/// feature) and two RISC-V (QEMU's `virt` board, started without
/// firmware: `-bios none`). The first is the M4F, the cycle-modelled core.
pub const TARGETS: [Target; 8] = [
    Target {
        triple: "thumbv7em-none-eabihf",
        machine: "mps2-an386",
        core: "Cortex-M4F",
        short: "m4",
        qemu: "qemu-system-arm",
        cpu: None,
        features: None,
    },
    Target {
        triple: "thumbv7m-none-eabi",
        machine: "mps2-an385",
        core: "Cortex-M3",
        short: "m3",
        qemu: "qemu-system-arm",
        cpu: None,
        features: None,
    },
    Target {
        triple: "thumbv6m-none-eabi",
        machine: "microbit",
        core: "Cortex-M0",
        short: "m0",
        qemu: "qemu-system-arm",
        cpu: None,
        features: None,
    },
    Target {
        triple: "riscv32imc-unknown-none-elf",
        machine: "virt",
        core: "RV32IMC",
        short: "rv32imc",
        qemu: "qemu-system-riscv32",
        cpu: None,
        features: None,
    },
    Target {
        triple: "riscv32imac-unknown-none-elf",
        machine: "virt",
        core: "RV32IMAC",
        short: "rv32imac",
        qemu: "qemu-system-riscv32",
        cpu: None,
        features: None,
    },
    Target {
        triple: "thumbv7em-none-eabihf",
        machine: "mps2-an500",
        core: "Cortex-M7",
        short: "m7",
        qemu: "qemu-system-arm",
        cpu: Some("cortex-m7"),
        features: None,
    },
    Target {
        triple: "thumbv8m.main-none-eabihf",
        machine: "mps2-an505",
        core: "Cortex-M33",
        short: "m33",
        qemu: "qemu-system-arm",
        cpu: Some("cortex-m33"),
        features: None,
    },
    Target {
        triple: "thumbv8m.main-none-eabihf",
        machine: "mps3-an547",
        core: "Cortex-M55",
        short: "m55",
        qemu: "qemu-system-arm",
        cpu: Some("cortex-m55"),
        features: Some("helium"),
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

/// Builds the firmware for `target` (all models, or `only` one) under
/// `target_dir`; returns the ELF path (`target_dir/elf/<core>/`, the
/// core's last build).
pub fn build(target: &Target, only: Option<&str>, target_dir: &Path) -> Result<PathBuf, String> {
    build_with(target, only, None, target_dir)
}

/// [`build`] (every model) for each of `targets`, as many at a time as the
/// machine has cores (up to 4): most of a build is the firmware crate's
/// code generation and `core`'s, each on one core. Each worker builds in a
/// lane of its own (`lane_dir`), so the host's part (the macro's
/// compiler, the build script) is compiled once per worker, not per core.
/// The results in the targets' order.
pub fn build_each(targets: &[Target], target_dir: &Path) -> Vec<Result<PathBuf, String>> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let built: Mutex<Vec<Option<Result<PathBuf, String>>>> = Mutex::new(vec![None; targets.len()]);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    std::thread::scope(|s| {
        for lane in 0..workers {
            let (next, built) = (&next, &built);
            s.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(t) = targets.get(i) else { break };
                    let r = build_in_lane(t, None, None, target_dir, lane);
                    built.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
                }
            });
        }
    });
    let built = built.into_inner().unwrap_or_else(|e| e.into_inner());
    built.into_iter().map(|r| r.unwrap_or_else(|| Err("not built".into()))).collect()
}

/// [`build`], also taking the models (with reference vectors) in `extra`.
pub fn build_with(
    target: &Target,
    only: Option<&str>,
    extra: Option<&Path>,
    target_dir: &Path,
) -> Result<PathBuf, String> {
    build_in_lane(target, only, extra, target_dir, 0)
}

/// [`build_with`] in lane `lane` of `target_dir`.
fn build_in_lane(
    target: &Target,
    only: Option<&str>,
    extra: Option<&Path>,
    target_dir: &Path,
    lane: usize,
) -> Result<PathBuf, String> {
    let mut cmd = debian_cargo(target, &lane_dir(target_dir, lane));
    match only {
        Some(m) => cmd.env("TINYAOT_FW_ONLY", m),
        None => cmd.env_remove("TINYAOT_FW_ONLY"),
    };
    match extra {
        Some(dir) => cmd.env("TINYAOT_FW_EXTRA_DIR", dir),
        None => cmd.env_remove("TINYAOT_FW_EXTRA_DIR"),
    };
    finish(cmd, target, &lane_dir(target_dir, lane), "tinyaot-firmware", target_dir)
}

/// Builds the streaming keyword spotter (`examples/firmware/src/bin/kws.rs`)
/// for `target`; returns the ELF path.
pub fn build_kws(target: &Target, target_dir: &Path) -> Result<PathBuf, String> {
    let mut cmd = debian_cargo(target, &lane_dir(target_dir, 0));
    // Its main loop must keep up with the audio in real time: the crate's
    // own release profile, LTO included.
    cmd.env_remove("CARGO_PROFILE_RELEASE_LTO");
    cmd.args(["--features", "kws", "--bin", "kws"]);
    finish(cmd, target, &lane_dir(target_dir, 0), "kws", target_dir)
}

/// Builds a board example (`examples/boards/<board>`, its own workspace,
/// for the target its `.cargo/config.toml` names) with Debian's toolchain;
/// returns the ELF path.
pub fn build_board(board: &str, triple: &str, target_dir: &Path) -> Result<PathBuf, String> {
    let dir = repo().join("examples/boards").join(board);
    run_cargo(debian_cargo_in(&dir, triple, target_dir), triple, board)?;
    Ok(target_dir.join(triple).join("release").join(format!("tinyaot-kws-{board}")))
}

/// `cargo build --release --target T --target-dir D` in the firmware crate
/// with Debian's toolchain.
fn debian_cargo(target: &Target, cargo_dir: &Path) -> Command {
    let mut cmd = debian_cargo_in(&repo().join("examples/firmware"), target.triple, cargo_dir);
    // The board picks the memory map (`examples/firmware/build.rs`).
    cmd.env("TINYAOT_FW_BOARD", target.machine);
    if cargo_dir.starts_with(test_dir()) {
        // The tests check bits, not cycles or bytes: without debug info
        // and (but for ARMv6-M, whose board's flash needs it, and the
        // Cortex-M55, whose `core` Debian's LLVM cannot compile for MVE
        // outside LTO) fat LTO an all-model build takes about half the
        // time (72 s -> 34 s for the M33 on a 2-core machine). The
        // measuring builds (`firmware-report`, `firmware-profile`,
        // elsewhere under `target/`) keep the crate's release profile.
        cmd.env("CARGO_PROFILE_RELEASE_DEBUG", "false");
        if !target.triple.starts_with("thumbv6m") && target.cpu != Some("cortex-m55") {
            cmd.env("CARGO_PROFILE_RELEASE_LTO", "false");
        }
    }
    if let Some(cpu) = target.cpu {
        // Joined with the config's `-Tlink.x` (RUSTFLAGS would replace it).
        let var = format!("CARGO_TARGET_{}_RUSTFLAGS", target.triple.to_uppercase().replace(['-', '.'], "_"));
        cmd.env(var, format!("-C target-cpu={cpu}"));
    }
    if let Some(features) = target.features {
        cmd.args(["--features", features]);
    }
    cmd
}

/// The target directory of `target`'s builds: a folder of each core's own
/// (cores share triples, and [`build_each`] builds two at a time).
fn lane_dir(target_dir: &Path, lane: usize) -> PathBuf {
    target_dir.join(format!("lane{lane}"))
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

/// Where the tests build their firmware (see `debian_cargo_in`).
pub fn test_dir() -> PathBuf {
    repo().join("target/firmware")
}

/// Runs a build.
fn run_cargo(mut cmd: Command, triple: &str, what: &str) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("cannot run /usr/bin/cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!("firmware build ({what}) for {triple} failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(())
}

/// Runs the build of binary `bin` for `target` in `cargo_dir`; returns
/// its copy in `target_dir/elf/<core>/` (a lane's next build for another
/// core of the same triple replaces the one in `cargo_dir`).
fn finish(cmd: Command, target: &Target, cargo_dir: &Path, bin: &str, target_dir: &Path) -> Result<PathBuf, String> {
    run_cargo(cmd, target.triple, bin)?;
    let built = cargo_dir.join(target.triple).join("release").join(bin);
    let kept = target_dir.join("elf").join(target.short);
    std::fs::create_dir_all(&kept).map_err(|e| format!("{}: {e}", kept.display()))?;
    let kept = kept.join(bin);
    std::fs::copy(&built, &kept).map_err(|e| format!("{}: {e}", built.display()))?;
    Ok(kept)
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

/// Section sizes (`llvm-size-22 -A`): (.text, .rodata, .data, .bss); the
/// regions' arenas (`.tinyaot_fast`, `.tinyaot_slow`) count as `.bss`.
pub fn sections(elf: &Path) -> Result<(u64, u64, u64, u64), String> {
    let table = section_table(elf)?;
    let size = |name: &str| table.iter().find(|(n, ..)| n == name).map_or(0, |&(_, size, _)| size);
    let regions: u64 = table.iter().filter(|(n, ..)| n.starts_with(".tinyaot_")).map(|&(_, size, _)| size).sum();
    Ok((size(".text"), size(".rodata"), size(".data"), size(".bss") + regions))
}

/// Every section of an ELF (`llvm-size-22 -A`): (name, bytes, address).
pub fn section_table(elf: &Path) -> Result<Vec<(String, u64, u64)>, String> {
    let out = Command::new("llvm-size-22").arg("-A").arg(elf).output().map_err(|e| format!("llvm-size-22: {e}"))?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let name = it.next()?.to_string();
            Some((name, it.next()?.parse().ok()?, it.next()?.parse().ok()?))
        })
        .collect())
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

/// Builds the cycle model of `target` ([`Target::cycle_model`]: the
/// Cortex-M4's from its TRM's instruction timings, or the Cortex-M55's;
/// zero wait states) into `dir`; `None` for a core without one.
pub fn build_cycle_counter(target: &Target, dir: &Path) -> Result<Option<PathBuf>, String> {
    let Some(src) = target.cycle_model() else {
        return Ok(None);
    };
    build_plugin(&src, &dir.join(format!("libcycles-{}.so", target.short))).map(Some)
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
    region(target, elf, model, so, &scratch.join(format!("insns-{}-{model}.txt", target.short)))
}

/// Estimated Cortex-M4 cycles between the markers for one model (the
/// `build_cycle_counter` plugin of the target).
pub fn cycles(target: &Target, elf: &Path, model: &str, so: &Path, scratch: &Path) -> Result<u64, String> {
    region(target, elf, model, so, &scratch.join(format!("cycles-{}-{model}.txt", target.short)))
}

/// Instructions executed and estimated cycles per function (demangled
/// name, instructions, cycles), most cycles first, for one model on one
/// target, from the profiling plugin (`tests/tools/qemu_profile.c`: the
/// Cortex-M4's timings, whatever the core, over the whole run), on the M55
/// from its cycle model (`tests/tools/qemu_m55cycles.c`, over the invoke).
pub fn profile(
    target: &Target,
    elf: &Path,
    model: &str,
    so: &Path,
    scratch: &Path,
) -> Result<Vec<(String, u64, u64)>, String> {
    let out = scratch.join(format!("profile-{}-{model}.txt", target.short));
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
    // The code's first megabyte boundary (the boards put it at 0, or at
    // 0x1000_0000 and 0x2100_0000): the plugin counts 4 MB from there.
    let base = funcs.iter().map(|f| f.0).min().unwrap_or(0) & !0xF_FFFF;
    let plugin = match target.short {
        // The M55's own cycle model, over the invoke between the markers.
        "m55" => {
            let so = build_cycle_counter(target, so.parent().unwrap_or(scratch))?.ok_or("no M55 cycle model")?;
            let (start, stop) = (symbol(elf, "tinyaot_bench_start")?, symbol(elf, "tinyaot_bench_stop")?);
            format!("{},start={start:#x},stop={stop:#x},profile=1,out={}", so.display(), out.display())
        }
        _ => format!("{},base={base:#x},limit=0x400000,out={}", so.display(), out.display()),
    };
    let r = run(target, elf, Some(model), Some(plugin))?;
    if r.code != Some(0) {
        return Err(format!("{model} on {}: exit {:?}\n{}", target.core, r.code, r.stdout));
    }
    let counts = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
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

/// One model's ops as they ran: (position in `PLAN.ops`, estimated M4 cycles).
pub type OpCycles = Vec<(usize, u64)>;

/// Estimated Cortex-M4 cycles of each op of the first invoke of each model
/// the firmware runs (`only` as `TINYAOT_FW_ONLY`, or every model that fits
/// the board), in the order they ran: per model, (position in `PLAN.ops`,
/// cycles). The firmware is built with `TINYAOT_FW_MARKS=1` (every invoke
/// through a hook that calls `tinyaot_op_mark` around each op and records
/// which op it was) in its own folder under `scratch`; the profiling
/// plugin's `mark=` option records the cycles at each mark. A mark's own
/// call (a few cycles) falls outside the op it closes.
pub fn op_cycles(
    target: &Target,
    only: Option<&str>,
    so: &Path,
    scratch: &Path,
) -> Result<Vec<(String, OpCycles)>, String> {
    let dir = scratch.join("marks");
    let mut cmd = debian_cargo(target, &lane_dir(&dir, 0));
    cmd.env("TINYAOT_FW_MARKS", "1").env_remove("TINYAOT_FW_EXTRA_DIR");
    match only {
        Some(m) => cmd.env("TINYAOT_FW_ONLY", m),
        None => cmd.env_remove("TINYAOT_FW_ONLY"),
    };
    let elf = finish(cmd, target, &lane_dir(&dir, 0), "tinyaot-firmware", &dir)?;
    let mark = symbol(&elf, "tinyaot_op_mark")?;
    // One file per core and model set (QEMU splits plugin options on commas).
    let set = match only {
        Some(m) if !m.contains(',') => m.to_string(),
        Some(m) => format!("{}-models", m.split(',').count()),
        None => "all".to_string(),
    };
    let out = scratch.join(format!("ops-{}-{set}.txt", target.short));
    let plugin = format!("{},limit=0x400000,out={},mark={mark:#x}", so.display(), out.display());
    let r = run(target, &elf, only.filter(|m| !m.contains(',')), Some(plugin))?;
    if r.code != Some(0) || r.stdout.contains("MISMATCH") {
        return Err(format!("marked firmware on {}: exit {:?}\n{}", target.core, r.code, r.stdout));
    }
    let marks: Vec<u64> = std::fs::read_to_string(&out)
        .map_err(|e| e.to_string())?
        .lines()
        .filter_map(|l| l.strip_prefix("mark ")?.parse().ok())
        .collect();
    // Per model: "ops: N ALL", "ops+ e e e ..." lines (its first invoke's N
    // marks: an op's position, 32768 added where it ends), then "NAME: ok";
    // its invokes made ALL marks in all.
    let (mut models, mut at) = (Vec::new(), 0usize);
    let (mut first, mut all, mut positions) = (0usize, 0usize, Vec::new());
    for line in r.stdout.lines() {
        if let Some(counts) = line.strip_prefix("ops: ") {
            let mut it = counts.split_whitespace().filter_map(|n| n.parse().ok());
            (first, all) = (it.next().unwrap_or(0), it.next().unwrap_or(0));
            positions.clear();
        } else if let Some(list) = line.strip_prefix("ops+ ") {
            positions.extend(list.split_whitespace().filter_map(|p| p.parse::<usize>().ok()));
        } else if let Some(name) = line.strip_suffix(": ok") {
            if positions.len() != first || marks.len() < at + all {
                return Err(format!("{name}: {} marks listed of {first}, {} left", positions.len(), marks.len() - at));
            }
            // An op's start followed by its end: its cycles.
            let ops = positions
                .windows(2)
                .enumerate()
                .filter(|(_, e)| e[0] < 0x8000 && e[1] == e[0] | 0x8000)
                .map(|(k, e)| (e[0], marks[at + k + 1] - marks[at + k]))
                .collect();
            models.push((name.to_string(), ops));
            at += all;
            (first, all) = (0, 0);
            positions.clear();
        }
    }
    Ok(models)
}

/// The model file of a firmware model name (a tiled twin `NAME_tiled` is
/// NAME's file at its smallest tiled arena, a regions twin `NAME_regions`
/// NAME's file over two regions).
pub fn model_path(name: &str) -> Option<PathBuf> {
    let name = name.strip_suffix("_tiled").or_else(|| name.strip_suffix("_regions")).unwrap_or(name);
    let shared =
        std::env::var_os("TINYAOT_SHARED_MODELS").map(PathBuf::from).unwrap_or_else(|| repo().join("../shared/models"));
    [repo().join("tests/models"), shared].into_iter().map(|d| d.join(format!("{name}.tflite"))).find(|p| p.exists())
}

/// The options the firmware for `target` compiled model `name` with: for
/// Helium's kernels with the `helium` feature; a tiled twin at
/// `TINYAOT_FW_ARENA_LIMIT` or else its smallest tiled arena, borrowing its
/// input with `TINYAOT_FW_BORROWED` (as `examples/firmware/build.rs` does).
pub fn model_options(target: &Target, name: &str, bytes: &[u8]) -> tinyaot_compiler::Options {
    let helium = target.features.is_some_and(|f| f.split(',').any(|f| f == "helium"));
    let plain = tinyaot_compiler::Options { helium, ..Default::default() };
    if name.ends_with("_regions") {
        let region = |name: &str, budget| tinyaot_compiler::regions::Region {
            name: name.into(),
            section: Some(format!(".tinyaot_{name}")),
            budget,
        };
        return tinyaot_compiler::Options {
            regions: vec![region("fast", 8 << 10), region("slow", 64 << 10)],
            copy_weights: Some(("fast".into(), 6 << 10)),
            ..plain
        };
    }
    if !name.ends_with("_tiled") {
        return plain;
    }
    let one_int8 = tinyaot_compiler::analyze(bytes).is_ok_and(|a| match a.graph.inputs[..] {
        [t] => a.graph.tensors[t].dtype == tinyaot_compiler::graph::DType::I8,
        _ => false,
    });
    let borrowed_inputs = one_int8 && std::env::var_os("TINYAOT_FW_BORROWED").is_some();
    let floor = tinyaot_compiler::smallest_tiled_arena(bytes, &plain);
    let limit = std::env::var("TINYAOT_FW_ARENA_LIMIT").ok().and_then(|v| v.parse().ok()).or(floor);
    tinyaot_compiler::Options { arena_limit: limit, borrowed_inputs, ..plain }
}
