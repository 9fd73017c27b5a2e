//! `portable::dot_int4_rows` on the DSP extension: int4 rows
//! (`layout::pack_rows_int4`) against int8 input, 8 values per word.

/// One row's half of a group: `{t}` holds 16 times four weights in the
/// high halves of its bytes, lined up with the input lanes `{lo}` (bytes
/// 0, 2) and `{hi}` (bytes 1, 3).
macro_rules! int4_half {
    ($acc:literal, $lo:literal, $hi:literal) => {
        concat!(
            "sxtb16 {u}, {t}\n",
            "smlad {",
            $acc,
            "}, {",
            $lo,
            "}, {u}, {",
            $acc,
            "}\n",
            "sxtb16 {u}, {t}, ror #8\n",
            "smlad {",
            $acc,
            "}, {",
            $hi,
            "}, {u}, {",
            $acc,
            "}\n",
        )
    };
}

/// One row's group of 8: its word's high nibbles against input values
/// 4..8, its low nibbles (shifted up) against values 0..4.
macro_rules! int4_row {
    ($acc:literal) => {
        concat!(
            "ldr {wv}, [{w}], #4\n",
            "and {t}, {wv}, #0xF0F0F0F0\n",
            int4_half!($acc, "x46", "x57"),
            "lsl {t}, {wv}, #4\n",
            "and {t}, {t}, #0xF0F0F0F0\n",
            int4_half!($acc, "x02", "x13"),
        )
    };
}

/// `portable::dot_int4_rows`: per group of 8 values two input `LDR`s and
/// four `SXTB16` shared by the rows, then per row one `LDR`, three
/// instructions to mask, four `SXTB16` and four `SMLAD`. The masked
/// weights are 16 times the values, so the sums are 16 times the true
/// ones, scaled back exactly at the end.
#[inline(always)]
pub(crate) fn dot_int4_rows<const R: usize>(x: &[i8], words: &[u32], groups: usize) -> [i32; R] {
    // The scaled sums stay in range: |16 x w| <= 2^14 per product.
    if groups == 0 || groups > 1 << 13 {
        return super::super::portable::dot_int4_rows::<R>(x, words, groups);
    }
    let x = &x[..8 * groups];
    let words = &words[..R * groups];
    let (mut a0, mut a1) = (0i32, 0i32);
    // SAFETY: the loop reads `8 * groups` bytes of `x` (plain `LDR`,
    // unaligned allowed on ARMv7-M) and `R * groups` words of `words`
    // (a u32 slice, aligned), both inside the slices above; register
    // arithmetic of the DSP extension otherwise, no stores.
    unsafe {
        core::arch::asm!(
            "2:",
            "ldr {x13}, [{x}], #4",
            "ldr {x57}, [{x}], #4",
            "sxtb16 {x02}, {x13}",
            "sxtb16 {x13}, {x13}, ror #8",
            "sxtb16 {x46}, {x57}",
            "sxtb16 {x57}, {x57}, ror #8",
            int4_row!("a0"),
            ".if {two}",
            int4_row!("a1"),
            ".endif",
            "subs {n}, {n}, #1",
            "bne 2b",
            two = const (R == 2) as usize,
            x = inout(reg) x.as_ptr() => _,
            w = inout(reg) words.as_ptr() => _,
            n = inout(reg) groups => _,
            x02 = out(reg) _,
            x13 = out(reg) _,
            x46 = out(reg) _,
            x57 = out(reg) _,
            wv = out(reg) _,
            t = out(reg) _,
            u = out(reg) _,
            a0 = inout(reg) a0,
            a1 = inout(reg) a1,
            options(nostack, readonly),
        );
    }
    let mut out = [0i32; R];
    out[0] = a0 >> 4;
    if R == 2 {
        out[1] = a1 >> 4;
    }
    out
}
