//! Helium, Arm's M-profile vector extension (MVE: Cortex-M55, M85), under
//! the `helium` feature: the int8 dot products of the rows in the vector
//! layout (`layout::pack_rows_vector`, `kernels::dot_vector`) sixteen values
//! per instruction (`VMLADAVA.S8`), and their requantization four channels
//! per vector. Integer sums do not depend on the order: TFLite's bits. The
//! other blocks are the DSP extension's (the M55 has it).
//!
//! The rustc that builds firmware exposes no `mve` target feature to
//! `cfg`, so the feature is the user's word that the target has MVE
//! (`-C target-cpu=cortex-m55` or `cortex-m85`, which also lets the
//! assembler take these instructions).

/// The multiply-accumulates of one run of 16 values of a block of 4 rows
/// against the input run in vector register `$x` (assembly text).
macro_rules! block_run {
    ($x:literal) => {
        concat!(
            "vldrb.u8 q0, [{w}], #64\n",
            "vmladava.s8 r0, q0, ",
            $x,
            "\n",
            "vldrb.u8 q1, [{w}, #-48]\n",
            "vmladava.s8 r2, q1, ",
            $x,
            "\n",
            "vldrb.u8 q2, [{w}, #-32]\n",
            "vmladava.s8 r4, q2, ",
            $x,
            "\n",
            "vldrb.u8 q3, [{w}, #-16]\n",
            "vmladava.s8 r8, q3, ",
            $x,
            "\n",
        )
    };
}

/// `portable::DOT_PAIRS`: the vector dot products take one pixel at a time
/// (the pixel-pair kernels are the DSP extension's).
pub(crate) const DOT_PAIRS: bool = false;

/// `portable::WIDEN_INPUT`: the vectors read the int8 input as it is.
pub(crate) const WIDEN_INPUT: bool = false;

