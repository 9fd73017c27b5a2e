//! Elementwise binary ops (ADD, SUB, MUL, MAXIMUM, MINIMUM), same-shaped
//! or with TFLite's broadcasting (up to 6 dimensions).

use super::{Io, Narrow, Strided6, clamp_i32};
use crate::fixedpoint::multiply_by_quantized_multiplier_smaller_than_one_exp as mul_lt1;
use crate::fixedpoint::{doubled_of, down_scale_of};
use crate::fixedpoint::{
    get_reciprocal, multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_greater_than_one,
};

/// The rescaling constants of a quantized ADD (TFLite `ArithmeticParams`).
#[derive(Clone, Copy, Debug)]
pub struct AddQuant {
    /// Negated zero point of input 1.
    pub input1_offset: i32,
    /// Negated zero point of input 2.
    pub input2_offset: i32,
    /// Output zero point.
    pub output_offset: i32,
    /// Headroom shift applied to both inputs (20 for int8).
    pub left_shift: i32,
    /// Input 1 multiplier (Q0.31) and exponent (<= 0).
    pub input1_multiplier: i32,
    /// Exponent of input 1's multiplier.
    pub input1_shift: i32,
    /// Input 2 multiplier.
    pub input2_multiplier: i32,
    /// Exponent of input 2's multiplier.
    pub input2_shift: i32,
    /// Output multiplier.
    pub output_multiplier: i32,
    /// Exponent of the output multiplier.
    pub output_shift: i32,
    /// Fused activation range, quantized.
    pub act_min: i32,
    /// Upper end of the fused activation range.
    pub act_max: i32,
}

impl AddQuant {
    /// TFLite `AddFunc` (int8, and int16 with a 15-bit headroom shift).
    #[inline(always)]
    pub fn add<T: Narrow>(&self, x: T, y: T) -> T {
        self.add_rescaled(self.rescaled1(x), self.rescaled2(y))
    }

    /// ADD of two inputs already rescaled ([`AddQuant::rescaled1`],
    /// [`AddQuant::rescaled2`], or the compiler's table of either).
    #[inline(always)]
    pub fn add_rescaled<T: Narrow>(&self, a: i32, b: i32) -> T {
        let raw =
            lt1(a.wrapping_add(b), self.output_multiplier, self.output_shift, self.output_offset, self.small::<T>());
        T::narrow(clamp_i32(raw, self.act_min, self.act_max))
    }

    /// SUB of two inputs already rescaled.
    #[inline(always)]
    pub fn sub_rescaled<T: Narrow>(&self, a: i32, b: i32) -> T {
        let raw =
            lt1(a.wrapping_sub(b), self.output_multiplier, self.output_shift, self.output_offset, self.small::<T>());
        T::narrow(clamp_i32(raw, self.act_min, self.act_max))
    }
}

/// `MultiplyByQuantizedMultiplierSmallerThanOneExp(x, m, shift) + offset`
/// in the shortest exact form for the constants (the kernels' `AddQuant`
/// is a compile-time constant, so the choice folds away): for `x` below
/// 2^30 in magnitude (`small`) and right shifts of 2 to 23 one `SMMLAR`
/// and a shift ([`rescale_down_doubled`](crate::fixedpoint::rescale_down_doubled)),
/// else for right shifts of 1 to 23 two `SMLAL`s and a shift
/// ([`rescale_down`](crate::fixedpoint::rescale_down)).
#[inline(always)]
fn lt1(x: i32, m: i32, shift: i32, offset: i32, small: bool) -> i32 {
    match down_scale_of(m, shift, offset) {
        Some(s) => match doubled_of(&s) {
            Some((m, k_high2, shift1)) if small && crate::arch::DOUBLED_RESCALE => {
                crate::arch::rescale_down_doubled(x, m, k_high2, shift1)
            }
            _ => crate::arch::rescale_down(x, &s),
        },
        None => mul_lt1(x, m, shift).wrapping_add(offset),
    }
}

impl AddQuant {
    /// TFLite `SubFunc` (int8, int16): the same rescaling, then a difference.
    #[inline(always)]
    pub fn sub<T: Narrow>(&self, x: T, y: T) -> T {
        self.sub_rescaled(self.rescaled1(x), self.rescaled2(y))
    }

