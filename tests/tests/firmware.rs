//! The generated code on Cortex-M and RISC-V cores under QEMU: the firmware
//! in `examples/firmware` runs every model that fits the board on its
//! reference input and checks the output bytes (float32 within 1e-5).
//!
//! Needs Debian's rustc-web, rust-web-src, lld, qemu-system-arm and
//! qemu-system-misc (`.ci/run` installs them). Without them the test says so and passes, unless
//! `TINYAOT_REQUIRE_FIRMWARE=1` (set by `.ci/run`).

use std::sync::Mutex;
use tinyaot_tests::firmware::{
    TARGETS, build, build_board, build_each, build_kws, build_with, missing_toolchain, repo, run, run_with,
    section_table, sections, symbol, test_dir,
};

/// Whether the firmware toolchain and QEMU are here; without them a test
/// says so and passes, unless `TINYAOT_REQUIRE_FIRMWARE` is set (CI).
fn toolchain_here() -> bool {
    let Some(why) = missing_toolchain() else { return true };
    assert!(std::env::var_os("TINYAOT_REQUIRE_FIRMWARE").is_none(), "firmware toolchain required: {why}");
    println!("SKIPPED: {why}; run .ci/run to install the Cortex-M and RISC-V toolchain and QEMU");
    false
}

/// The tests build into one target directory and run the ELF they built:
/// one at a time, so no build replaces another's firmware before it runs.
static FIRMWARE: Mutex<()> = Mutex::new(());

#[test]
fn firmware_runs_bit_exact_on_every_core() {
    let _one_at_a_time = FIRMWARE.lock().unwrap_or_else(|e| e.into_inner());
    if !toolchain_here() {
        return;
    }
    let target_dir = test_dir();
    let mut failures = Vec::new();
    for (t, elf) in TARGETS.iter().zip(build_each(&TARGETS, &target_dir)) {
        let elf = elf.unwrap_or_else(|e| panic!("{e}"));
        let r = run(t, &elf, None, None).unwrap_or_else(|e| panic!("{e}"));
        print!("{} ({}):\n{}", t.core, t.machine, r.stdout);
        let ok = r.stdout.lines().filter(|l| l.ends_with(": ok")).count();
        if r.code != Some(0) || ok == 0 || r.stdout.contains("MISMATCH") {
            failures.push(format!("{}: exit {:?}", t.core, r.code));
        }
        // A tiled plan (its first layers band by band) runs on every core
        // (on the Cortex-M0 in the build below).
        if !t.triple.starts_with("thumbv6m") && !r.stdout.contains("ds_cnn_kws_int8_tiled: ok") {
            failures.push(format!("{}: the tiled ds_cnn_kws_int8 did not run", t.core));
        }
        // Memory regions on the Cortex-M3 and up: the keyword model over a
        // fast and a slow region runs from its static arenas, each linked
        // into its own section and memory.
        if (t.triple.starts_with("thumbv7") || t.triple.starts_with("thumbv8"))
            && let Err(e) = check_regions(t, &elf, &r.stdout)
        {
            failures.push(format!("{}: {e}", t.core));
        }
        // The small board must still run the models that fit it, the
        // multi-subgraph ones (which its flash budget above leaves out), a
        // tiled plan and the int4 kernels.
        if t.triple.starts_with("thumbv6m") {
            let subgraphs = [
                "streaming_kws_int8",
                "control_if_int8",
                "control_while_int8",
                "ds_cnn_kws_int8_tiled",
                "int4_weights_int8",
            ];
            let elf = build(t, Some(&subgraphs.join(",")), &target_dir).unwrap_or_else(|e| panic!("{e}"));
            let several = run(t, &elf, None, None).unwrap_or_else(|e| panic!("{e}"));
            print!("{} ({}), multi-subgraph models:\n{}", t.core, t.machine, several.stdout);
            for m in subgraphs {
                assert!(several.stdout.contains(&format!("{m}: ok")), "{m} must run on the Cortex-M0");
            }
            assert!(ok >= 20, "only {ok} models ran on the Cortex-M0");
            if repo().join("../shared/models/micro_speech_quantized.tflite").exists() {
                for m in ["micro_speech_quantized", "hello_world_int8"] {
                    assert!(r.stdout.contains(&format!("{m}: ok")), "{m} must run on the Cortex-M0");
                }
            }
        }
    }
    assert!(failures.is_empty(), "firmware failures: {failures:?}");
}