/// `portable::dot_vector_rows`: per run of 16 values one load of the input
/// and one load and one `VMLADAVA.S8` per row, the loads and the
/// multiply-accumulates alternating (the M55 overlaps a load with a
/// multiply, never two loads); the input's last partial run under a
/// predicate (`VCTP`: lanes past the row read nothing and hold zero; the
/// rows are zero-padded to whole runs).
#[inline(always)]
pub(crate) fn dot_vector_rows<const R: usize>(x: &[i8], block: &[i8], acc: [i32; R]) -> [i32; R] {
    let (runs, rest) = (x.len() / 16, x.len() % 16);
    assert!(block.len() >= R * 16 * x.len().div_ceil(16) && R >= 1 && R <= 4 && R != 3);
    let mut a = [0i32; 4];
    a[..R].copy_from_slice(&acc);
    let [mut a0, mut a1, mut a2, mut a3] = a;
    // The loops below leave their pointers here: at the last partial run.
    let (mut xp, mut wp) = (x.as_ptr(), block.as_ptr());
    if runs > 0 {
        // SAFETY: each loop reads `16 * runs` bytes of `x` and `16 * R *
        // runs` of `block` (checked above); vector registers q0-q4 are
        // declared clobbered; no stack. `VMLADAVA` takes even accumulator
        // registers, hence the explicit ones.
        unsafe {
            match R {
                4 => core::arch::asm!(
                    "dls lr, lr",
                    "2:",
                    "vldrb.u8 q4, [{x}], #16",
                    block_run!("q4"),
                    "le lr, 2b",
                    x = inout(reg) xp,
                    w = inout(reg) wp,
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
                ),
                2 => core::arch::asm!(
                    "dls lr, lr",
                    "2:",
                    "vldrb.u8 q4, [{x}], #16",
                    "vldrb.u8 q0, [{w}], #32",
                    "vmladava.s8 r0, q0, q4",
                    "vldrb.u8 q1, [{w}, #-16]",
                    "vmladava.s8 r2, q1, q4",
                    "le lr, 2b",
                    x = inout(reg) xp,
                    w = inout(reg) wp,
                    inout("lr") runs => _,
                    inout("r0") a0,
                    inout("r2") a1,
                    out("q0") _,
                    out("q1") _,
                    out("q4") _,
                    options(nostack, readonly),
                ),
                _ => core::arch::asm!(
                    "dls lr, lr",
                    "2:",
                    "vldrb.u8 q4, [{x}], #16",
                    "vldrb.u8 q0, [{w}], #16",
                    "vmladava.s8 r0, q0, q4",
                    "le lr, 2b",
                    x = inout(reg) xp,
                    w = inout(reg) wp,
                    inout("lr") runs => _,
                    inout("r0") a0,
                    out("q0") _,
                    out("q4") _,
                    options(nostack, readonly),
                ),
            }
        }
    }
    if rest > 0 {
        // SAFETY: the input load is predicated to its `rest` bytes left in
        // `x`; each row's run is 16 whole bytes of `block` (padded, checked
        // above). Registers as above.
        unsafe {
            match R {
                4 => core::arch::asm!(
                    "vctp.8 {n}",
                    "vpst",
                    "vldrbt.u8 q4, [{x}]",
                    "vldrb.u8 q0, [{w}]",
                    "vmladava.s8 r0, q0, q4",
                    "vldrb.u8 q1, [{w}, #16]",
                    "vmladava.s8 r2, q1, q4",
                    "vldrb.u8 q2, [{w}, #32]",
                    "vmladava.s8 r4, q2, q4",
                    "vldrb.u8 q3, [{w}, #48]",
                    "vmladava.s8 r8, q3, q4",
                    n = in(reg) rest,
                    x = in(reg) xp,
                    w = in(reg) wp,
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
                ),
                2 => core::arch::asm!(
                    "vctp.8 {n}",
                    "vpst",
                    "vldrbt.u8 q4, [{x}]",
                    "vldrb.u8 q0, [{w}]",
                    "vmladava.s8 r0, q0, q4",
                    "vldrb.u8 q1, [{w}, #16]",
                    "vmladava.s8 r2, q1, q4",
                    n = in(reg) rest,
                    x = in(reg) xp,
                    w = in(reg) wp,
                    inout("r0") a0,
                    inout("r2") a1,
                    out("q0") _,
                    out("q1") _,
                    out("q4") _,
                    options(nostack, readonly),
                ),
                _ => core::arch::asm!(
                    "vctp.8 {n}",
                    "vpst",
                    "vldrbt.u8 q4, [{x}]",
                    "vldrb.u8 q0, [{w}]",
                    "vmladava.s8 r0, q0, q4",
                    n = in(reg) rest,
                    x = in(reg) xp,
                    w = in(reg) wp,
                    inout("r0") a0,
                    out("q0") _,
                    out("q4") _,
                    options(nostack, readonly),
                ),
            }
        }
    }
    let mut out = acc;
    out.copy_from_slice(&[a0, a1, a2, a3][..R]);
    out
}

