//! Helium, Arm's M-profile vector extension (MVE: Cortex-M55, M85), under
//! the `helium` feature: the int8 dot products of the packed rows
//! (`layout::pack_rows`) sixteen values at a time.
//!
//! The packed layout keeps, per group of 4 values, the block's rows one
//! after another as words; `VLD4n.32` (four loads of 16 bytes) splits 64
//! bytes by words into four vectors, one per row, each the row's 16 values
//! in order, so the layout every other core reads serves here unchanged.
//! `VMLADAVA.S8` then adds the 16 products of a row and the input to its
//! sum. Integer sums do not depend on the order: TFLite's bits.
//!
//! The rustc that builds firmware exposes no `mve` target feature to
//! `cfg`, so the feature is the user's word that the target has MVE
//! (`-C target-cpu=cortex-m55` or `cortex-m85`, which also lets the
//! assembler take these instructions).

/// `portable::DOT_PAIRS`: the vector dot products take one pixel at a time
/// (the pixel-pair kernels are the DSP extension's).
pub(crate) const DOT_PAIRS: bool = false;

/// `portable::WIDEN_INPUT`: the vectors read the int8 input as it is.
pub(crate) const WIDEN_INPUT: bool = false;

/// `portable::dot_groups`: whole runs of 16 values by the vector loops
/// (low-overhead loops: `DLS`/`LE`, no compare and no branch penalty), the
/// last 1 to 3 groups of 4 by the DSP extension's loop (`VLD4` takes no
/// predicate, and reading past the block would cross into the next).
#[inline(always)]
pub(crate) fn dot_groups<const R: usize>(x: &[i8], block: &[i8], acc: [i32; R]) -> [i32; R] {
    let groups = x.len() / 4;
    let runs = groups / 4;
    assert!(block.len() >= 4 * R * groups);
    let mut out = acc;
    if runs > 0 {
        let sums = &mut out[..];
        match R {
            4 => {
                let [mut a0, mut a1, mut a2, mut a3] = [sums[0], sums[1], sums[2], sums[3]];
                // SAFETY: reads `16 * runs` bytes of `x` and `64 * runs` of
                // `block` (lengths checked above: `runs * 4 <= groups`);
                // vector registers q0-q4 are declared clobbered; no stack.
                // `VMLADAVA` takes even accumulator registers, hence the
                // explicit ones.
                unsafe {
                    core::arch::asm!(
                        "dls lr, lr",
                        "2:",
                        "vldrb.u8 q4, [{x}], #16",
                        "vld40.32 {{q0, q1, q2, q3}}, [{w}]",
                        "vld41.32 {{q0, q1, q2, q3}}, [{w}]",
                        "vld42.32 {{q0, q1, q2, q3}}, [{w}]",
                        "vld43.32 {{q0, q1, q2, q3}}, [{w}]!",
                        "vmladava.s8 r0, q0, q4",
                        "vmladava.s8 r2, q1, q4",
                        "vmladava.s8 r4, q2, q4",
                        "vmladava.s8 r8, q3, q4",
                        "le lr, 2b",
                        x = inout(reg) x.as_ptr() => _,
                        w = inout(reg) block.as_ptr() => _,
                        inout("lr") runs => _,
                        inout("r0") a0,
                        inout("r2") a1,
                        inout("r4") a2,
                        inout("r8") a3,
                        out("q0") _,
                        out("q1") _,
                        out("q2") _,
                        out("q3") _,
                        out("q4") _,
                        options(nostack, readonly),
                    );
                }
                sums[..4].copy_from_slice(&[a0, a1, a2, a3]);
            }
            2 => {
                let [mut a0, mut a1] = [sums[0], sums[1]];
                // SAFETY: as above, 32 bytes of `block` per run.
                unsafe {
                    core::arch::asm!(
                        "dls lr, lr",
                        "2:",
                        "vldrb.u8 q4, [{x}], #16",
                        "vld20.32 {{q0, q1}}, [{w}]",
                        "vld21.32 {{q0, q1}}, [{w}]!",
                        "vmladava.s8 r0, q0, q4",
                        "vmladava.s8 r2, q1, q4",
                        "le lr, 2b",
                        x = inout(reg) x.as_ptr() => _,
                        w = inout(reg) block.as_ptr() => _,
                        inout("lr") runs => _,
                        inout("r0") a0,
                        inout("r2") a1,
                        out("q0") _,
                        out("q1") _,
                        out("q4") _,
                        options(nostack, readonly),
                    );
                }
                sums[..2].copy_from_slice(&[a0, a1]);
            }
            _ => {
                let mut a0 = sums[0];
                // SAFETY: as above, 16 bytes of `block` per run.
                unsafe {
                    core::arch::asm!(
                        "dls lr, lr",
                        "2:",
                        "vldrb.u8 q4, [{x}], #16",
                        "vldrb.u8 q0, [{w}], #16",
                        "vmladava.s8 r0, q0, q4",
                        "le lr, 2b",
                        x = inout(reg) x.as_ptr() => _,
                        w = inout(reg) block.as_ptr() => _,
                        inout("lr") runs => _,
                        inout("r0") a0,
                        out("q0") _,
                        out("q4") _,
                        options(nostack, readonly),
                    );
                }
                sums[0] = a0;
            }
        }
    }
    let done = 4 * runs;
    if done < groups {
        out = super::dsp::dot_groups::<R>(&x[4 * done..4 * groups], &block[4 * R * done..4 * R * groups], out);
    }
    out
}