    /// TFLM's quantized SQUARED_DIFFERENCE: the ADD rescaling of both
    /// inputs (headroom 7 bits for int8, 0 for int16), the square of the
    /// difference, then one general requantization (`output_multiplier`
    /// may exceed one here).
    #[inline(always)]
    pub fn squared_difference<T: Narrow>(&self, x: T, y: T) -> T {
        let d = self.rescaled1(x).wrapping_sub(self.rescaled2(y));
        let raw = multiply_by_quantized_multiplier(d.wrapping_mul(d), self.output_multiplier, self.output_shift)
            .wrapping_add(self.output_offset);
        T::narrow(clamp_i32(raw, self.act_min, self.act_max))
    }

    /// Whether a sum or difference of two rescaled `T` inputs is below 2^30
    /// in magnitude: each is at most 2^(8 bits + headroom shift), so int8
    /// with the usual 20-bit headroom is (int16's 15 bits are not).
    #[inline(always)]
    const fn small<T>(&self) -> bool {
        8 * core::mem::size_of::<T>() as i32 + self.left_shift < 30
    }

    /// Input 1 offset, shifted left by the headroom and rescaled.
    #[inline(always)]
    pub fn rescaled1<T: Narrow>(&self, x: T) -> i32 {
        let a = (self.input1_offset + x.to_i32()).wrapping_mul(1 << self.left_shift);
        self.input_lt1(a, self.input1_multiplier, self.input1_shift)
    }

    /// Input 2 offset, shifted left by the headroom and rescaled.
    #[inline(always)]
    pub fn rescaled2<T: Narrow>(&self, y: T) -> i32 {
        let b = (self.input2_offset + y.to_i32()).wrapping_mul(1 << self.left_shift);
        self.input_lt1(b, self.input2_multiplier, self.input2_shift)
    }

    /// An input's rescaling. The input with the larger scale has the
    /// multiplier 1/2 exactly (2^30, shift 0), and its shifted value is
    /// even when the headroom shift is positive: the doubling high
    /// multiply is then exactly a halving (the nudge never carries).
    #[inline(always)]
    fn input_lt1(&self, v: i32, m: i32, shift: i32) -> i32 {
        if m == 1 << 30 && shift == 0 && self.left_shift > 0 { v >> 1 } else { lt1(v, m, shift, 0, false) }
    }
}

impl MulQuant {
    /// DIV (TFLite `DivElementwise`, int8; `multiplier` is `s1 / (s2 *
    /// so)`): the divisor's fixed-point reciprocal times the dividend at
    /// full headroom, rescaled. A zero divisor (an invalid input TFLM only
    /// asserts on) saturates by the dividend's sign.
    #[inline(always)]
    pub fn div(&self, x: i8, y: i8) -> i8 {
        let mut a = self.input1_offset + x as i32;
        let mut b = self.input2_offset + y as i32;
        if b == 0 {
            return if a >= 0 { self.act_max as i8 } else { self.act_min as i8 };
        }
        if b < 0 {
            a = -a;
            b = -b;
        }
        let (inv, recip_shift) = get_reciprocal(b, 31);
        let headroom = (a ^ (a >> 31)).leading_zeros() as i32 - 1;
        let unscaled = multiply_by_quantized_multiplier_greater_than_one(a, inv, headroom);
        let total_shift = self.shift - recip_shift - headroom;
        let raw = mul_lt1(unscaled, self.multiplier, total_shift).wrapping_add(self.output_offset);
        clamp_i32(raw, self.act_min, self.act_max) as i8
    }
}

/// The constants of a quantized MUL (TFLite `MulElementwise`).
#[derive(Clone, Copy, Debug)]
pub struct MulQuant {
    /// Negated zero point of input 1.
    pub input1_offset: i32,
    /// Negated zero point of input 2.
    pub input2_offset: i32,
    /// Output zero point.
    pub output_offset: i32,
    /// `s1 * s2 / so` as a Q0.31 multiplier ...
    pub multiplier: i32,
    /// ... and its exponent.
    pub shift: i32,
    /// Fused activation range, quantized.
    pub act_min: i32,
    /// Upper end of the fused activation range.
    pub act_max: i32,
}

impl MulQuant {
    /// One product (int8 or int16).
    #[inline(always)]
    pub fn mul<T: Narrow>(&self, x: T, y: T) -> T {
        let p = (self.input1_offset + x.to_i32()).wrapping_mul(self.input2_offset + y.to_i32());
        let raw = multiply_by_quantized_multiplier(p, self.multiplier, self.shift).wrapping_add(self.output_offset);
        T::narrow(clamp_i32(raw, self.act_min, self.act_max))
    }
}

