//! The generated code on real Cortex-M cores under QEMU: the firmware in
//! `examples/firmware` runs every model that fits the board on its
//! reference input and checks the output bytes (float32 within 1e-5).
//!
//! Needs Debian's rustc-web, rust-web-src, lld and qemu-system-arm (`.ci/run`
//! installs them). Without them the test says so and passes, unless
//! `TINYAOT_REQUIRE_FIRMWARE=1` (set by `.ci/run`).

use tinyaot_tests::firmware::{TARGETS, build, missing_toolchain, repo, run};

#[test]
fn firmware_runs_bit_exact_on_cortex_m0_m3_m4f() {
    if let Some(why) = missing_toolchain() {
        assert!(std::env::var_os("TINYAOT_REQUIRE_FIRMWARE").is_none(), "firmware toolchain required: {why}");
        println!("SKIPPED: {why}; run .ci/run to install the Cortex-M toolchain and QEMU");
        return;
    }
    let target_dir = repo().join("target/firmware");
    let mut failures = Vec::new();
    for t in &TARGETS {
        let elf = build(t, None, &target_dir).unwrap_or_else(|e| panic!("{e}"));
        let r = run(t, &elf, None, None).unwrap_or_else(|e| panic!("{e}"));
        print!("{} ({}):\n{}", t.core, t.machine, r.stdout);
        let ok = r.stdout.lines().filter(|l| l.ends_with(": ok")).count();
        if r.code != Some(0) || ok == 0 || r.stdout.contains("MISMATCH") {
            failures.push(format!("{}: exit {:?}", t.core, r.code));
        }
        // The small board must still run the models that fit it, and the
        // multi-subgraph ones (which its flash budget above leaves out).
        if t.triple.starts_with("thumbv6m") {
            let subgraphs = ["streaming_kws_int8", "control_if_int8", "control_while_int8"];
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
