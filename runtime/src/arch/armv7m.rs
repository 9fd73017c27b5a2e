//! ARMv7-M (Cortex-M3 and up): the requantization of int32 sums to int8
//! in assembly, `SMLAL` for the 64-bit product and `SSAT` for the
//! saturation, where the compiler's own loops take a third more
//! instructions.

use tinyaot_common::fixedpoint::DownScale;

/// `portable::rescale_down`: `SMLAL`, `LSR`, `SMLAL`, then the shift of
/// the high word.
#[inline(always)]
pub(crate) fn rescale_down(acc: i32, s: &DownScale) -> i32 {
    let [multiplier, shift, k_low, k_high] = *s;
    let (mut low, mut high) = (k_low, k_high);
    // SAFETY: register arithmetic only (ARMv7-M base instructions).
    unsafe {
        core::arch::asm!(
            "smlal {lo}, {hi}, {acc}, {m}",
            "lsr {t}, {acc}, #31",
            "smlal {lo}, {hi}, {t}, {min}",
            lo = inout(reg) low,
            hi = inout(reg) high,
            acc = in(reg) acc,
            m = in(reg) multiplier,
            min = in(reg) i32::MIN,
            t = out(reg) _,
            options(pure, nomem, nostack),
        );
    }
    let _ = low;
    // Outside the assembly, so a constant shift is an immediate.
    high >> (shift & 31)
}

/// `portable::dot_groups` for cores without the DSP extension (Cortex-M3):
/// a block of 4 rows as one assembly loop over the groups, per group 4
/// `LDRSB` of inputs, 16 `LDRSB` of weights (post-incremented) and 16
/// `MLA`, the four sums and inputs kept in registers (the compiler's
/// loop, unrolled twice, spills sums to the stack: 2.66 instructions per
/// MAC against 2.4). Other block heights take the portable loop.
#[cfg(not(target_feature = "dsp"))]
#[inline(always)]
pub(crate) fn dot_groups<const R: usize>(x: &[i8], block: &[i8], acc: [i32; R]) -> [i32; R] {
    let groups = x.len() / 4;
    if R != 4 || groups == 0 {
        return super::portable::dot_groups(x, block, acc);
    }
    let block = &block[..16 * groups];
    let (mut a0, mut a1, mut a2, mut a3) = (acc[0], acc[1], acc[2], acc[3]);
    // SAFETY: reads `4 * groups` bytes from `x` and `16 * groups` from
    // `block`, both at least that long (sliced above); registers only
    // otherwise; `groups >= 1`, so the count-down loop ends.
    unsafe {
        core::arch::asm!(
            "2:",
            "ldrsb {x0}, [{px}], #1",
            "ldrsb {x1}, [{px}], #1",
            "ldrsb {x2}, [{px}], #1",
            "ldrsb {x3}, [{px}], #1",
            "ldrsb {w}, [{pw}], #1", "mla {a0}, {w}, {x0}, {a0}",
            "ldrsb {w}, [{pw}], #1", "mla {a0}, {w}, {x1}, {a0}",
            "ldrsb {w}, [{pw}], #1", "mla {a0}, {w}, {x2}, {a0}",
            "ldrsb {w}, [{pw}], #1", "mla {a0}, {w}, {x3}, {a0}",
            "ldrsb {w}, [{pw}], #1", "mla {a1}, {w}, {x0}, {a1}",
            "ldrsb {w}, [{pw}], #1", "mla {a1}, {w}, {x1}, {a1}",
            "ldrsb {w}, [{pw}], #1", "mla {a1}, {w}, {x2}, {a1}",
            "ldrsb {w}, [{pw}], #1", "mla {a1}, {w}, {x3}, {a1}",
            "ldrsb {w}, [{pw}], #1", "mla {a2}, {w}, {x0}, {a2}",
            "ldrsb {w}, [{pw}], #1", "mla {a2}, {w}, {x1}, {a2}",
            "ldrsb {w}, [{pw}], #1", "mla {a2}, {w}, {x2}, {a2}",
            "ldrsb {w}, [{pw}], #1", "mla {a2}, {w}, {x3}, {a2}",
            "ldrsb {w}, [{pw}], #1", "mla {a3}, {w}, {x0}, {a3}",
            "ldrsb {w}, [{pw}], #1", "mla {a3}, {w}, {x1}, {a3}",
            "ldrsb {w}, [{pw}], #1", "mla {a3}, {w}, {x2}, {a3}",
            "ldrsb {w}, [{pw}], #1", "mla {a3}, {w}, {x3}, {a3}",
            "subs lr, lr, #1",
            "bne 2b",
            a0 = inout(reg) a0,
            a1 = inout(reg) a1,
            a2 = inout(reg) a2,
            a3 = inout(reg) a3,
            x0 = out(reg) _,
            x1 = out(reg) _,
            x2 = out(reg) _,
            x3 = out(reg) _,
            w = out(reg) _,
            px = inout(reg) x.as_ptr() => _,
            pw = inout(reg) block.as_ptr() => _,
            inout("lr") groups => _,
            options(nostack, readonly),
        );
    }
    let mut out = acc;
    out.copy_from_slice(&[a0, a1, a2, a3][..R]);
    out
}