/// The constants of a quantized PRELU (TFLite `PreluParams`).
#[derive(Clone, Copy, Debug)]
pub struct PreluQuant {
    /// Negated input zero point.
    pub input_offset: i32,
    /// Negated alpha zero point.
    pub alpha_offset: i32,
    /// Output zero point.
    pub output_offset: i32,
    /// `input / output` scale as a multiplier ...
    pub multiplier_1: i32,
    /// ... and exponent.
    pub shift_1: i32,
    /// `input * alpha / output` scale as a multiplier ...
    pub multiplier_2: i32,
    /// ... and exponent.
    pub shift_2: i32,
}

impl PreluQuant {
    /// One int8 PRELU: identity rescale for x >= 0, alpha-scaled otherwise.
    #[inline(always)]
    pub fn prelu(&self, x: i8, alpha: i8) -> i8 {
        let v = self.input_offset + x as i32;
        let out = if v >= 0 {
            multiply_by_quantized_multiplier(v, self.multiplier_1, self.shift_1)
        } else {
            multiply_by_quantized_multiplier(v * (self.alpha_offset + alpha as i32), self.multiplier_2, self.shift_2)
        };
        (out + self.output_offset).clamp(-128, 127) as i8
    }
}

/// float32 PRELU.
#[inline(always)]
pub fn prelu_f32(x: f32, alpha: f32) -> f32 {
    if x >= 0.0 { x } else { x * alpha }
}

/// An elementwise binary op on two same-shaped tensors. `io` carries one
/// operand and the output (possibly in place), `other` the second operand;
/// `io_first` says whether `io`'s operand is the op's first. `f` gets the
/// operands in the op's order; its result may be of another type
/// (comparisons give `bool`s as bytes).
///
/// Runs of 4 elements: one bounds check per run, and the
/// run's operands read before its outputs are written, which an output
/// starting at or before its input (the planner's in-place slack 0)
/// allows.
#[inline(never)]
pub fn binary<T: Copy, O: Copy, const LEN: usize, IO: Io<T, O>, F: Fn(T, T) -> O>(
    mut io: IO,
    other: &[T],
    io_first: bool,
    f: F,
) {
    let apply = |x: T, y: T| if io_first { f(x, y) } else { f(y, x) };
    let (runs, tail) = other[..LEN].as_chunks::<BINARY_RUN>();
    for (r, ys) in runs.iter().enumerate() {
        let start = r * BINARY_RUN;
        let Some(xs) = io.run(start, BINARY_RUN).first_chunk::<BINARY_RUN>() else {
            unreachable!("io.run returns BINARY_RUN values")
        };
        if crate::arch::ELEMENTWISE_GATHER {
            let out: [O; BINARY_RUN] = core::array::from_fn(|k| apply(xs[k], ys[k]));
            io.out_run(start, BINARY_RUN).copy_from_slice(&out);
        } else {
            let xs = *xs;
            for ((o, &x), &y) in io.out_run(start, BINARY_RUN).iter_mut().zip(&xs).zip(ys) {
                *o = apply(x, y);
            }
        }
    }
    let start = runs.len() * BINARY_RUN;
    for (k, &y) in tail.iter().enumerate() {
        let x = io.get(start + k);
        io.put(start + k, apply(x, y));
    }
}

/// Elements per run of [`binary`] (`arch::ELEMENTWISE_RUN`).
const BINARY_RUN: usize = crate::arch::ELEMENTWISE_RUN;

/// Whether an output zero point and activation range lie inside `[min,
/// max]` (the output type's), as the lanes forms' narrowing stores need,
/// and the last rescale cannot saturate a lane: `VQRDMLAH` adds the high
/// product (at most `high` in magnitude) to the sign and the folded zero
/// point term (`offset << right`) with saturation, where TFLite's int32
/// arithmetic would wrap; with their sum inside int32 the two agree.
const fn lane_output(offset: i32, lo: i32, hi: i32, (min, max): (i32, i32), right: i32, high: i64) -> bool {
    let term = (offset as i64) << right;
    let term = if term < 0 { -term } else { term };
    offset >= min && offset <= max && lo >= min && hi <= max && lo <= hi && high + term < i32::MAX as i64
}

