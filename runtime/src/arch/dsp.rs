//! The Arm DSP extension: each function is its one instruction.
#![allow(dead_code)] // the same set of names as `portable`; kernels use what they need here

/// One instruction `$op out, a, b, acc` over 16-bit halves.
macro_rules! mac {
    ($(#[$doc:meta])* $name:ident, $op:literal) => {
        $(#[$doc])*
        #[inline(always)]
        pub(crate) fn $name(a: u32, b: u32, acc: i32) -> i32 {
            let out;
            // SAFETY: register arithmetic of the DSP extension (this
            // module is compiled only for it); no memory, no stack.
            unsafe {
                core::arch::asm!(
                    concat!($op, " {out}, {a}, {b}, {acc}"),
                    out = lateout(reg) out,
                    a = in(reg) a,
                    b = in(reg) b,
                    acc = in(reg) acc,
                    options(pure, nomem, nostack),
                )
            };
            out
        }
    };
}

mac!(
    /// `SMLAD`: `acc + low(a) * low(b) + high(a) * high(b)`.
    smlad, "smlad"
);
mac!(
    /// `SMLABB`: `acc + low(a) * low(b)`.
    smlabb, "smlabb"
);
mac!(
    /// `SMLATT`: `acc + high(a) * high(b)`.
    smlatt, "smlatt"
);

/// `SXTB16`: bytes 0 and 2 sign-extended into two 16-bit halves.
#[inline(always)]
pub(crate) fn sxtb16(x: u32) -> u32 {
    let out;
    // SAFETY: register arithmetic of the DSP extension; no memory.
    unsafe {
        core::arch::asm!("sxtb16 {out}, {x}", out = lateout(reg) out, x = in(reg) x, options(pure, nomem, nostack))
    };
    out
}