/// `portable::dot_two_quads` for cores without the DSP extension
/// (Cortex-M3): a block of 4 rows against two inputs as one assembly
/// loop. The 8 sums start at the rows' biases (loaded by the block) and
/// live in r4-r11 (r6 and r7, which `asm!` cannot name, saved and
/// restored by the block); per input value both pixels' bytes (`LDRSB`,
/// post-incremented), then per row one `LDRSB` of the weight and two
/// `MLA`, one per pixel: 14 instructions per 8 MACs where [`dot_groups`]
/// takes 19 (each weight loaded once for both). The loop ends when the
/// first input's pointer reaches its end (kept on the stack, beside the
/// sums' address).
#[cfg(not(target_feature = "dsp"))]
#[inline(always)]
pub(crate) fn dot_two_quads(xa: &[i8], xb: &[i8], block: &[i8], bias: &[i32]) -> [i32; 8] {
    let groups = xa.len() / 4;
    if groups == 0 || xb.len() / 4 != groups {
        return super::portable::dot_two_quads(xa, xb, block, bias);
    }
    let (xa, xb, block, bias) = (&xa[..4 * groups], &xb[..4 * groups], &block[..16 * groups], &bias[..4]);
    let mut sums = core::mem::MaybeUninit::<[i32; 8]>::uninit();
    // SAFETY: reads the 4 biases of `bias`, the `4 * groups` bytes of `xa`
    // and `xb` and the `16 * groups` of `block` (sliced above), the
    // pointers stepping once per value (inputs) and once per group
    // (weights) until `xa`'s reaches its end (`groups >= 1`); writes the 8
    // sums of `sums`. r6 and r7 are pushed first and popped last, and the
    // stack is balanced; registers otherwise (ARMv7-M base).
    unsafe {
        core::arch::asm!(
            "push {{r6, r7}}",
            "push {{r12, lr}}",
            "ldm r3, {{r4-r7}}",
            "mov r8, r4",
            "mov r9, r5",
            "mov r10, r6",
            "mov r11, r7",
            "2:",
            ".irp j, 0, 1, 2, 3",
            "ldrsb r3, [r0], #1",
            "ldrsb r12, [r1], #1",
            "ldrsb lr, [r2, #\\j]", "mla r4, lr, r3, r4", "mla r8, lr, r12, r8",
            "ldrsb lr, [r2, #(4 + \\j)]", "mla r5, lr, r3, r5", "mla r9, lr, r12, r9",
            "ldrsb lr, [r2, #(8 + \\j)]", "mla r6, lr, r3, r6", "mla r10, lr, r12, r10",
            "ldrsb lr, [r2, #(12 + \\j)]", "mla r7, lr, r3, r7", "mla r11, lr, r12, r11",
            ".endr",
            "add r2, r2, #16",
            "ldr lr, [sp]",
            "cmp r0, lr",
            "bne 2b",
            "pop {{r3, r12}}",
            "stm r12, {{r4-r11}}",
            "pop {{r6, r7}}",
            inout("r0") xa.as_ptr() => _,
            inout("r1") xb.as_ptr() => _,
            inout("r2") block.as_ptr() => _,
            inout("r3") bias.as_ptr() => _,
            inout("r12") xa.as_ptr_range().end => _,
            inout("lr") sums.as_mut_ptr() => _,
            out("r4") _,
            out("r5") _,
            out("r8") _,
            out("r9") _,
            out("r10") _,
            out("r11") _,
        );
        // SAFETY: the block wrote all 8.
        sums.assume_init()
    }
}

/// `portable::REQUANTIZE_LOOP`.
pub(crate) const REQUANTIZE_LOOP: bool = true;