/// `portable::requantize_vector4`: the 4 sums requantized as one vector.
/// `VLD4.32` splits the 4 channels' short-form scales into multipliers and
/// shifts; then TFLite's `MultiplyByQuantizedMultiplier` as `VQRDMULH` (its
/// doubling rounding high multiply: the multiplier is below 2^31, nothing
/// saturates) and `VRSHL` by the negated right shift (rounding half up)
/// after subtracting 1 from negative sums' products (so halves round away
/// from zero: `fixedpoint::rescale_down`'s `[acc < 0]`, a saturating add,
/// which changes nothing at the bottom of the range), the output offset,
/// and a saturating shift to int8 (`VQSHL` by 24, back by 24), stored as 4
/// bytes.
#[inline(always)]
pub(crate) fn requantize_vector4(
    [a0, a1, a2, a3]: [i32; 4],
    scales: &[crate::kernels::DownScale],
    offset: i32,
    out: &mut [i8],
) {
    let (scales, out) = (&scales[..4], &mut out[..4]);
    // SAFETY: reads the 4 scales (64 bytes) and writes the 4 output bytes,
    // both inside their slices (taken above); q0-q3 are declared clobbered;
    // no stack.
    unsafe {
        core::arch::asm!(
            "vld40.32 {{q0, q1, q2, q3}}, [{s}]",
            "vld41.32 {{q0, q1, q2, q3}}, [{s}]",
            "vld42.32 {{q0, q1, q2, q3}}, [{s}]",
            "vld43.32 {{q0, q1, q2, q3}}, [{s}]",
            // One lane at a time: the two-lane form's lane order is where
            // QEMU and the assembler's documentation disagree.
            "vmov.32 q2[0], {a0}",
            "vmov.32 q2[1], {a1}",
            "vmov.32 q2[2], {a2}",
            "vmov.32 q2[3], {a3}",
            "vqrdmulh.s32 q0, q2, q0",
            "vshr.s32 q2, q2, #31",
            "vqadd.s32 q0, q0, q2",
            "vmvn q1, q1",
            "vrshl.s32 q0, q0, q1",
            "vadd.i32 q0, q0, {offset}",
            "vqshl.s32 q0, q0, #24",
            "vshr.s32 q0, q0, #24",
            "vstrb.32 q0, [r1]",
            s = in(reg) scales.as_ptr(),
            // The narrowing store takes a low base register.
            in("r1") out.as_mut_ptr(),
            a0 = in(reg) a0,
            a1 = in(reg) a1,
            a2 = in(reg) a2,
            a3 = in(reg) a3,
            offset = in(reg) offset,
            out("q0") _,
            out("q1") _,
            out("q2") _,
            out("q3") _,
            options(nostack),
        );
    }
}

/// `portable::dot_vector_blocks_down` for rows of up to 64 values: the
/// input loaded once into q4-q7 (its last run under `VCTP`), then per
/// block of 4 rows its biases, per run 4 loads and 4 `VMLADAVA` (no input
/// loads: the weights' loads alone hold the load unit), and
/// [`requantize_vector4`]'s vector requantization, all in one loop.
#[inline(always)]
pub(crate) fn dot_vector_blocks_down(
    x: &[i8],
    rows: &[i8],
    bias: &[i32],
    scales: &[crate::kernels::DownScale],
    offset: i32,
    out: &mut [i8],
) -> bool {
    let (depth, blocks) = (x.len(), out.len() / 4);
    let runs = depth.div_ceil(16);
    if depth == 0 || runs > 4 || blocks == 0 {
        return false;
    }
    assert!(
        out.len() == 4 * blocks
            && rows.len() >= 64 * runs * blocks
            && bias.len() >= 4 * blocks
            && scales.len() >= 4 * blocks
    );
    // The last run's bytes (1..=16).
    let last = depth - 16 * (runs - 1);
    // The input runs into q4..q7, the last one predicated; then the loop.
    macro_rules! pass {
        ($load:expr, $runs:expr) => {
            // SAFETY: the input loads read `depth` bytes of `x` (the last
            // run predicated to its `last` bytes); per block the loop reads
            // 4 biases, `64 * runs` bytes of `rows`, 4 scales (64 bytes) and
            // writes 4 output bytes: `blocks` times, inside the slices
            // (asserted above). q0-q7 are declared clobbered; no stack.
            // `VMLADAVA` takes even accumulators and `VSTRB.32` a low base
            // register, hence the explicit ones.
            unsafe {
                core::arch::asm!(
                    $load,
                    "dls lr, lr",
                    "2:",
                    "ldrd r0, r2, [{b}], #8",
                    "ldrd r4, r8, [{b}], #8",
                    $runs,
                    "vld40.32 {{q0, q1, q2, q3}}, [{s}]",
                    "vld41.32 {{q0, q1, q2, q3}}, [{s}]",
                    "vld42.32 {{q0, q1, q2, q3}}, [{s}]",
                    "vld43.32 {{q0, q1, q2, q3}}, [{s}]!",
                    "vmov.32 q2[0], r0",
                    "vmov.32 q2[1], r2",
                    "vmov.32 q2[2], r4",
                    "vmov.32 q2[3], r8",
                    "vqrdmulh.s32 q0, q2, q0",
                    "vshr.s32 q2, q2, #31",
                    "vqadd.s32 q0, q0, q2",
                    "vmvn q1, q1",
                    "vrshl.s32 q0, q0, q1",
                    "vadd.i32 q0, q0, {offset}",
                    "vqshl.s32 q0, q0, #24",
                    "vshr.s32 q0, q0, #24",
                    "vstrb.32 q0, [r1], #4",
                    "le lr, 2b",
                    x = in(reg) x.as_ptr(),
                    last = in(reg) last,
                    w = inout(reg) rows.as_ptr() => _,
                    b = inout(reg) bias.as_ptr() => _,
                    s = inout(reg) scales.as_ptr() => _,
                    offset = in(reg) offset,
                    inout("lr") blocks => _,
                    inout("r1") out.as_mut_ptr() => _,
                    out("r0") _,
                    out("r2") _,
                    out("r4") _,
                    out("r8") _,
                    out("q0") _,
                    out("q1") _,
                    out("q2") _,
                    out("q3") _,
                    out("q4") _,
                    out("q5") _,
                    out("q6") _,
                    out("q7") _,
                    options(nostack),
                )
            }
        };
    }
    match runs {
        1 => pass!("vctp.8 {last}\nvpst\nvldrbt.u8 q4, [{x}]", block_run!("q4")),
        2 => pass!(
            "vldrb.u8 q4, [{x}]\nvctp.8 {last}\nvpst\nvldrbt.u8 q5, [{x}, #16]",
            concat!(block_run!("q4"), block_run!("q5"))
        ),
        3 => pass!(
            "vldrb.u8 q4, [{x}]\nvldrb.u8 q5, [{x}, #16]\nvctp.8 {last}\nvpst\nvldrbt.u8 q6, [{x}, #32]",
            concat!(block_run!("q4"), block_run!("q5"), block_run!("q6"))
        ),
        _ => pass!(
            "vldrb.u8 q4, [{x}]\nvldrb.u8 q5, [{x}, #16]\nvldrb.u8 q6, [{x}, #32]\nvctp.8 {last}\nvpst\nvldrbt.u8 q7, [{x}, #48]",
            concat!(block_run!("q4"), block_run!("q5"), block_run!("q6"), block_run!("q7"))
        ),
    }
    true
}