/// The regions twin of `examples/firmware/build.rs` ran, and its two
/// link sections hold its arenas where the board's memory map puts them:
/// the fast one under the slow one, within its 8 KB budget and holding more
/// than activations (the copied weights, which the output needs); on the
/// Cortex-M55's board in two memories (DTCM, SRAM).
fn check_regions(t: &tinyaot_tests::firmware::Target, elf: &std::path::Path, stdout: &str) -> Result<(), String> {
    if !stdout.contains("ds_cnn_kws_int8_regions: ok") {
        return Err("the two-region ds_cnn_kws_int8 did not run".into());
    }
    let table = section_table(elf)?;
    let find = |name: &str| {
        table.iter().find(|(n, ..)| n == name).map(|&(_, size, at)| (size, at)).ok_or(format!("no {name} section"))
    };
    let ((fast, fast_at), (slow, slow_at)) = (find(".tinyaot_fast")?, find(".tinyaot_slow")?);
    println!("{}: regions fast {fast} B at {fast_at:#x}, slow {slow} B at {slow_at:#x}", t.core);
    if fast <= 4096 || fast > 8192 || slow == 0 || fast_at >= slow_at {
        return Err(format!("regions misplaced: fast {fast} B at {fast_at:#x}, slow {slow} B at {slow_at:#x}"));
    }
    // cortex-m-rt zeroes `.bss` up to `__ebss`: the regions must lie past it
    // (they are NOLOAD, after `.got`), not inside what it zeroes.
    let ebss = symbol(elf, "__ebss")?;
    if ebss > fast_at.min(slow_at) {
        return Err(format!("the start-up code zeroes up to {ebss:#x}, into the regions"));
    }
    if t.machine == "mps3-an547"
        && !((0x2000_0000..0x2008_0000).contains(&fast_at) && (0x2100_0000..0x2140_0000).contains(&slow_at))
    {
        return Err(format!(
            "on the an547 the fast region belongs in DTCM and the slow in SRAM: {fast_at:#x}, {slow_at:#x}"
        ));
    }
    Ok(())
}

/// TFLM's audio front end (the shared audio preprocessor models) over 12
/// consecutive 30 ms frames on the M4F, its state carried from frame to
/// frame: the reference vectors are made here by TFLM's interpreter
/// (`tests/diff/tflm_reference.py`) from a synthetic signal, in
/// `target/firmware-streams` (a copy of each model beside them).
#[test]
fn audio_front_end_streams_on_the_m4f() {
    let shared = repo().join("../shared/models");
    if !toolchain_here() {
        return;
    }
    if !shared.join("audio_preprocessor_int8.tflite").exists() {
        println!("SKIPPED: ../shared/models (the audio preprocessor models) is not here");
        return;
    }
    let dir = repo().join("target/firmware-streams");
    std::fs::create_dir_all(&dir).unwrap();
    let mut names = Vec::new();
    for model in ["audio_preprocessor_int8", "audio_preprocessor_float"] {
        let name = format!("{model}_stream");
        // The copy keeps the shared file's read-only mode: remove it first.
        for stale in ["tflite", "output.bin", "refused"] {
            let _ = std::fs::remove_file(dir.join(format!("{name}.{stale}")));
        }
        std::fs::copy(shared.join(format!("{model}.tflite")), dir.join(format!("{name}.tflite"))).unwrap();
        // Tones rising in loudness and pitch with a little noise: the noise
        // estimate, PCAN and the log scale all move from frame to frame.
        let mut seed = 12345u32;
        let mut input = Vec::new();
        for frame in 0..12u32 {
            let loudness = f64::from(64 << (frame % 9));
            for t in 0..480u32 {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let noise = f64::from((seed >> 16) as i16 as i32) * loudness / 131072.0;
                let tone = loudness * (f64::from(t) * (0.05 + 0.02 * f64::from(frame))).sin();
                input.extend(((tone + noise).clamp(-32768.0, 32767.0) as i16).to_le_bytes());
            }
        }
        std::fs::write(dir.join(format!("{name}.input.bin")), input).unwrap();
        names.push(name);
    }
    let script = repo().join("tests/diff/tflm_reference.py");
    let answered = std::process::Command::new("python3").arg(&script).arg(&dir).output();
    if !answered.as_ref().is_ok_and(|o| o.status.success()) {
        assert!(std::env::var_os("TINYAOT_REQUIRE_TFLM").is_none(), "TFLM's interpreter is required: {answered:?}");
        println!("SKIPPED: TFLM's Python interpreter (pip install tflite-micro) is not here");
        return;
    }
    let _one_at_a_time = FIRMWARE.lock().unwrap_or_else(|e| e.into_inner());
    let m4f = &TARGETS[0];
    let elf = build_with(m4f, Some(&names.join(",")), Some(&dir), &test_dir()).unwrap_or_else(|e| panic!("{e}"));
    let r = run(m4f, &elf, None, None).unwrap_or_else(|e| panic!("{e}"));
    print!("{} ({}), 12 frames:\n{}", m4f.core, m4f.machine, r.stdout);
    for name in &names {
        assert!(r.stdout.contains(&format!("{name}: ok")), "{name} must match TFLM frame after frame on the M4F");
    }
}

