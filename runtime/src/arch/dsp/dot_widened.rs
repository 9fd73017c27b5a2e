//! The int8 dot products over rows widened at compile time
//! (`layout::pack_rows_widened`): the inner loop only loads the weights.

/// Assembly: one group of 4 inputs (loaded and widened) against the
/// widened words of the rows whose accumulators are named.
macro_rules! widened_group {
    ($($a:ident),+) => {
        concat!(
            "ldr {x02}, [{p}], #4\n",
            "sxtb16 {x13}, {x02}, ror #8\n",
            "sxtb16 {x02}, {x02}\n",
            $(
                "ldrd {wa}, {wb}, [{w}], #8\n",
                "smlad {", stringify!($a), "}, {x02}, {wa}, {", stringify!($a), "}\n",
                "smlad {", stringify!($a), "}, {x13}, {wb}, {", stringify!($a), "}\n",
            )+
        )
    };
}

/// Assembly over widened rows: `template`, with the input pointer `{p}`,
/// the weights pointer `{w}`, the named accumulators and the scratch
/// registers of [`wide_group`]; `extra` are further operands.
macro_rules! widened_asm {
    ($x:expr, $w:expr, [$($a:ident),+], [$($template:tt)*], $($extra:tt)*) => {
        core::arch::asm!(
            $($template)*,
            p = inout(reg) $x => _,
            w = inout(reg) $w => _,
            $($a = inout(reg) $a,)+
            x02 = out(reg) _,
            x13 = out(reg) _,
            wa = out(reg) _,
            wb = out(reg) _,
            $($extra)*
        )
    };
}

/// Assembly loop over `$n` groups for the named accumulators (an odd
/// group first, then two per pass). Unsafe: the caller vouches for the
/// reads from `$x` and `$w`.
macro_rules! widened_loop {
    ($x:expr, $w:expr, $n:expr, $($a:ident),+) => {
        widened_asm!(
            $x, $w, [$($a),+],
            [
                "tst {n}, #1",
                "beq 3f",
                widened_group!($($a),+),
                "3:",
                "lsrs {n}, {n}, #1",
                "beq 4f",
                "2:",
                widened_group!($($a),+),
                widened_group!($($a),+),
                "subs {n}, {n}, #1",
                "bne 2b",
                "4:"
            ],
            n = inout(reg) $n => _,
            options(nostack, readonly),
        )
    };
}

/// Assembly: `$k` groups (a literal) straight, no loop. Unsafe as
/// [`wide_loop`].
macro_rules! widened_straight {
    ($x:expr, $w:expr, $k:literal, $($a:ident),+) => {
        widened_asm!(
            $x, $w, [$($a),+],
            [".rept {k}", widened_group!($($a),+), ".endr"],
            k = const $k,
            options(nostack, readonly, preserves_flags),
        )
    };
}

/// The groups of one block: straight for up to 4 groups (short rows: the
/// loop's own steps would be a fifth of the work), else the loop.
macro_rules! widened_groups {
    ($x:expr, $w:expr, $n:expr, $($a:ident),+) => {
        match $n {
            1 => widened_straight!($x, $w, 1, $($a),+),
            2 => widened_straight!($x, $w, 2, $($a),+),
            3 => widened_straight!($x, $w, 3, $($a),+),
            4 => widened_straight!($x, $w, 4, $($a),+),
            _ => widened_loop!($x, $w, $n, $($a),+),
        }
    };
}

/// `portable::dot_groups_widened`, one assembly loop per block height:
/// per 16 MACs one input load, two `SXTB16`, four `LDRD` and eight
/// `SMLAD`.
#[inline(always)]
pub(crate) fn dot_groups_widened<const R: usize>(x: &[i8], block: &[u32], acc: [i32; R]) -> [i32; R] {
    let n = x.len() / 4;
    // The loops read `n` words of `x` (plain LDR, unaligned allowed) and
    // `2 R n` words of the block (a u32 slice: LDRD aligned).
    assert!(n > 0 && x.len() >= 4 * n && block.len() >= 2 * R * n);
    let (xp, wp) = (x.as_ptr(), block.as_ptr());
    let mut out = acc;
    match R {
        4 => {
            let [mut a0, mut a1, mut a2, mut a3] = [acc[0], acc[1], acc[2], acc[3]];
            // SAFETY: reads inside `x` and `block` (checked above).
            unsafe { widened_groups!(xp, wp, n, a0, a1, a2, a3) };
            out[..4].copy_from_slice(&[a0, a1, a2, a3]);
        }
        2 => {
            let [mut a0, mut a1] = [acc[0], acc[1]];
            // SAFETY: as above, blocks of 2 rows.
            unsafe { widened_groups!(xp, wp, n, a0, a1) };
            out[..2].copy_from_slice(&[a0, a1]);
        }
        _ => {
            let mut a0 = acc[0];
            // SAFETY: as above, single rows.
            unsafe { widened_groups!(xp, wp, n, a0) };
            out[0] = a0;
        }
    }
    out
}