/// Assembly: one output of the short-form requantization, whole int8
/// range: its scale (`LDM` from `{ps}`, advanced), `SMLAL`, `LSR`,
/// `SMLAL`, `ASR`, `SSAT` and a byte store (to `{po}`, advanced); `$a`
/// names the accumulator's register (clobbered), `{min}` holds `i32::MIN`.
#[rustfmt::skip]
macro_rules! down_one {
    ($a:literal) => {
        concat!(
            "ldm {ps}!, {{r2, r3, r4, r5}}\n",
            "smlal r4, r5, ", $a, ", r2\n",
            "lsr ", $a, ", ", $a, ", #31\n",
            "smlal r4, r5, ", $a, ", {min}\n",
            "asr r5, r5, r3\n",
            "ssat r5, #8, r5\n",
            "strb r5, [{po}], #1"
        )
    };
}

/// `portable::requantize_pixels_down` as one assembly loop per pixel. Per two
/// outputs: one `LDRD` of the accumulators, and for each one `LDM` of its
/// scale, `SMLAL`, `LSR`, `SMLAL`, `ASR`, `SSAT` and a byte store; then the
/// loop step (9 instructions per output; the compiler's own loop takes
/// 13). The accumulator and output pointers run on from pixel to pixel.
#[inline(always)]
pub(crate) fn requantize_pixels_down(acc: &[i32], scales: &[DownScale], out: &mut [i8]) {
    let channels = scales.len();
    if channels == 0 {
        return;
    }
    let pixels = out.len() / channels;
    let (acc, out) = (&acc[..pixels * channels], &mut out[..pixels * channels]);
    let (mut pa, mut po) = (acc.as_ptr(), out.as_mut_ptr());
    for _ in 0..pixels {
        // SAFETY: per pixel the loops run `channels >= 1` times in all (one
        // single step when odd, then pairs), read that many accumulators
        // (4-aligned, as `LDRD` needs) from `pa` and scales, and write that
        // many bytes from `po`; `pa` and `po` advance by one pixel, and
        // `pixels * channels` values are in `acc` and `out` (the slicing
        // above). Register arithmetic otherwise (ARMv7-M base).
        unsafe { requantize_down_run(&mut pa, scales.as_ptr(), channels, &mut po) };
    }
}

/// The assembly of [`requantize_pixels_down`]: `n` outputs from `*pa`,
/// scales from `ps`, to `*po`, both pointers left past the run.
///
/// # Safety
/// `n >= 1`; `n` accumulators (4-aligned) readable at `*pa`, `n` scales at
/// `ps`, `n` bytes writable at `*po`.
#[inline(always)]
unsafe fn requantize_down_run(pa: &mut *const i32, ps: *const DownScale, n: usize, po: &mut *mut i8) {
    // SAFETY: the caller's contract; the loops read and write exactly `n`
    // values each.
    unsafe {
        core::arch::asm!(
            "tst {n}, #1",
            "beq 3f",
            "ldr {a}, [{pa}], #4",
            down_one!("{a}"),
            "subs {n}, {n}, #1",
            "beq 4f",
            "3:",
            "ldrd {a}, {b}, [{pa}], #8",
            down_one!("{a}"),
            down_one!("{b}"),
            "subs {n}, {n}, #2",
            "bne 3b",
            "4:",
            pa = inout(reg) *pa,
            ps = inout(reg) ps => _,
            po = inout(reg) *po,
            n = inout(reg) n => _,
            min = in(reg) i32::MIN,
            a = out(reg) _,
            b = out(reg) _,
            out("r2") _,
            out("r3") _,
            out("r4") _,
            out("r5") _,
            options(nostack),
        );
    }
}

/// `portable::requantize_block` for sums still in registers: per output
/// one `LDM` of its scale, `SMLAL`, `LSR`, `SMLAL`, `ASR`, `SSAT` and a
/// byte store (7).
#[inline(always)]
pub(crate) fn requantize_block(sums: &[i32], scales: &[DownScale], out: &mut [i8]) {
    let n = sums.len();
    let (scales, out) = (&scales[..n], &mut out[..n]);
    let (mut ps, mut po) = (scales.as_ptr(), out.as_mut_ptr());
    for &a in sums {
        // SAFETY: `ps` and `po` step through `scales` and `out`, both
        // `n` long (sliced above), one element per sum; register
        // arithmetic otherwise (ARMv7-M base).
        unsafe {
            core::arch::asm!(
                down_one!("{a}"),
                ps = inout(reg) ps,
                po = inout(reg) po,
                a = inout(reg) a => _,
                min = in(reg) i32::MIN,
                out("r2") _,
                out("r3") _,
                out("r4") _,
                out("r5") _,
                options(nostack),
            );
        }
    }
}