/// The largest magnitude of `x + offset` for `x` in `[min, max]`.
const fn offset_bound((min, max): (i32, i32), offset: i32) -> i64 {
    let (a, b) = ((min as i64 + offset as i64).abs(), (max as i64 + offset as i64).abs());
    if a > b { a } else { b }
}

/// The magnitude bound of `VQRDMULH(v, multiplier)` for `|v| <= v`
/// (`v` capped at 2^31: a wrapped lane can be anything).
const fn high_bound(v: i64, multiplier: i32) -> i64 {
    let v = if v > 1 << 31 { 1 << 31 } else { v };
    ((v * multiplier as i64) >> 31) + 1
}

/// The int8 and int16 ranges, as [`lane_output`] takes them.
const INT8: (i32, i32) = (-128, 127);
const INT16: (i32, i32) = (-32768, 32767);

/// A lane's clamp to the activation's range (`VMAX`, `VMIN`), narrowed
/// to the output type (the range is inside it).
#[inline(always)]
fn clamp_lane<T: Narrow>(v: i32, lo: i32, hi: i32) -> T {
    let v = if v < lo { lo } else { v };
    T::narrow(if v > hi { hi } else { v })
}

/// An int8 or int16 binary op in the form of 32-bit vector lanes
/// ([`AddLanes`], [`MulLanes`]), whose loop the target runs.
pub trait Lanes<T>: Copy {
    /// `n` outputs of the values behind `first` and `second` into `out`
    /// (`arch::add_sub_lanes`, `arch::mul_lanes`).
    ///
    /// # Safety
    /// `first` and `second` point to `n` readable values and `out` to `n`
    /// writable ones; an output may overlap an input only at or before the
    /// input's own element.
    unsafe fn run(&self, first: *const T, second: *const T, out: *mut T, n: usize);
}

impl<T: Narrow> Lanes<T> for AddLanes {
    #[inline(always)]
    unsafe fn run(&self, first: *const T, second: *const T, out: *mut T, n: usize) {
        // SAFETY: the caller's runs, as `arch::add_sub_lanes` asks.
        unsafe { crate::arch::add_sub_lanes(first, second, out, n, self) }
    }
}

impl<T: Narrow> Lanes<T> for MulLanes {
    #[inline(always)]
    unsafe fn run(&self, first: *const T, second: *const T, out: *mut T, n: usize) {
        // SAFETY: the caller's runs, as `arch::mul_lanes` asks.
        unsafe { crate::arch::mul_lanes(first, second, out, n, self) }
    }
}

/// int8 or int16 ADD, SUB or MUL of two same-shaped tensors (`walk` `None`), or
/// broadcast along `walk` whose last dimension is a run contiguous in both
/// operands (and the whole walk contiguous in `io`'s): where the target
/// has vector lanes (`arch::VECTOR_LANES`, Helium) and `lanes` holds the
/// op's constants in their form ([`AddLanes::of`], [`MulLanes::of`] and their
/// int16 twins, a constant), a vector loop per run; elsewhere [`binary`] (or
/// [`binary_broadcast`]) with `f` (the compiler's scalar closure, which may
/// look the rescaled inputs up in tables). The same bits either way.
#[inline(never)]
pub fn binary_lanes<T: Narrow, const LEN: usize, IO: Io<T>, L: Lanes<T>, F: Fn(T, T) -> T>(
    mut io: IO,
    other: &[T],
    walk: Option<&Strided6>,
    io_first: bool,
    lanes: Option<L>,
    f: F,
) {
    let Some(lanes) = lanes.filter(|_| crate::arch::VECTOR_LANES) else {
        return match walk {
            None => binary::<T, T, LEN, IO, F>(io, other, io_first, f),
            Some(shape) => binary_broadcast::<T, T, LEN, IO, F>(io, other, shape, io_first, f),
        };
    };
    let mut run_at = |start: usize, other: &[T]| {
        let (input, output) = io.elementwise_runs(start, other.len());
        let (first, second) = if io_first { (input, other.as_ptr()) } else { (other.as_ptr(), input) };
        // SAFETY: `elementwise_runs` and `other` give `other.len()` readable
        // values behind each operand and as many writable outputs, where an
        // in-place output never starts after its input (so each step reads
        // its inputs before any output lands on them).
        unsafe { lanes.run(first, second, output, other.len()) };
    };
    match walk {
        None => run_at(0, &other[..LEN]),
        Some(shape) => {
            // The outer dimensions walked, the last one a run.
            let inner = shape.dims[5];
            let mut outer = *shape;
            outer.dims[5] = 1;
            outer.for_each(|_, start, at| run_at(start, &other[at..at + inner]));
        }
    }
}