/// `portable::dot_vector_window4` in one assembly loop: per window row its
/// runs (one input load, four row loads and four `VMLADAVA` each, a
/// low-overhead loop), then the input pointer on to the next row.
#[inline(always)]
pub(crate) fn dot_vector_window4(
    x: &[i8],
    segments: usize,
    len: usize,
    step: usize,
    block: &[i8],
    acc: [i32; 4],
) -> [i32; 4] {
    let runs = len / 16;
    if segments == 0 || runs == 0 {
        return acc;
    }
    assert!(
        len % 16 == 0 && step >= len && x.len() >= (segments - 1) * step + len && block.len() >= 4 * segments * len
    );
    let [mut a0, mut a1, mut a2, mut a3] = acc;
    // SAFETY: per window row the loop reads its `len` bytes of `x` (`step`
    // apart, the last ending inside `x`) and `4 * len` bytes of `block`
    // (asserted above); q0-q4 are declared clobbered; no stack. `VMLADAVA`
    // takes even accumulators, hence the explicit ones.
    unsafe {
        core::arch::asm!(
            "2:",
            "mov lr, {runs}",
            "dls lr, lr",
            "3:",
            "vldrb.u8 q4, [{x}], #16",
            block_run!("q4"),
            "le lr, 3b",
            "add {x}, {skip}",
            "subs {n}, #1",
            "bne 2b",
            x = inout(reg) x.as_ptr() => _,
            w = inout(reg) block.as_ptr() => _,
            n = inout(reg) segments => _,
            runs = in(reg) runs,
            skip = in(reg) step - len,
            out("lr") _,
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
    [a0, a1, a2, a3]
}
