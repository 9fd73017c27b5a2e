//! Hard-float Arm (Cortex-M4F, M7, M33 with the FPU): the float32 window
//! loops in one assembly block each, eight sums in `s24`-`s31`, weights
//! loaded by `VLDM`, `VMLA.F32` (multiply, round, add, round: the bits of
//! a separate multiply and add, so TFLite's order and results).

/// `portable::F32_WINDOW_LOOPS`.
pub(crate) const F32_WINDOW_LOOPS: bool = true;

/// Assembly (hard-float Arm): the rows of a float window. Per row `{k}`
/// passes of `inner`, `{r}` starting at the row's first input; then the
/// weights pointer `{w}` skips `skip` bytes (a clipped row's taps) and
/// the window pointer steps `row` bytes. The 8 sums live in `s24`-`s31`
/// (loaded from and stored back to `sums`); the FP registers `save` are
/// pushed first and popped last. `extra` are the operands `inner` names
/// beyond these.
macro_rules! vfp_rows_loop {
    (save: $save:literal, window: $p:expr, weights: $w:expr, rows: $kh:expr, passes: $passes:expr,
     skip: $skip:expr, row: $row:expr, sums: $s:expr, inner: [$($inner:tt)*], $($extra:tt)*) => {
        core::arch::asm!(
            concat!("vpush {{", $save, "}}"),
            "vldmia {s}, {{s24-s31}}",
            "1:",
            "mov {r}, {p}",
            "mov {k}, {passes}",
            "2:",
            $($inner)*,
            "subs {k}, {k}, #1",
            "bne 2b",
            "add {w}, {w}, {skip}",
            "add {p}, {p}, {row}",
            "subs {ky}, {ky}, #1",
            "bne 1b",
            "vstmia {s}, {{s24-s31}}",
            concat!("vpop {{", $save, "}}"),
            p = inout(reg) $p => _,
            w = inout(reg) $w => _,
            ky = inout(reg) $kh => _,
            passes = in(reg) $passes,
            skip = in(reg) $skip,
            row = in(reg) $row,
            s = in(reg) $s,
            r = out(reg) _,
            k = out(reg) _,
            $($extra)*
        )
    };
}

/// Assembly: the 8 sums in `s24`-`s31` plus the 8 weights in `s16`-`s23`
/// (or, given `s8`, in `s8`-`s15`) times the input in `$x` (`VMLA.F32`,
/// rounding like a separate multiply and add).
#[rustfmt::skip]
macro_rules! vmla8 {
    ($x:literal) => {
        vmla8!($x, ["s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23"])
    };
    ($x:literal, s8) => {
        vmla8!($x, ["s8", "s9", "s10", "s11", "s12", "s13", "s14", "s15"])
    };
    ($x:literal, [$w0:literal, $w1:literal, $w2:literal, $w3:literal, $w4:literal, $w5:literal, $w6:literal, $w7:literal]) => {
        concat!(
            "vmla.f32 s24, ", $w0, ", ", $x, "\n",
            "vmla.f32 s25, ", $w1, ", ", $x, "\n",
            "vmla.f32 s26, ", $w2, ", ", $x, "\n",
            "vmla.f32 s27, ", $w3, ", ", $x, "\n",
            "vmla.f32 s28, ", $w4, ", ", $x, "\n",
            "vmla.f32 s29, ", $w5, ", ", $x, "\n",
            "vmla.f32 s30, ", $w6, ", ", $x, "\n",
            "vmla.f32 s31, ", $w7, ", ", $x, "\n"
        )
    };
}

/// `portable::mac_lanes8`: per input one `VLDM` of its 8 weights and eight
/// `VMLA.F32` (multiply, round, add, round: the bits of a separate
/// multiply and add), where the compiler loads each weight on its own.
/// Naming S registers as operands needs an unstable target feature, so
/// the block saves the ones it uses (`s4`-`s31`) itself.
#[inline(always)]
pub(crate) fn mac_lanes8(x: &[f32], w: &[f32], sums: &mut [f32; 8]) {
    let n = x.len();
    if n == 0 {
        return;
    }
    let w = &w[..8 * n];
    // SAFETY: reads `n` floats of `x` and `8 n` of `w` (sliced above; the
    // two loops take n / 4 fours and n % 4 ones) and reads and writes the
    // 8 floats of `sums`, all 4-aligned; every FP register it touches is
    // pushed first and popped last.
    unsafe {
        core::arch::asm!(
            "vpush {{s4-s31}}",
            "vldmia {s}, {{s24-s31}}",
            // Four inputs per pass, two inputs' weights per `VLDM` ...
            "cmp {fours}, #0",
            "beq 3f",
            "2:",
            "vldmia {x}!, {{s4-s7}}",
            "vldmia {w}!, {{s8-s23}}",
            vmla8!("s4", s8),
            vmla8!("s5"),
            "vldmia {w}!, {{s8-s23}}",
            vmla8!("s6", s8),
            vmla8!("s7"),
            "subs {fours}, {fours}, #1",
            "bne 2b",
            // ... then the rest one by one.
            "3:",
            "cmp {ones}, #0",
            "beq 5f",
            "4:",
            "vldmia {x}!, {{s15}}",
            "vldmia {w}!, {{s16-s23}}",
            vmla8!("s15"),
            "subs {ones}, {ones}, #1",
            "bne 4b",
            "5:",
            "vstmia {s}, {{s24-s31}}",
            "vpop {{s4-s31}}",
            x = inout(reg) x.as_ptr() => _,
            w = inout(reg) w.as_ptr() => _,
            fours = inout(reg) n / 4 => _,
            ones = inout(reg) n % 4 => _,
            s = in(reg) sums.as_mut_ptr(),
        );
    }
}