/// A quantized int8 or int16 MUL ([`MulQuant`]) in the form of 32-bit vector lanes:
/// the product of the offset inputs (at most 2^16 in magnitude for int8;
/// int16's may wrap the lane, as TFLite's int32 product does) shifted
/// left by `left`, TFLite's rounding doubling high multiply by
/// `multiplier`, and where `right` is not 0 its rounding right shift with
/// the output zero point folded in as [`AddLanes::rescale`] does it (else
/// the zero point added); then the activation's clamp. TFLite's
/// `MultiplyByQuantizedMultiplier` bit for bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MulLanes {
    /// Each operand's negated zero point (op order).
    pub offset: [i32; 2],
    /// The left shift of the product (0 to 31) ...
    pub left: i32,
    /// ... the multiplier (below 2^31) ...
    pub multiplier: i32,
    /// ... and the right shift (0 to 23).
    pub right: i32,
    /// The output zero point.
    pub out_offset: i32,
    /// The fused activation's range, inside the output type.
    pub act_min: i32,
    /// Upper end of the range.
    pub act_max: i32,
}

impl MulLanes {
    /// The lanes form of an int8 MUL where its constants allow it: a
    /// non-negative multiplier, a right shift of at most 23, the output
    /// zero point and the clamp inside int8 (the zero point times
    /// 2^right fits a lane); `None` otherwise.
    pub const fn of(q: &MulQuant) -> Option<MulLanes> {
        Self::of_range(q, INT8)
    }

    /// [`MulLanes::of`] for int16: the same form, the output inside int16
    /// (products of offset int16 values wrap in a lane as in TFLite's
    /// int32 arithmetic).
    pub const fn of_s16(q: &MulQuant) -> Option<MulLanes> {
        Self::of_range(q, INT16)
    }

    const fn of_range(q: &MulQuant, range: (i32, i32)) -> Option<MulLanes> {
        let (left, right) = if q.shift > 0 { (q.shift, 0) } else { (0, -q.shift) };
        if q.multiplier < 0 || q.shift < -crate::fixedpoint::DOWN_MAX_RIGHT || q.shift > 31 {
            return None;
        }
        let product = offset_bound(range, q.input1_offset) * offset_bound(range, q.input2_offset);
        let high = high_bound(if left < 32 && product < 1 << 32 { product << left } else { 1 << 31 }, q.multiplier);
        if !lane_output(q.output_offset, q.act_min, q.act_max, range, right, high) {
            return None;
        }
        Some(MulLanes {
            offset: [q.input1_offset, q.input2_offset],
            left,
            multiplier: q.multiplier,
            right,
            out_offset: q.output_offset,
            act_min: q.act_min,
            act_max: q.act_max,
        })
    }

    /// One output, as each lane computes it (the portable form of
    /// `arch::mul_lanes`).
    #[inline(always)]
    pub fn apply<T: Narrow>(&self, x: T, y: T) -> T {
        let p = (x.to_i32() + self.offset[0]).wrapping_mul(y.to_i32() + self.offset[1]);
        let v = p.wrapping_shl(self.left as u32);
        let out = if self.right == 0 {
            AddLanes::rescale_high(v, self.multiplier).wrapping_add(self.out_offset)
        } else {
            AddLanes::rescale(v, self.multiplier, self.right, self.out_offset << self.right)
        };
        clamp_lane(out, self.act_min, self.act_max)
    }
}

