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

/// Marks an op's start or end for the profiling plugin's `mark=` option
/// (`tests/tools/qemu_profile.c`): it records the cycles so far each time
/// this runs. Three `nop`s, so LLVM merges it with neither bench marker.
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C" fn tinyaot_op_mark() {
    arch::nop();
    arch::nop();
    arch::nop();
}

/// The hook of a `TINYAOT_FW_MARKS=1` build: marks each op's start and
/// end and records which op it was, for the per-op profile.
pub struct OpMarks;

/// Every mark, in order: the op's position in `PLAN.ops`, with `AFTER` set
/// on the mark that ends it (an op that stops the invoke, a CIRCULAR_BUFFER
/// between strides, has none); up to the buffer's size; and how many
/// there were. Only a `TINYAOT_FW_MARKS` build (`models::MARKS`) links the
/// buffer.
static mut MARKED: [u16; 65536] = [0; 65536];
static mut MARKED_LEN: usize = 0;
const AFTER: u16 = 0x8000;

fn record_mark(event: u16) {
    // SAFETY: single-threaded firmware; nothing else touches these.
    unsafe {
        let len = MARKED_LEN;
        if let Some(slot) = (*(&raw mut MARKED)).get_mut(len) {
            *slot = event;
        }
        MARKED_LEN = len + 1;
    }
    tinyaot_op_mark();
}

impl tinyaot::Hook for OpMarks {
    fn before(&mut self, site: &tinyaot::OpSite, _: Option<usize>) {
        record_mark(site.position as u16);
    }

    fn after(&mut self, site: &tinyaot::OpSite, _: Option<usize>) {
        record_mark(site.position as u16 | AFTER);
    }
}

/// Prints the marks of a model's first invoke, which start at `from` in
/// the record: "ops: N ALL" (ALL: the marks all its invokes made, in the
/// plugin's list in this order) and "ops+ e0 e1 ..." lines (positions,
/// 32768 added on an op's end), for the per-op profile
/// (`firmware-profile --ops`, `cycle-estimates`).
fn print_marked(from: usize, first_invoke: usize, all: usize) {
    // SAFETY: as in `OpMarks::before`; read after every invoke ran.
    let marked = unsafe { &*(&raw const MARKED) };
    let end = (from + first_invoke).min(marked.len());
    hprintln!("ops: {} {}", first_invoke, all);
    for chunk in marked[from.min(end)..end].chunks(32) {
        let mut line = Positions { values: [0; 32], len: 0 };
        for p in chunk {
            line.push(*p);
        }
        hprintln!("ops+ {}", line);
    }
}

/// Up to 32 positions as one line of text.
struct Positions {
    values: [u16; 32],
    len: usize,
}

impl Positions {
    fn push(&mut self, p: u16) {
        if self.len < 32 {
            self.values[self.len] = p;
            self.len += 1;
        }
    }
}

impl core::fmt::Display for Positions {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for (k, v) in self.values[..self.len].iter().enumerate() {
            if k > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{v}")?;
        }
        Ok(())
    }
}

/// Ops marked so far (all invokes).
fn marked_len() -> usize {
    // SAFETY: as in `OpMarks::before`.
    unsafe { MARKED_LEN }
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
    let (marks_before, mut first_invoke_marks) = (marked_len(), 0);
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
            first_invoke_marks = marked_len() - marks_before;
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
    if models::MARKS && first_invoke_marks > 0 {
        print_marked(marks_before, first_invoke_marks, marked_len() - marks_before);
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