/// `portable::mac_window8` in one assembly block: a window row is one
/// run of `kw * IC` inputs, 4, 2 or 1 per pass.
#[inline(always)]
pub(crate) fn mac_window8<const KW: usize, const IC: usize>(
    window: &[f32],
    w: &[f32],
    row_step: usize,
    (kh, kw): (usize, usize),
    sums: &mut [f32; 8],
) {
    if kh == 0 || kw == 0 || IC == 0 {
        return;
    }
    assert!(row_step % 4 == 0 && kw <= KW);
    assert!((kh - 1) * row_step / 4 + kw * IC <= window.len());
    assert!(((kh - 1) * KW + kw) * IC * 8 <= w.len());
    // Inputs per pass of the inner loop: 4, 2 or 1 (a row's run divides).
    let per_pass = if IC % 4 == 0 {
        4
    } else if IC % 2 == 0 {
        2
    } else {
        1
    };
    macro_rules! window_loop {
        ($($inner:tt)*) => {
            // SAFETY: reads inside `window` and `w` (the asserts bound
            // every address: `kh` rows of `kw * IC` inputs, `row_step`
            // bytes apart, and their `kh * kw * IC * 8` weights with
            // `KW - kw` taps skipped per row), and the 8 floats of `sums`;
            // all 4-aligned. The FP registers used are saved and restored.
            unsafe {
                vfp_rows_loop!(
                    save: "s4-s31", window: window.as_ptr(), weights: w.as_ptr(), rows: kh,
                    passes: kw * IC / per_pass, skip: (KW - kw) * IC * 8 * 4, row: row_step,
                    sums: sums.as_mut_ptr(), inner: [$($inner)*],
                );
            }
        };
    }
    if per_pass == 4 {
        // Two inputs' weights per `VLDM`.
        window_loop!(
            "vldmia {r}!, {{s4-s7}}",
            "vldmia {w}!, {{s8-s23}}",
            vmla8!("s4", s8),
            vmla8!("s5"),
            "vldmia {w}!, {{s8-s23}}",
            vmla8!("s6", s8),
            vmla8!("s7")
        );
    } else if per_pass == 2 {
        window_loop!(
            "vldmia {r}!, {{s14-s15}}",
            "vldmia {w}!, {{s16-s23}}",
            vmla8!("s14"),
            "vldmia {w}!, {{s16-s23}}",
            vmla8!("s15")
        );
    } else {
        window_loop!("vldmia {r}!, {{s15}}", "vldmia {w}!, {{s16-s23}}", vmla8!("s15"));
    }
}

/// `portable::depthwise_window8` in one assembly block: per tap one
/// `VLDM` of the 8 inputs, one of the 8 weights and eight `VMLA.F32`.
#[inline(always)]
pub(crate) fn depthwise_window8<const KW: usize, const C: usize>(
    window: &[f32],
    filter: &[f32],
    (row_step, tap_step): (usize, usize),
    (kh, kw): (usize, usize),
    sums: &mut [f32; 8],
) {
    if kh == 0 || kw == 0 {
        return;
    }
    assert!(row_step % 4 == 0 && tap_step % 4 == 0 && C >= 8 && kw <= KW);
    assert!(((kh - 1) * row_step + (kw - 1) * tap_step) / 4 + 8 <= window.len());
    assert!(((kh - 1) * KW + kw - 1) * C + 8 <= filter.len());
    // SAFETY: reads inside `window` and `filter` (the asserts bound every
    // address the loops form) and the 8 floats of `sums`, all 4-aligned;
    // the FP registers used are saved and restored.
    unsafe {
        vfp_rows_loop!(
            save: "s8-s31", window: window.as_ptr(), weights: filter.as_ptr(), rows: kh, passes: kw,
            skip: (KW - kw) * 4 * C, row: row_step, sums: sums.as_mut_ptr(),
            inner: [
                "vldmia {r}, {{s8-s15}}",
                "vldmia {w}, {{s16-s23}}",
                "add {w}, {w}, #{fstep}",
                "vmla.f32 s24, s16, s8",
                "vmla.f32 s25, s17, s9",
                "vmla.f32 s26, s18, s10",
                "vmla.f32 s27, s19, s11",
                "vmla.f32 s28, s20, s12",
                "vmla.f32 s29, s21, s13",
                "vmla.f32 s30, s22, s14",
                "vmla.f32 s31, s23, s15",
                "add {r}, {r}, {tap}"
            ],
            tap = in(reg) tap_step,
            fstep = const 4 * C,
        );
    }
}
