//! The 16x8 dot products over 16-bit lane pairs: per 4 values, the input
//! halves paired as the weight bytes' `SXTB16` pairs them (`PKHBT`,
//! `PKHTB`: values 0 and 2, 1 and 3), once for all rows, then per row one
//! word of weights, two `SXTB16` and two `SMLAD`.

use super::smlad;

/// `portable::dot16_rows`.
#[inline(always)]
pub(crate) fn dot16_rows<const R: usize>(x: &[i16], rows: &[i8], stride: usize) -> [i32; R] {
    let n = x.len();
    assert!(R >= 1 && (R - 1) * stride + n <= rows.len());
    let mut acc = [0i32; R];
    let quads = n / 4;
    for g in 0..quads {
        // SAFETY: values `4 * g .. 4 * g + 4` of `x` (`g < n / 4`), read
        // as two unaligned words (ARMv7-M allows them).
        let (x01, x23) = unsafe {
            let p = x.as_ptr().add(4 * g).cast::<u32>();
            (p.read_unaligned(), p.add(1).read_unaligned())
        };
        let (even, odd) = pack_halves(x01, x23);
        for (k, acc) in acc.iter_mut().enumerate() {
            // SAFETY: bytes `k * stride + 4 * g ..+ 4` of `rows`, inside by
            // the assert (`4 * g + 4 <= n`); an unaligned word load.
            let w = unsafe { rows.as_ptr().add(k * stride + 4 * g).cast::<u32>().read_unaligned() };
            let (w02, w13) = sxtb16_pair(w);
            *acc = smlad(w13, odd, smlad(w02, even, *acc));
        }
    }
    for i in 4 * quads..n {
        for (k, acc) in acc.iter_mut().enumerate() {
            *acc = acc.wrapping_add(rows[k * stride + i] as i32 * x[i] as i32);
        }
    }
    acc
}

/// Words `(x0, x1)` and `(x2, x3)` of 16-bit values as `(x0, x2)` and
/// `(x1, x3)`: `PKHBT`, `PKHTB`.
#[inline(always)]
fn pack_halves(x01: u32, x23: u32) -> (u32, u32) {
    let (even, odd);
    // SAFETY: register arithmetic of the DSP extension; no memory.
    unsafe {
        core::arch::asm!(
            "pkhbt {e}, {a}, {b}, lsl #16",
            "pkhtb {o}, {b}, {a}, asr #16",
            a = in(reg) x01,
            b = in(reg) x23,
            // Written before the inputs are all read: not `lateout`.
            e = out(reg) even,
            o = lateout(reg) odd,
            options(pure, nomem, nostack),
        );
    }
    (even, odd)
}

/// `SXTB16` of a word and of the word rotated by 8: bytes 0 and 2, 1 and 3.
#[inline(always)]
fn sxtb16_pair(w: u32) -> (u32, u32) {
    let (w02, w13);
    // SAFETY: register arithmetic of the DSP extension; no memory.
    unsafe {
        core::arch::asm!(
            "sxtb16 {e}, {w}",
            "sxtb16 {o}, {w}, ror #8",
            w = in(reg) w,
            e = out(reg) w02,
            o = lateout(reg) w13,
            options(pure, nomem, nostack),
        );
    }
    (w02, w13)
}
