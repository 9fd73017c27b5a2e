//! Elementwise loops (int8 and int16 ADD/SUB/MUL lanes, the pools' byte
//! maxima and 16-bit sums) in plain Rust (`helium.rs` has their vector forms).

use crate::kernels::Narrow;

/// Whether [`max_s8`], [`max_s16`] and [`add_widened_s8`] take many lanes
/// per instruction (a vector unit), so the pools reduce a window's channels
/// in int8 or int16 maxima and 16-bit sums instead of 32-bit accumulators.
pub(crate) const BYTE_VECTORS: bool = false;

/// Whether [`add_sub_lanes`] and [`mul_lanes`] are vector loops, which
/// `binary::binary_lanes` takes for int8 and int16 ops whose
/// constants have the lanes form (elsewhere the compiler's scalar closure,
/// with its rescaling tables).
pub(crate) const VECTOR_LANES: bool = false;

/// int8 or int16 ADD or SUB of `n` elements, `out[i] = lanes.apply(first[i],
/// second[i])`, each element's inputs read before its output is written.
///
/// # Safety
/// `first` and `second` point to `n` readable values and `out` to `n`
/// writable ones; an output may overlap an input only at or before the
/// input's own element.
#[inline(always)]
pub(crate) unsafe fn add_sub_lanes<T: Narrow>(
    first: *const T,
    second: *const T,
    out: *mut T,
    n: usize,
    lanes: &crate::kernels::binary::AddLanes,
) {
    // SAFETY: the caller's runs.
    unsafe { elementwise(first, second, out, n, |x, y| lanes.apply(x, y)) }
}

/// int8 or int16 MUL of `n` elements, `out[i] = lanes.apply(first[i], second[i])`,
/// as [`add_sub_lanes`].
///
/// # Safety
/// As [`add_sub_lanes`].
#[inline(always)]
pub(crate) unsafe fn mul_lanes<T: Narrow>(
    first: *const T,
    second: *const T,
    out: *mut T,
    n: usize,
    lanes: &crate::kernels::binary::MulLanes,
) {
    // SAFETY: the caller's runs.
    unsafe { elementwise(first, second, out, n, |x, y| lanes.apply(x, y)) }
}

/// `out[i] = f(first[i], second[i])` for `i < n`, each element's inputs
/// read before its output is written.
///
/// # Safety
/// As [`add_sub_lanes`].
#[inline(always)]
unsafe fn elementwise<T: Copy>(first: *const T, second: *const T, out: *mut T, n: usize, f: impl Fn(T, T) -> T) {
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

/// [`max_s8`] for int16.
#[inline(always)]
pub(crate) fn max_s16(acc: &mut [i16], x: &[i16]) {
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
