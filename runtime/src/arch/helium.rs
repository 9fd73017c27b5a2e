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

use crate::kernels::Narrow;

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

/// The vector requantization of a block's 4 sums in r0, r2, r4 and r8
/// (assembly text, into the int8 range in q0's 32-bit lanes): the block's
/// 4 scales from `[$s]` (the register moves past them), their output
/// offset in register `$offset`; see [`requantize_vector4`]. The integer
/// and the multiply unit's instructions alternate where they can, and
/// `$fill1` and `$fill2` (a caller's scalar instructions, or nothing)
/// take the two places where one would wait for the other.
macro_rules! requantize_text {
    ($s:literal, $offset:literal, $fill1:literal, $fill2:literal) => {
        concat!(
            "vld40.32 {{q0, q1, q2, q3}}, [",
            $s,
            "]\n",
            "vld41.32 {{q0, q1, q2, q3}}, [",
            $s,
            "]\n",
            "vld42.32 {{q0, q1, q2, q3}}, [",
            $s,
            "]\n",
            "vld43.32 {{q0, q1, q2, q3}}, [",
            $s,
            "]!\n",
            "vmvn q1, q1\n",
            // One lane at a time: the two-lane form's lane order is where
            // QEMU and the assembler's documentation disagree.
            "vmov.32 q2[0], r0\n",
            "vmov.32 q2[1], r2\n",
            "vmov.32 q2[2], r4\n",
            "vmov.32 q2[3], r8\n",
            "vshr.s32 q3, q2, #31\n",
            "vqrdmulh.s32 q0, q2, q0\n",
            "vqadd.s32 q0, q0, q3\n",
            $fill1,
            "\nvrshl.s32 q0, q0, q1\n",
            "vadd.i32 q0, q0, ",
            $offset,
            "\n",
            "vqshl.s32 q0, q0, #24\n",
            $fill2,
            "\nvshr.s32 q0, q0, #24\n",
        )
    };
}

/// `portable::DOT_PAIRS`: the vector dot products take one pixel at a time
/// (the pixel-pair kernels are the DSP extension's).
pub(crate) const DOT_PAIRS: bool = false;

/// `portable::WIDEN_INPUT`: the vectors read the int8 input as it is.
pub(crate) const WIDEN_INPUT: bool = false;

/// The loop of [`add_sub_lanes`] (assembly text): per 4 elements the
/// operands' loads (`$w` `b` for int8, `h` for int16, `$step` bytes) (the rescaled one from r0, the halved one from r1, widened
/// to 32-bit lanes), `$rescale` (the rescaled operand's rounding multiply
/// and shift into q2, or nothing), `$combine` (their sum or difference
/// into q0), the output's rounding multiply and shift with its zero point,
/// the clamp, and a narrowing store through r2; tail-predicated (`WLSTP`/`LETP`: the
/// last run's lanes past `n` neither load nor store).
macro_rules! add_lanes_text {
    ($w:literal, $step:literal, $rescale:expr, $combine:literal) => {
        concat!(
            "vldrw.u32 q3, [{c}]\n",
            "vldrw.u32 q4, [{c}, #16]\n",
            "vldrw.u32 q5, [{c}, #32]\n",
            "vldrw.u32 q6, [{c}, #48]\n",
            "vldrw.u32 q7, [{c}, #64]\n",
            "ldrd {offa}, {offb}, [{c}, #80]\n",
            "ldrd {ma}, {nra}, [{c}, #88]\n",
            "ldrd {zo}, {mo}, [{c}, #96]\n",
            "ldr {c}, [{c}, #104]\n",
            "wlstp.32 lr, {n}, 3f\n",
            "2:\n",
            "vldr",
            $w,
            ".s32 q0, [r0], #",
            $step,
            "\n",
            "vmlas.i32 q0, q3, {offa}\n",
            "vldr",
            $w,
            ".s32 q1, [r1], #",
            $step,
            "\n",
            $rescale,
            "vmlas.i32 q1, q4, {offb}\n",
            $combine,
            // The sign by the multiply unit (the high word of `x * 1`),
            // which the integer unit's chain would wait for.
            "\nvmulh.s32 q1, q0, q5\n",
            "vadd.i32 q1, q1, {zo}\n",
            "vqrdmlah.s32 q1, q0, {mo}\n",
            "vrshl.s32 q1, {c}\n",
            "vmax.s32 q1, q1, q6\n",
            "vmin.s32 q1, q1, q7\n",
            "vstr",
            $w,
            ".32 q1, [r2], #",
            $step,
            "\n",
            "letp lr, 2b\n",
            "3:\n",
        )
    };
}

