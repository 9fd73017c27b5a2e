//! Runs every bundled model on its reference input on a Cortex-M or a
//! RISC-V core under QEMU, prints one line per model and exits 0 only if all
//! outputs match TFLM's. What differs between the two (start-up, the
//! semihosting calls, the fault handler) is in `arch`.
//!
//! With a semihosting argument (`-semihosting-config ...,arg=fw,arg=NAME`)
//! only model NAME runs: the instruction counter measures one `invoke()`
//! between the `tinyaot_bench_start`/`tinyaot_bench_stop` markers.
#![no_std]
#![no_main]

mod arch;

use arch::hprintln;

mod models {
    #![allow(clippy::all)]
    use crate::Mismatch;
    include!(concat!(env!("OUT_DIR"), "/models.rs"));
}

/// The first output element that differs from the reference.
pub struct Mismatch {
    output: usize,
    index: usize,
}

/// Marks the start of the measured region (one `nop`).
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C" fn tinyaot_bench_start() {
    arch::nop();
}

/// Marks the end of the measured region (two `nop`s, so LLVM cannot merge
/// the two markers).
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C" fn tinyaot_bench_stop() {
    arch::nop();
    arch::nop();
}

/// Loads the reference input, invokes between the markers, compares the
/// outputs: integers byte for byte, float32 within 1e-5 relative.
#[allow(clippy::too_many_arguments)]
fn check<M>(
    model: &mut M,
    input: &[u8],
    want: &[u8],
    inputs: &[tinyaot::TensorInfo],
    outputs: &[tinyaot::TensorInfo],
    write_input: impl Fn(&mut M, usize, &[u8]) -> bool,
    invoke: impl Fn(&mut M),
    reset: impl Fn(&mut M),
    output_bytes: impl Fn(&M, usize) -> Option<&[u8]>,
) -> Result<(), Mismatch> {
    // The reference holds one set of outputs per set of inputs (several for
    // a stateful model, whose state carries over), and for a stateful model
    // one more: the first inputs again after `reset()`.
    let per_input: usize = inputs.iter().map(|t| t.bytes).sum();
    let per_output: usize = outputs.iter().map(|o| o.bytes).sum();
    let runs = want.len() / per_output.max(1);
    for run in 0..runs {
        let sets = input.len() / per_input.max(1);
        if run == sets {
            reset(model);
        }
        let set = if run < sets { run } else { 0 };
        let mut off = set * per_input;
        for (i, t) in inputs.iter().enumerate() {
            let n = t.bytes;
            let stored = write_input(model, i, core::hint::black_box(&input[off..off + n]));
            debug_assert!(stored, "the inputs' sizes come from the model");
            off += n;
        }
        if run == 0 {
            tinyaot_bench_start();
        }
        invoke(core::hint::black_box(&mut *model));
        if run == 0 {
            tinyaot_bench_stop();
        }
        let mut off = run * per_output;
        for (k, info) in outputs.iter().enumerate() {
            let got = output_bytes(model, k).unwrap_or(&[]);
            let w = &want[off..off + info.bytes];
            off += info.bytes;
            if info.dtype == tinyaot::DType::F32 {
                for (j, (g, w)) in got.chunks_exact(4).zip(w.chunks_exact(4)).enumerate() {
                    let g = f32::from_le_bytes([g[0], g[1], g[2], g[3]]);
                    let w = f32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                    let abs = |x: f32| if x < 0.0 { -x } else { x };
                    let scale = if abs(g) > abs(w) { abs(g) } else { abs(w) };
                    if abs(g - w) > 1e-5 * scale + 1e-6 {
                        return Err(Mismatch { output: k, index: j });
                    }
                }
            } else if let Some(j) = got.iter().zip(w).position(|(a, b)| a != b) {
                return Err(Mismatch { output: k, index: j });
            }
        }
    }
    Ok(())
}

/// The model name passed as the last semihosting argument, if any.
fn only_model(buf: &mut [u8; 128]) -> Option<&[u8]> {
    // SYS_GET_CMDLINE: the host fills `buf` and writes the length back.
    let mut block = [buf.as_mut_ptr() as usize, buf.len()];
    // SAFETY: `block` describes a writable buffer of its stated length that
    // outlives the call; the debugger only writes within it.
    let r = unsafe { arch::semihosting(0x15, block.as_mut_ptr() as usize) };
    if r != 0 {
        return None;
    }
    let line = &buf[..block[1].min(128)];
    let mut words = line.split(|&c| c == b' ').filter(|w| !w.is_empty());
    let _program = words.next()?;
    words.last()
}

static mut ARENA: tinyaot::Arena<{ models::MAX_ARENA }> = tinyaot::Arena::new();

#[arch::entry]
fn main() -> ! {
    let mut buf = [0u8; 128];
    let only = only_model(&mut buf);
    // SAFETY: the only reference ever made to ARENA; `main` never returns.
    let arena = unsafe { &mut *(&raw mut ARENA) };
    let (mut ran, mut failed) = (0u32, 0u32);
    models::run_all(arena, only, &mut |name, outcome| {
        ran += 1;
        match outcome {
            Ok(()) => hprintln!("{}: ok", name),
            Err(m) => {
                failed += 1;
                hprintln!("{}: MISMATCH output {} element {}", name, m.output, m.index);
            }
        }
    });
    hprintln!("ran {} models, {} failed", ran, failed);
    arch::exit(if failed == 0 && ran > 0 { 0 } else { 1 })
}
