//! int8 elementwise loops (ADD/SUB/MUL lanes, the pools' byte maxima and
//! 16-bit sums) in plain Rust (`helium.rs` has their vector forms).

/// Whether [`max_s8`] and [`add_widened_s8`] take many lanes per
/// instruction (a vector unit), so the pools reduce a window's channels
/// in int8 maxima and 16-bit sums instead of 32-bit accumulators.
pub(crate) const BYTE_VECTORS: bool = false;

/// Whether [`add_sub_s8`] and [`mul_s8`] are vector loops, which
/// `binary::lanes_s8` takes for int8 ops whose
/// constants have the lanes form (elsewhere the compiler's scalar closure,
/// with its rescaling tables).
pub(crate) const VECTOR_LANES: bool = false;

/// int8 ADD or SUB of `n` elements, `out[i] = lanes.apply(first[i],
/// second[i])`, each element's inputs read before its output is written.
///
/// # Safety
/// `first` and `second` point to `n` readable values and `out` to `n`
/// writable ones; an output may overlap an input only at or before the
/// input's own element.
#[inline(always)]
pub(crate) unsafe fn add_sub_s8(
    first: *const i8,
    second: *const i8,
    out: *mut i8,
    n: usize,
    lanes: &crate::kernels::binary::AddLanes,
) {
    // SAFETY: the caller's runs.
    unsafe { elementwise_s8(first, second, out, n, |x, y| lanes.apply(x, y)) }
}

/// int8 MUL of `n` elements, `out[i] = lanes.apply(first[i], second[i])`,
/// as [`add_sub_s8`].
///
/// # Safety
/// As [`add_sub_s8`].
#[inline(always)]
pub(crate) unsafe fn mul_s8(
    first: *const i8,
    second: *const i8,
    out: *mut i8,
    n: usize,
    lanes: &crate::kernels::binary::MulLanes,
) {
    // SAFETY: the caller's runs.
    unsafe { elementwise_s8(first, second, out, n, |x, y| lanes.apply(x, y)) }
}

/// `out[i] = f(first[i], second[i])` for `i < n`, each element's inputs
/// read before its output is written.
///
/// # Safety
/// As [`add_sub_s8`].
#[inline(always)]
unsafe fn elementwise_s8(first: *const i8, second: *const i8, out: *mut i8, n: usize, f: impl Fn(i8, i8) -> i8) {
    for i in 0..n {
        // SAFETY: `i < n`, within the runs the caller vouches for; the
        // inputs are read before the output is written.
        unsafe {
            let v = f(*first.add(i), *second.add(i));
            *out.add(i) = v;
        }
    }
}

/// `acc[i] += x[i]` (wrapping in 16 bits) over the shorter of the two.
#[inline(always)]
pub(crate) fn add_widened_s8(acc: &mut [i16], x: &[i8]) {
    for (a, &v) in acc.iter_mut().zip(x) {
        *a = a.wrapping_add(i16::from(v));
    }
}

/// `acc[i] = max(acc[i], x[i])` over the shorter of the two.
#[inline(always)]
pub(crate) fn max_s8(acc: &mut [i8], x: &[i8]) {
    for (a, &v) in acc.iter_mut().zip(x) {
        *a = (*a).max(v);
    }
}

/// Elements per run of the same-shape elementwise kernels
/// (`kernels::binary::binary`: one bounds check per run, the run's inputs
/// read before its outputs are written).
pub(crate) const ELEMENTWISE_RUN: usize = 8;

/// Whether a run's outputs are gathered before they are stored (one
/// copy of the run) rather than stored as each is made: faster on
/// ARMv6-M, slower where registers are many (an int8 ADD on the M4: 15
/// cycles per element against 20).
pub(crate) const ELEMENTWISE_GATHER: bool = false;