/// A quantized int8 or int16 ADD or SUB ([`AddQuant`], the 20- or 15-bit headroom) in the
/// form of 32-bit vector lanes: each operand `x` becomes `(x + offset) <<
/// shift` with one multiply-accumulate (`x * 2^shift + (offset <<
/// shift)`). TFLite rescales each input by a multiplier below one, and the
/// input with the larger scale has exactly 1/2 (2^30, exponent 0), a
/// halving of its even shifted value: its `shift` is one less than the
/// headroom and no more is done. The other input, `rescaled` (none where
/// the scales are equal), has the headroom's shift and `multiplier` with a right shift `right`; then the sum (or
/// difference) takes `out_multiplier`, `out_right` and the output zero
/// point, and the activation's clamp. Each rescaling is TFLite's
/// `MultiplyByQuantizedMultiplierSmallerThanOneExp` as [`AddLanes::rescale`]
/// computes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddLanes {
    /// Left shift of each operand (op order): the headroom (20 for int8,
    /// 15 for int16), or one less where halved.
    pub shift: [i32; 2],
    /// Each operand's negated zero point.
    pub offset: [i32; 2],
    /// The operand that takes `multiplier` (`None`: both are halved).
    pub rescaled: Option<usize>,
    /// Its multiplier (below 2^31) ...
    pub multiplier: i32,
    /// ... and right shift (1 to 31).
    pub right: i32,
    /// The output multiplier ...
    pub out_multiplier: i32,
    /// ... its right shift (1 to 23) ...
    pub out_right: i32,
    /// ... and the output zero point.
    pub out_offset: i32,
    /// The fused activation's range, inside the output type.
    pub act_min: i32,
    /// Upper end of the range.
    pub act_max: i32,
    /// SUB (first less second) rather than ADD.
    pub sub: bool,
}

impl AddLanes {
    /// The lanes form of an int8 ADD (`sub` false) or SUB, where its
    /// constants allow it: headroom 20, one input halved and the other's
    /// right shift 1 to 31 (both halved for equal scales), the output's
    /// right shift 1 to 23 and the zero point and clamp inside int8 (the
    /// zero point times 2^right then fits a lane); `None` otherwise.
    pub const fn of(q: &AddQuant, sub: bool) -> Option<AddLanes> {
        Self::of_range(q, sub, 20, INT8)
    }

    /// [`AddLanes::of`] for int16 (TFLite's 15-bit headroom), the output
    /// inside int16 and no lane able to saturate (with TFLite's int16 zero
    /// points of 0, never).
    pub const fn of_s16(q: &AddQuant, sub: bool) -> Option<AddLanes> {
        Self::of_range(q, sub, 15, INT16)
    }

    const fn of_range(q: &AddQuant, sub: bool, headroom: i32, range: (i32, i32)) -> Option<AddLanes> {
        if q.left_shift != headroom
            || q.output_multiplier < 0
            || q.output_shift > -1
            || q.output_shift < -crate::fixedpoint::DOWN_MAX_RIGHT
        {
            return None;
        }
        const fn halved(m: i32, shift: i32) -> bool {
            m == 1 << 30 && shift == 0
        }
        const fn fits(m: i32, shift: i32) -> bool {
            m >= 0 && shift <= -1 && shift >= -31
        }
        let (m1, s1, m2, s2) = (q.input1_multiplier, q.input1_shift, q.input2_multiplier, q.input2_shift);
        let (full, half) = (headroom, headroom - 1);
        let (rescaled, multiplier, shift, left) = match (halved(m1, s1), halved(m2, s2)) {
            (true, true) => (None, 0, 0, [half, half]),
            (false, true) if fits(m1, s1) => (Some(0), m1, s1, [full, half]),
            (true, false) if fits(m2, s2) => (Some(1), m2, s2, [half, full]),
            _ => return None,
        };
        // Each operand at most its offset bound times 2^(headroom - 1)
        // after its rescale (a multiplier below 1/2 for the rescaled one):
        // their sum or difference is the output rescale's input.
        let sum = (offset_bound(range, q.input1_offset) + offset_bound(range, q.input2_offset)) << half;
        let right = -q.output_shift;
        if !lane_output(q.output_offset, q.act_min, q.act_max, range, right, high_bound(sum, q.output_multiplier)) {
            return None;
        }
        Some(AddLanes {
            shift: left,
            offset: [q.input1_offset, q.input2_offset],
            rescaled,
            multiplier,
            right: -shift,
            out_multiplier: q.output_multiplier,
            out_right: right,
            out_offset: q.output_offset,
            act_min: q.act_min,
            act_max: q.act_max,
            sub,
        })
    }