/// The rescaled operand's multiply and shift (`AddLanes::rescale`), q0
/// into q2: its sign (-1 for a negative value), `VQRDMLAH` adds the
/// rounding doubling high product, `VRSHL` shifts right rounding.
macro_rules! add_lanes_rescale {
    () => {
        "vshr.s32 q2, q0, #31\nvqrdmlah.s32 q2, q0, {ma}\nvrshl.s32 q2, {nra}\n"
    };
}

/// One group of 8 channels of [`depthwise_vector_groups`] (assembly
/// text): `$load` is the tap's input load into q2 from `[r0]` and
/// `$store` the 8 bytes' store from q0 through r2 (predicated in the
/// last, partial group).
macro_rules! depthwise_group_text {
    ($load:literal, $store:literal) => {
        concat!(
            "vldrw.u32 q0, [{h}]\n",
            "vldrw.u32 q1, [{h}, #16]\n",
            "add r1, {h}, #{header}\n",
            "mov {t}, {tbl}\n",
            "vmov.i32 q5, #0\n",
            // A tap's odd products are added during the next tap (q5),
            // so the load, multiply and integer units take turns.
            ".rept {taps}\n",
            "ldr r0, [{t}], #4\n",
            "vldrb.s16 q3, [r1], #8\n",
            "add r0, {c}\n",
            $load,
            "\nvmullb.s16 q4, q2, q3\n",
            "vadd.i32 q1, q1, q5\n",
            "vmullt.s16 q5, q2, q3\n",
            "vadd.i32 q0, q0, q4\n",
            ".endr\n",
            "vadd.i32 q1, q1, q5\n",
            "vldrw.u32 q2, [{h}, #32]\n",
            "vshr.s32 q4, q0, #31\n",
            "vldrw.u32 q6, [{h}, #48]\n",
            "vqrdmulh.s32 q0, q0, q2\n",
            "vshr.s32 q5, q1, #31\n",
            "vldrw.u32 q3, [{h}, #64]\n",
            "vqrdmulh.s32 q1, q1, q6\n",
            "vqadd.s32 q0, q0, q4\n",
            "vldrw.u32 q7, [{h}, #80]\n",
            "vqadd.s32 q1, q1, q5\n",
            "vrshl.s32 q0, q0, q3\n",
            "vrshl.s32 q1, q1, q7\n",
            // Saturated to 16 bits, the odd channels into the top
            // halfwords (the 8 channels in order), the offset added, then
            // saturated to 8 bits: the int8 clamp of the offset sum.
            "vqmovnb.s32 q0, q0\n",
            "vqmovnt.s32 q0, q1\n",
            "vqadd.s16 q0, q0, {offset}\n",
            "vqmovnb.s16 q0, q0\n",
            $store,
            "\nmov {h}, r1\n",
        )
    };
}