/// The streaming keyword spotter (`examples/firmware/src/bin/kws.rs`) on the
/// M4F: samples from a timer interrupt through a `heapless` queue, the
/// front end per 20 ms hop, the model over the last second; at 62.5 million
/// instructions a second of the board's time (`-icount shift=4`) it must
/// keep up (no block lost) and hear the five bundled words in order.
#[test]
fn keyword_spotter_hears_the_bundled_words_on_the_m4f() {
    if !toolchain_here() {
        return;
    }
    let _one_at_a_time = FIRMWARE.lock().unwrap_or_else(|e| e.into_inner());
    let m4f = &TARGETS[0];
    let elf = build_kws(m4f, &test_dir()).unwrap_or_else(|e| panic!("{e}"));
    let r = run_with(m4f, &elf, None, None, &["-icount", "shift=4,sleep=off"]).unwrap_or_else(|e| panic!("{e}"));
    print!("{} ({}), keyword spotter:\n{}", m4f.core, m4f.machine, r.stdout);
    // Lines "1.360 s: yes (97%)".
    let words: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains(" s: "))
        .filter_map(|l| l.split(" s: ").nth(1)?.split(' ').next())
        .collect();
    assert_eq!(words, ["yes", "no", "left", "stop", "go"], "the words heard on the M4F");
    assert!(r.stdout.contains("; 0 blocks lost"), "the main loop must keep up with the audio");
    // The per-op profile (`invoke_with` + `Profile` on the SysTick): one row
    // per op in execution order, each called, the total their sum.
    let profile = r.stdout.split("profile of one invoke (").nth(1).expect("the profile is printed");
    let ops: usize = profile.split(' ').next().and_then(|n| n.parse().ok()).expect("its op count");
    let rows: Vec<Vec<&str>> = profile.lines().skip(2).map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows.len(), ops + 1, "a row per op and the total:\n{profile}");
    let mut sum = 0u64;
    for (position, row) in rows[..ops].iter().enumerate() {
        assert_eq!(row[0], position.to_string(), "rows in execution order");
        let (ticks, calls): (u64, u32) = (row[3].parse().unwrap(), row[4].parse().unwrap());
        assert!(calls >= 1, "op {position} ran: {row:?}");
        sum += ticks;
    }
    assert_eq!(rows[ops][..2], ["total".to_string(), sum.to_string()]);
    assert!(sum > 0, "the SysTick advanced");
    assert_eq!(r.code, Some(0));
}

/// The board examples (`examples/boards/`: the nRF52840 with its PDM
/// microphone, the RP2040 on the bundled recording; embassy, defmt) build
/// for their chips. Nothing here can run them: that takes the board.
#[test]
fn board_examples_build_for_their_chips() {
    if !toolchain_here() {
        return;
    }
    for (board, triple) in [("nrf52840", "thumbv7em-none-eabihf"), ("rp2040", "thumbv6m-none-eabi")] {
        let target_dir = repo().join("target/boards").join(board);
        let elf = build_board(board, triple, &target_dir).unwrap_or_else(|e| panic!("{e}"));
        let (text, rodata, data, bss) = sections(&elf).unwrap_or_else(|e| panic!("{e}"));
        println!("{board} ({triple}): flash {} B, RAM {} B", text + rodata + data, data + bss);
        assert!(text > 0, "{board}: an empty program");
        // Nothing runs it here, and its build (embassy's host tools among
        // it) takes about a gigabyte: dropped, so CI's disk holds the rest.
        let _ = std::fs::remove_dir_all(&target_dir);
    }
}