    /// `MultiplyByQuantizedMultiplierSmallerThanOneExp(v, multiplier,
    /// -right)` for `right >= 1` as vector lanes compute it: `VQRDMULH`'s
    /// rounding doubling high product `q`, less one for a negative `v`,
    /// then `VRSHL`'s rounding right shift, `floor((q - [v < 0] +
    /// 2^(right - 1)) / 2^right)`: one floor of `(v m + 2^30 +
    /// (2^(right - 1) - [v < 0]) 2^31) / 2^(31 + right)`, which is TFLite's rounding of
    /// the product and then of the shift, half away from zero
    /// (`fixedpoint::rescale_down`'s argument). The lanes add `addend` (the
    /// output zero point times 2^right) before the shift.
    #[inline(always)]
    pub const fn rescale(v: i32, multiplier: i32, right: i32, addend: i32) -> i32 {
        let q = Self::rescale_high(v, multiplier);
        let a = addend as i64 + (v >> 31) as i64 + q as i64;
        ((a + (1 << (right - 1))) >> right) as i32
    }

    /// `VQRDMULH`: the rounding doubling high product `(2 v m + 2^31) >>
    /// 32`, which equals TFLite's `SaturatingRoundingDoublingHighMul` for
    /// a non-negative multiplier (its rounding of negative products away
    /// from zero is the same floor; nothing saturates).
    #[inline(always)]
    pub const fn rescale_high(v: i32, multiplier: i32) -> i32 {
        ((2 * v as i64 * multiplier as i64 + (1 << 31)) >> 32) as i32
    }

    /// One output, as each lane computes it (the portable form of
    /// `arch::add_sub_lanes`).
    #[inline(always)]
    pub fn apply<T: Narrow>(&self, x: T, y: T) -> T {
        let mut v = [
            (x.to_i32() + self.offset[0]).wrapping_shl(self.shift[0] as u32),
            (y.to_i32() + self.offset[1]).wrapping_shl(self.shift[1] as u32),
        ];
        if let Some(r) = self.rescaled {
            v[r] = Self::rescale(v[r], self.multiplier, self.right, 0);
        }
        let sum = if self.sub { v[0].wrapping_sub(v[1]) } else { v[0].wrapping_add(v[1]) };
        let out = Self::rescale(sum, self.out_multiplier, self.out_right, self.out_offset << self.out_right);
        clamp_lane(out, self.act_min, self.act_max)
    }
}

/// An elementwise binary op with broadcasting: `shape` walks the output,
/// its `a` strides index `io`'s operand, its `b` strides `other` (0 along
/// broadcast dimensions).
#[inline(never)]
pub fn binary_broadcast<T: Copy, O: Copy, const LEN: usize, IO: Io<T, O>, F: Fn(T, T) -> O>(
    mut io: IO,
    other: &[T],
    shape: &Strided6,
    io_first: bool,
    f: F,
) {
    shape.for_each(|i, ia, ib| {
        let (x, y) = (io.get(ia), other[ib]);
        io.put(i, if io_first { f(x, y) } else { f(y, x) });
    });
}

/// ADD_N: `out[i] = finish(step(...step(init, inputs[0][i])..., inputs[K - 1][i]))`,
/// the inputs in order (float32 sums, or int8 sums of rescaled values).
#[inline(never)]
pub fn add_n<T: Copy, A: Copy, const LEN: usize, const K: usize>(
    inputs: [&[T]; K],
    output: &mut [T],
    init: A,
    step: impl Fn(A, T) -> A,
    finish: impl Fn(A) -> T,
) {
    for (i, o) in output[..LEN].iter_mut().enumerate() {
        *o = finish(inputs.iter().fold(init, |a, input| step(a, input[i])));
    }
}

/// CUMSUM over `BEFORE x ALONG x AFTER` elements: along the middle axis,
/// each output is `finish` of the running `step` sum from `init`, before
/// (exclusive) or after its own element is added, from the axis's end when
/// `reverse`. Each element is read before its output is written, so an
/// in-place output at the input's own offset is allowed.
#[inline(never)]
pub fn cumsum<T: Copy, A: Copy, IO: Io<T>, const BEFORE: usize, const ALONG: usize, const AFTER: usize>(
    mut io: IO,
    exclusive: bool,
    reverse: bool,
    init: A,
    step: impl Fn(A, T) -> A,
    finish: impl Fn(A) -> T,
) {
    for b in 0..BEFORE {
        for a in 0..AFTER {
            let mut acc = init;
            for k in 0..ALONG {
                let k = if reverse { ALONG - 1 - k } else { k };
                let at = (b * ALONG + k) * AFTER + a;
                let x = io.get(at);
                let sum = step(acc, x);
                io.put(at, finish(if exclusive { acc } else { sum }));
                acc = sum;
            }
        }
    }
}