/// `portable::depthwise_vector_groups`: per group of 8 channels one loop
/// pass (`WLS`/`LE` over the whole groups), per tap (unrolled) the tap's input
/// pointer from the table, the 8 inputs and 8 weights widened to 16-bit
/// lanes by their loads (`VLDRB.S16`), `VMULLB`/`VMULLT` for the even and
/// odd channels' 32-bit products and two adds into the sums (from the
/// header's biases); then [`requantize_vector4`]'s rounding for each half
/// (multipliers and negated shifts from the header, lane by lane), both
/// halves narrowed with saturation into one vector of 16-bit lanes (the odd
/// channels into the top halfwords: `VQMOVNT`, the 8 channels in order),
/// the offset, a saturating narrow to bytes and one 8-byte store. A last
/// partial group (`C` not a multiple of 8) runs once more with its input
/// loads and its store predicated to its channels (`VCTP.16`; its header
/// and weights are padded to the whole group), so no byte past a pixel is
/// read or written.
#[inline(always)]
pub(crate) fn depthwise_vector_groups<const C: usize, const KW: usize, const KH: usize>(
    rows: &[[&[i8; C]; KW]; KH],
    stream: &[u32],
    offset: i32,
    out: &mut [i8],
) {
    use crate::kernels::layout::{DEPTHWISE_VECTOR_GROUP as G, DEPTHWISE_VECTOR_HEADER as H};
    let groups = C / G;
    let (stream, out) = (&stream[..C.div_ceil(G) * (H + 2 * KH * KW)], &mut out[..C]);
    if KH * KW == 0 {
        return super::portable::depthwise_vector_groups::<C, KW, KH>(rows, stream, offset, out);
    }
    // SAFETY: `rows` is KH * KW thin pointers (references to arrays of C
    // bytes), each read at channel offsets below C (8 per whole group,
    // `rest` under the predicate in the partial one); `stream` holds
    // C.div_ceil(8) groups of H + 2 * KH * KW words (the slicing above),
    // read in order; `out` holds C bytes, written 8 per whole group and
    // `rest` (predicated) in the partial one. q0-q7 are declared
    // clobbered; no stack.
    unsafe {
        core::arch::asm!(
            "wls lr, {groups}, 3f",
            "2:",
            depthwise_group_text!("vldrb.s16 q2, [r0]", "vstrb.16 q0, [r2], #8"),
            "add {c}, #8",
            "le lr, 2b",
            "3:",
            // The partial group, assembled only where there is one.
            ".if {rest}",
            "mov r0, #{rest}",
            "vctp.16 r0",
            depthwise_group_text!("vpst\nvldrbt.s16 q2, [r0]", "vpst\nvstrbt.16 q0, [r2]"),
            ".endif",
            groups = in(reg) groups,
            rest = const C % G,
            header = const 4 * H,
            taps = const KH * KW,
            h = inout(reg) stream.as_ptr() => _,
            tbl = in(reg) rows.as_ptr() as *const *const i8,
            t = out(reg) _,
            c = inout(reg) 0usize => _,
            offset = in(reg) offset,
            // The widening loads and the narrowing store take low
            // base registers.
            out("r0") _,
            out("r1") _,
            inout("r2") out.as_mut_ptr() => _,
            out("lr") _,
            out("q0") _,
            out("q1") _,
            out("q2") _,
            out("q3") _,
            out("q4") _,
            out("q5") _,
            out("q6") _,
            out("q7") _,
            options(nostack, preserves_flags),
        );
    }
}

/// `portable::VECTOR_LANES`: four 32-bit lanes per instruction.
pub(crate) const VECTOR_LANES: bool = true;

