//! ARMv6-M (Cortex-M0/M0+): Thumb-1 only, no 64-bit product (the
//! requantization takes `portable::rescale_down_halves`, chosen in
//! `arch/mod.rs`), loads without sign extension or post-increment, and
//! flag-setting arithmetic on the low registers r0-r7 only.

/// `portable::dot_groups` for a block of 4 rows as one assembly loop over
/// the groups. Per group: each input and weight byte by `LDRB` (immediate
/// offsets, so no index registers) and `SXTB`, per weight a `MULS` into
/// the low register and an `ADD` into its row's sum, kept in a high
/// register (r8-r11: too few low registers are free); the pointers step
/// once per group. 76 instructions per 16 MACs, where the compiler's loop
/// takes about 108. Other block heights take the portable loop.
#[inline(always)]
pub(crate) fn dot_groups<const R: usize>(x: &[i8], block: &[i8], acc: [i32; R]) -> [i32; R] {
    let groups = x.len() / 4;
    if R != 4 || groups == 0 {
        return super::portable::dot_groups(x, block, acc);
    }
    let (x, block) = (&x[..4 * groups], &block[..16 * groups]);
    let mut sums = [acc[0], acc[1], acc[2], acc[3]];
    // SAFETY: reads the `4 * groups` bytes of `x` and `16 * groups` of
    // `block` (sliced above), stepping both pointers once per group until
    // the input pointer reaches `x`'s end (`groups >= 1`); reads and
    // writes the four sums of `sums`; registers otherwise (high registers
    // can only be clobbers in Thumb-1 asm: the sums go through `sums`).
    unsafe {
        core::arch::asm!(
            ".irp r, 8, 9, 10, 11",
            "ldr r2, [r4, #(4 * (\\r - 8))]",
            "mov r\\r, r2",
            ".endr",
            "mov r12, r5",
            "2:",
            // One input: `x` into r2; then its 4 weights, one per row.
            ".irp j, 0, 1, 2, 3",
            "ldrb r2, [r1, #\\j]",
            "sxtb r2, r2",
            "ldrb r3, [r0, #\\j]", "sxtb r3, r3", "muls r3, r2", "add r8, r3",
            "ldrb r3, [r0, #(4 + \\j)]", "sxtb r3, r3", "muls r3, r2", "add r9, r3",
            "ldrb r3, [r0, #(8 + \\j)]", "sxtb r3, r3", "muls r3, r2", "add r10, r3",
            "ldrb r3, [r0, #(12 + \\j)]", "sxtb r3, r3", "muls r3, r2", "add r11, r3",
            ".endr",
            "adds r0, #16",
            "adds r1, #4",
            "cmp r1, r12",
            "bne 2b",
            ".irp r, 8, 9, 10, 11",
            "mov r2, r\\r",
            "str r2, [r4, #(4 * (\\r - 8))]",
            ".endr",
            inout("r0") block.as_ptr() => _,
            inout("r1") x.as_ptr() => _,
            out("r2") _,
            out("r3") _,
            in("r4") sums.as_mut_ptr(),
            in("r5") x.as_ptr().add(x.len()),
            out("r8") _,
            out("r9") _,
            out("r10") _,
            out("r11") _,
            out("r12") _,
            options(nostack),
        );
    }
    let mut out = acc;
    out.copy_from_slice(&sums[..R]);
    out
}

/// `portable::doubled_k_low`: the constant the stream holds, folded into
/// the halves form's low-word sum.
#[inline(always)]
pub(crate) fn doubled_k_low(_word: u32) -> i32 {
    i32::MIN
}