/// FLOOR_DIV (TFLite's `FloorDiv`): the quotient in double, floored. A
/// zero divisor gives an infinity or NaN (TFLM's invoke fails instead).
#[inline(always)]
pub fn floor_div_f32(a: f32, b: f32) -> f32 {
    libm::floor(a as f64 / b as f64) as f32
}

/// FLOOR_MOD (TFLite's `FloorMod`): the truncated remainder (`fmod`,
/// exact), plus the divisor when their signs differ.
#[inline(always)]
pub fn floor_mod_f32(a: f32, b: f32) -> f32 {
    let r = libm::fmodf(a, b);
    if r != 0.0 && ((b < 0.0) != (r < 0.0)) { r + b } else { r }
}

/// int32 FLOOR_DIV as LiteRT's reference kernel (TFLM has none): the
/// floor of the quotient (LiteRT floors the double quotient, which for
/// int32 operands is exact). A zero divisor, which LiteRT refuses at
/// invoke, gives 0; `i32::MIN / -1` wraps to `i32::MIN`, as x86 converts it.
#[inline(always)]
pub fn floor_div_i32(a: i32, b: i32) -> i32 {
    if b == 0 {
        return 0;
    }
    let q = a.wrapping_div(b);
    if a.wrapping_rem(b) != 0 && ((a < 0) != (b < 0)) { q - 1 } else { q }
}

/// int32 FLOOR_MOD as LiteRT's reference kernel (TFLM has none): C's
/// truncated remainder, plus the divisor when their signs differ. A zero
/// divisor, which LiteRT refuses at invoke, gives 0.
#[inline(always)]
pub fn floor_mod_i32(a: i32, b: i32) -> i32 {
    if b == 0 {
        return 0;
    }
    let r = a.wrapping_rem(b);
    if r != 0 && ((b < 0) != (r < 0)) { r + b } else { r }
}

/// float32 POW as LiteRT's reference kernel (`std::pow`; TFLM has none).
#[inline(always)]
pub fn pow_f32(a: f32, b: f32) -> f32 {
    libm::powf(a, b)
}

/// int32 POW as LiteRT's reference kernel (TFLM has none): C++'s
/// `std::pow` of the two ints in double, converted back, so a power
/// outside the int32 range is `i32::MIN` (x86's conversion of an
/// out-of-range double). Powers inside it are exact (as the double's).
/// A negative exponent, which LiteRT refuses at invoke, gives 0.
#[inline(always)]
pub fn pow_i32(base: i32, exponent: i32) -> i32 {
    const LIMIT: i64 = 1 << 31;
    if exponent < 0 {
        return 0;
    }
    let (mut result, mut square, mut e) = (1i64, base as i64, exponent);
    // Squaring: every factor still to come has a magnitude of at least 1,
    // so once a needed square passes 2^31 the power does too.
    while e > 0 {
        if e & 1 == 1 {
            result *= square;
        }
        e >>= 1;
        if e > 0 {
            square *= square;
            if square.abs() > LIMIT {
                return i32::MIN;
            }
        }
        if result.abs() > LIMIT {
            return i32::MIN;
        }
    }
    i32::try_from(result).unwrap_or(i32::MIN)
}

/// LiteRT's int32 POW where the operands' shapes differ and the exponent
/// is one value (its `BroadcastPow4D`): an exponent of 1 or more takes an
/// integer power by repeated products in int32, which wrap (9^11 gives
/// 1316288537, the power's low 32 bits); any other, [`pow_i32`]'s double.
pub fn pow_i32_scalar_exponent(base: i32, exponent: i32) -> i32 {
    if exponent >= 1 { base.wrapping_pow(exponent as u32) } else { pow_i32(base, exponent) }
}

/// float32 `max` as TFLite's `MaximumOp` (`a > b ? a : b`).
#[inline(always)]
pub fn maximum_f32(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

/// float32 `min` as TFLite's `MinimumOp` (`a < b ? a : b`).
#[inline(always)]
pub fn minimum_f32(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}

/// Clamp for fused activations, re-exported for generated closures.
pub use super::clamp_f32;