/// `portable::add_sub_lanes` as one vector loop (16 instructions per 4
/// elements, against about 12 per element in scalar int8 code and more
/// in int16's 64-bit rescales): each operand
/// `x * 2^shift + (offset << shift)` in one `VMLAS`, the rescaled one's
/// `AddLanes::rescale` (sign, `VQRDMLAH`, `VRSHL`), the sum or difference,
/// the output's rescale with its zero point folded into the accumulated
/// term (`zero point << right` added to the sign, which `VMULH` by ones
/// gives on the multiply unit),
/// `VMAX`/`VMIN` for the clamp and a narrowing store.
///
/// # Safety
/// As `portable::add_sub_lanes`.
#[inline(always)]
pub(crate) unsafe fn add_sub_lanes<T: Narrow>(
    first: *const T,
    second: *const T,
    out: *mut T,
    n: usize,
    l: &crate::kernels::binary::AddLanes,
) {
    // The rescaled operand is loaded first (`a`), the halved one second.
    let (a, b) = if l.rescaled == Some(1) { (1, 0) } else { (0, 1) };
    let dup = |v: i32| [v; 4];
    let [va, vb, ones, lo, hi] = [dup(1 << l.shift[a]), dup(1 << l.shift[b]), dup(1), dup(l.act_min), dup(l.act_max)];
    let tail = [
        l.offset[a].wrapping_shl(l.shift[a] as u32),
        l.offset[b].wrapping_shl(l.shift[b] as u32),
        l.multiplier,
        -l.right,
        l.out_offset << l.out_right,
        l.out_multiplier,
        -l.out_right,
    ];
    let mut c = [0i32; 27];
    for (k, v) in [va, vb, ones, lo, hi].iter().flatten().chain(&tail).enumerate() {
        c[k] = *v;
    }
    let [pa, pb] = if a == 0 { [first, second] } else { [second, first] };
    macro_rules! run {
        ($rescale:expr, $combine:literal) => {
            if T::BYTES == 1 { run!("b", "4", $rescale, $combine) } else { run!("h", "8", $rescale, $combine) }
        };
        ($w:literal, $step:literal, $rescale:expr, $combine:literal) => {
            // SAFETY: the loop reads `n` values (of `T`'s width, the
            // loads' and store's) behind `pa` and `pb` and
            // writes `n` behind `out` (the caller's runs; the predicate
            // stops each at `n`), each run of 4 read before it is
            // written; `c` is the 27 words read at setup; q0-q7 are
            // declared clobbered; no stack.
            unsafe {
                core::arch::asm!(
                    add_lanes_text!($w, $step, $rescale, $combine),
                    c = inout(reg) c.as_ptr() => _,
                    n = in(reg) n,
                    // The widening loads and the narrowing store take
                    // low base registers.
                    inout("r0") pa => _,
                    inout("r1") pb => _,
                    inout("r2") out => _,
                    offa = out(reg) _,
                    offb = out(reg) _,
                    ma = out(reg) _,
                    nra = out(reg) _,
                    zo = out(reg) _,
                    mo = out(reg) _,
                    out("lr") _,
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
    match (l.rescaled.is_some(), l.sub, a) {
        (true, false, _) => run!(add_lanes_rescale!(), "vadd.i32 q0, q2, q1"),
        (true, true, 0) => run!(add_lanes_rescale!(), "vsub.i32 q0, q2, q1"),
        (true, true, _) => run!(add_lanes_rescale!(), "vsub.i32 q0, q1, q2"),
        (false, false, _) => run!("", "vadd.i32 q0, q0, q1"),
        (false, true, _) => run!("", "vsub.i32 q0, q0, q1"),
    }
}

/// The loop of [`mul_lanes`] (assembly text): per 4 elements both operands'
/// loads (`$w`, `$step` as [`add_lanes_text`]) widened to 32-bit lanes (r0, r1), their offsets, the product and
/// its left shift, `$sign` (the product's sign into q1 for a right shift,
/// zero without one), the zero point's term, the rounding doubling high
/// multiply-accumulate and the rounding right shift, the clamp and a
/// narrowing store through r2; tail-predicated as [`add_lanes_text`].
macro_rules! mul_lanes_text {
    ($w:literal, $step:literal, $sign:literal) => {
        concat!(
            "vldrw.u32 q5, [{c}]\n",
            "vldrw.u32 q6, [{c}, #16]\n",
            "vldrw.u32 q7, [{c}, #32]\n",
            "ldrd {o1}, {o2}, [{c}, #48]\n",
            "ldrd {left}, {zo}, [{c}, #56]\n",
            "ldr {m}, [{c}, #64]\n",
            "ldr {c}, [{c}, #68]\n",
            "wlstp.32 lr, {n}, 3f\n",
            "2:\n",
            "vldr",
            $w,
            ".s32 q0, [r0], #",
            $step,
            "\n",
            "vadd.i32 q0, q0, {o1}\n",
            "vldr",
            $w,
            ".s32 q1, [r1], #",
            $step,
            "\n",
            "vadd.i32 q1, q1, {o2}\n",
            "vmul.i32 q0, q0, q1\n",
            "vshl.s32 q0, {left}\n",
            $sign,
            "\nvadd.i32 q1, q1, {zo}\n",
            "vqrdmlah.s32 q1, q0, {m}\n",
            "vrshl.s32 q1, {c}\n",
            "vmax.s32 q1, q1, q5\n",
            "vmin.s32 q1, q1, q6\n",
            "vstr",
            $w,
            ".32 q1, [r2], #",
            $step,
            "\n",
            "letp lr, 2b\n",
            "3:\n",
        )
    };
}

/// `portable::mul_lanes` as one vector loop (13 instructions per 4
/// elements): the offset operands' product (`VMUL`), its left shift,
/// then `MulLanes::apply`'s rounding as [`add_sub_lanes`]'s output (the
/// sign by `VMULH` by ones, the zero point's term, `VQRDMLAH`, `VRSHL`),
/// `VMAX`/`VMIN` and a narrowing store.
///
/// # Safety
/// As `portable::mul_lanes`.
#[inline(always)]
pub(crate) unsafe fn mul_lanes<T: Narrow>(
    first: *const T,
    second: *const T,
    out: *mut T,
    n: usize,
    l: &crate::kernels::binary::MulLanes,
) {
    let mut c = [0i32; 18];
    let tail = [l.offset[0], l.offset[1], l.left, l.out_offset << l.right, l.multiplier, -l.right];
    for (k, v) in [[l.act_min; 4], [l.act_max; 4], [1; 4]].iter().flatten().chain(&tail).enumerate() {
        c[k] = *v;
    }
    macro_rules! run {
        ($sign:literal) => {
            if T::BYTES == 1 { run!("b", "4", $sign) } else { run!("h", "8", $sign) }
        };
        ($w:literal, $step:literal, $sign:literal) => {
            // SAFETY: the loop reads `n` values (of `T`'s width) behind `first` and
            // `second` and writes `n` behind `out` (the caller's runs; the
            // predicate stops each at `n`), each run of 4 read before it
            // is written; `c` is the 18 words read at setup; q0, q1 and
            // q5-q7 are declared clobbered; no stack.
            unsafe {
                core::arch::asm!(
                    mul_lanes_text!($w, $step, $sign),
                    c = inout(reg) c.as_ptr() => _,
                    n = in(reg) n,
                    // The widening loads and the narrowing store take
                    // low base registers.
                    inout("r0") first => _,
                    inout("r1") second => _,
                    inout("r2") out => _,
                    o1 = out(reg) _,
                    o2 = out(reg) _,
                    left = out(reg) _,
                    zo = out(reg) _,
                    m = out(reg) _,
                    out("lr") _,
                    out("q0") _,
                    out("q1") _,
                    out("q5") _,
                    out("q6") _,
                    out("q7") _,
                    options(nostack),
                )
            }
        };
    }
    if l.right == 0 { run!("vmov.i32 q1, #0") } else { run!("vmulh.s32 q1, q0, q7") }
}

/// `portable::BYTE_VECTORS`: `VMAX.S8` takes 16 lanes, `VADD.I16` 8.
pub(crate) const BYTE_VECTORS: bool = true;

/// One tail-predicated loop folding `x` into `acc` lane by lane over the
/// shorter of the two (`$op` between the two loads and the store:
/// `VMAX` for the pools' maxima, `VADD` for their 16-bit sums; `WLSTP`/`LETP`:
/// in the last run the lanes past the end neither load nor store; no run
/// at all for no values).
macro_rules! lanes_into {
    ($name:ident, $acc:ty, $x:ty, $what:literal, $wlstp:literal, $ld:literal, $ld_x:literal, $op:literal, $st:literal) => {
        #[doc = $what]
        #[inline(always)]
        pub(crate) fn $name(acc: &mut [$acc], x: &[$x]) {
            let n = acc.len().min(x.len());
            // SAFETY: the loop reads and writes `n` values of `acc` and
            // reads `n` of `x` (the predicate stops each at `n`), both
            // within their slices; q0 and q1 are declared clobbered; no
            // stack.
            unsafe {
                core::arch::asm!(
                    $wlstp,
                    "2:",
                    $ld,
                    $ld_x,
                    $op,
                    $st,
                    "letp lr, 2b",
                    "3:",
                    n = in(reg) n,
                    a = inout(reg) acc.as_mut_ptr() => _,
                    x = inout(reg) x.as_ptr() => _,
                    out("lr") _,
                    out("q0") _,
                    out("q1") _,
                    options(nostack),
                );
            }
        }
    };
}

lanes_into!(
    max_s8,
    i8,
    i8,
    "`portable::max_s8`: 16 lanes per `VMAX.S8`.",
    "wlstp.8 lr, {n}, 3f",
    "vldrb.u8 q0, [{a}]",
    "vldrb.u8 q1, [{x}], #16",
    "vmax.s8 q0, q0, q1",
    "vstrb.8 q0, [{a}], #16"
);
lanes_into!(
    max_s16,
    i16,
    i16,
    "`portable::max_s16`: 8 lanes per `VMAX.S16`.",
    "wlstp.16 lr, {n}, 3f",
    "vldrh.u16 q0, [{a}]",
    "vldrh.u16 q1, [{x}], #16",
    "vmax.s16 q0, q0, q1",
    "vstrh.16 q0, [{a}], #16"
);

lanes_into!(
    add_widened_s8,
    i16,
    i8,
    "`portable::add_widened_s8`: 8 lanes per `VADD.I16`, the input widened by its load (`VLDRB.S16`).",
    "wlstp.16 lr, {n}, 3f",
    "vldrh.u16 q0, [{a}]",
    "vldrb.s16 q1, [{x}], #8",
    "vadd.i16 q0, q0, q1",
    "vstrh.16 q0, [{a}], #16"
);

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
                // The next run's input load after the row loads: it waits
                // for no other load.
                4 => core::arch::asm!(
                    "vldrb.u8 q4, [{x}], #16",
                    "wls lr, lr, 3f",
                    "2:",
                    block_run!("q4"),
                    "vldrb.u8 q4, [{x}], #16",
                    "le lr, 2b",
                    "3:",
                    block_run!("q4"),
                    x = inout(reg) xp,
                    w = inout(reg) wp,
                    inout("lr") runs - 1 => _,
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
            requantize_text!("{s}", "{offset}", "", ""),
            "vstrb.32 q0, [r1]",
            s = inout(reg) scales.as_ptr() => _,
            // The narrowing store takes a low base register.
            in("r1") out.as_mut_ptr(),
            in("r0") a0,
            in("r2") a1,
            in("r4") a2,
            in("r8") a3,
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
                    requantize_text!("{s}", "{offset}", "", ""),
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

/// `portable::dot_vector_window_blocks_down` in one assembly loop: per
/// block of 4 rows its biases, per window row its runs (four row loads
/// and four `VMLADAVA` each, then the next run's input load, which then
/// waits for no other load: a low-overhead loop over all runs but the
/// last), the input pointer on to the next window row, then the block's vector
/// requantization. The loop's constants (the scales' pointer, the window's
/// start, its row count, the output's end) wait in q6's lanes and the
/// output offset in q7's first: the scalar registers hold the sums and
/// pointers.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn dot_vector_window_blocks_down(
    x: &[i8],
    segments: usize,
    len: usize,
    step: usize,
    rows: &[i8],
    bias: &[i32],
    scales: &[crate::kernels::DownScale],
    offset: i32,
    out: &mut [i8],
) {
    let (runs, blocks) = (len / 16, out.len() / 4);
    if segments == 0 || runs == 0 || blocks == 0 {
        return;
    }
    assert!(
        len % 16 == 0
            && out.len() == 4 * blocks
            && step >= len
            && x.len() >= (segments - 1) * step + len
            && rows.len() >= 4 * segments * len * blocks
            && bias.len() >= 4 * blocks
            && scales.len() >= 4 * blocks
    );
    // SAFETY: per block the loop reads 4 biases, per window row `len` bytes
    // of `x` (`step` apart from the window's start, the last ending inside
    // `x`) and `4 * len` bytes of `rows`, then 4 scales (64 bytes), and
    // writes 4 output bytes: `blocks` times, inside the slices (asserted
    // above). q0-q4, q6 and q7 are declared clobbered; no stack. `VMLADAVA`
    // takes even accumulators and `VSTRB.32` a low base register, hence the
    // explicit ones; r0, r2 and lr bring constants in before they serve.
    unsafe {
        core::arch::asm!(
            "vmov.32 q6[0], r0",
            "vmov.32 q6[1], {x}",
            "vmov.32 q6[2], {seg}",
            "vmov.32 q6[3], lr",
            "vmov.32 q7[0], r2",
            "2:",
            "vmov.32 {x}, q6[1]",
            "vmov.32 {seg}, q6[2]",
            "ldrd r0, r2, [{b}], #8",
            "ldrd r4, r8, [{b}], #8",
            "3:",
            "vldrb.u8 q4, [{x}], #16",
            "wls lr, {runs}, 5f",
            "4:",
            block_run!("q4"),
            "vldrb.u8 q4, [{x}], #16",
            "le lr, 4b",
            "5:",
            block_run!("q4"),
            "add {x}, {skip}",
            "subs {seg}, #1",
            "bne 3b",
            "vmov.32 {seg}, q6[0]",
            requantize_text!("{seg}", "{x}", "vmov.32 {x}, q7[0]", "vmov.32 q6[0], {seg}"),
            "vstrb.32 q0, [r1], #4",
            "vmov.32 lr, q6[3]",
            "cmp r1, lr",
            "bne 2b",
            x = inout(reg) x.as_ptr() => _,
            w = inout(reg) rows.as_ptr() => _,
            b = inout(reg) bias.as_ptr() => _,
            seg = inout(reg) segments => _,
            runs = in(reg) runs - 1,
            skip = in(reg) step - len,
            inout("r0") scales.as_ptr() => _,
            inout("r2") offset => _,
            inout("lr") out.as_mut_ptr_range().end => _,
            inout("r1") out.as_mut_ptr() => _,
            out("r4") _,
            out("r8") _,
            out("q0") _,
            out("q1") _,
            out("q2") _,
            out("q3") _,
            out("q4") _,
            out("q6") _,
            out("q7") _,
            options(nostack),
        );
    }
}

/// `portable::dot16_rows`: per run of 8 values one load of the input
/// (`VLDRH`) and per row one load of 8 weight bytes widened to 16-bit lanes
/// (`VLDRB.S16`) and one `VMLADAVA.S16`, in a tail-predicated loop (the
/// last run's lanes past the row load and add nothing). Fewer than 4 rows
/// take the one-row loop each.
#[inline(always)]
pub(crate) fn dot16_rows<const R: usize>(x: &[i16], rows: &[i8], stride: usize) -> [i32; R] {
    let n = x.len();
    assert!(R >= 1 && (R - 1) * stride + n <= rows.len());
    let mut out = [0i32; R];
    if R == 4 {
        let [mut a0, mut a1, mut a2, mut a3] = [0i32; 4];
        let w = rows.as_ptr();
        // SAFETY: the loop reads the `n` halfwords of `x` and, for each of
        // the 4 rows, the `n` bytes from `k * stride` (inside `rows` by the
        // assert); the predicate stops every load at `n`. q0-q4 are declared
        // clobbered; no stack. The widening loads take low base registers
        // and `VMLADAVA` even accumulator registers, hence the explicit ones.
        unsafe {
            core::arch::asm!(
                "wlstp.16 lr, {n}, 3f",
                "2:",
                "vldrh.u16 q4, [r5], #16",
                "vldrb.s16 q0, [r0], #8",
                "vmladava.s16 r4, q0, q4",
                "vldrb.s16 q1, [r1], #8",
                "vmladava.s16 r8, q1, q4",
                "vldrb.s16 q2, [r2], #8",
                "vmladava.s16 r10, q2, q4",
                "vldrb.s16 q3, [r3], #8",
                "vmladava.s16 r12, q3, q4",
                "letp lr, 2b",
                "3:",
                n = in(reg) n,
                inout("r5") x.as_ptr() => _,
                inout("r0") w => _,
                inout("r1") w.wrapping_add(stride) => _,
                inout("r2") w.wrapping_add(2 * stride) => _,
                inout("r3") w.wrapping_add(3 * stride) => _,
                out("lr") _,
                inout("r4") a0,
                inout("r8") a1,
                inout("r10") a2,
                inout("r12") a3,
                out("q0") _,
                out("q1") _,
                out("q2") _,
                out("q3") _,
                out("q4") _,
                options(nostack, readonly),
            );
        }
        out.copy_from_slice(&[a0, a1, a2, a3][..R]);
        return out;
    }
    for (k, sum) in out.iter_mut().enumerate() {
        let mut a = 0i32;
        // SAFETY: as above, for the one row from `k * stride`.
        unsafe {
            core::arch::asm!(
                "wlstp.16 lr, {n}, 3f",
                "2:",
                "vldrh.u16 q4, [r1], #16",
                "vldrb.s16 q0, [r2], #8",
                "vmladava.s16 r0, q0, q4",
                "letp lr, 2b",
                "3:",
                n = in(reg) n,
                inout("r1") x.as_ptr() => _,
                inout("r2") rows.as_ptr().wrapping_add(k * stride) => _,
                out("lr") _,
                inout("r0") a,
                out("q0") _,
                out("q4") _,
                options(nostack, readonly),
            );
        }
        *sum = a;
    }
    out
}

/// `portable::depthwise16_group` for a whole group of 8 channels: the sums
/// in two vectors across all taps, per tap the 8 inputs and 8 weights
/// widened to 32-bit lanes by their loads (`VLDRH.S32`, `VLDRB.S32`), two
/// `VMUL` and two `VADD`; the tap's input row from the table `rows` (its
/// pointers, in order). A last partial group takes the plain loop.
#[inline(always)]
pub(crate) fn depthwise16_group<const C: usize, const KW: usize, const KH: usize>(
    rows: &[[&[i16; C]; KW]; KH],
    filter: &[i8],
    g: usize,
) -> [i32; 8] {
    if g + 8 > C {
        return super::portable::depthwise16_group(rows, filter, g);
    }
    let filter = &filter[..KH * KW * C];
    let mut sums = [0i32; 8];
    // SAFETY: the loop reads the `KH * KW` pointers of `rows` and, per tap,
    // 8 halfwords of that row from channel `g` (`g + 8 <= C`: inside the
    // row) and 8 bytes of the filter from `t * C + g` (inside `filter`, its
    // length checked above); it writes the 32 bytes of `sums`. q0-q5 are
    // declared clobbered; no stack. The widening loads take low base
    // registers, hence the explicit ones.
    unsafe {
        core::arch::asm!(
            "vmov.i32 q4, #0",
            "vmov.i32 q5, #0",
            "dls lr, {taps}",
            "2:",
            "ldr r1, [{tab}], #4",
            "add r1, r1, {goff}",
            "vldrh.s32 q0, [r1]",
            "vldrb.s32 q2, [r2]",
            "vldrh.s32 q1, [r1, #8]",
            "vmul.i32 q0, q0, q2",
            "vldrb.s32 q3, [r2, #4]",
            "vadd.i32 q4, q4, q0",
            "vmul.i32 q1, q1, q3",
            "add r2, r2, {c}",
            "vadd.i32 q5, q5, q1",
            "le lr, 2b",
            "vstrw.32 q4, [r3]",
            "vstrw.32 q5, [r3, #16]",
            taps = in(reg) KH * KW,
            tab = inout(reg) rows.as_ptr() => _,
            goff = in(reg) 2 * g,
            c = in(reg) C,
            out("r1") _,
            inout("r2") filter.as_ptr().wrapping_add(g) => _,
            in("r3") sums.as_mut_ptr(),
            out("lr") _,
            out("q0") _,
            out("q1") _,
            out("q2") _,
            out("q3") _,
            out("q4") _,
            out("q5") _,
            options(nostack),
        );
    }
    sums
}
