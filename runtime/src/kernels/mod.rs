//! Kernels: one file per operator family, each function generic over its
//! shape through const parameters, so every call site in generated code is
//! monomorphized with constant loop bounds.
//!
//! Integer kernels reproduce TFLite's reference kernels bit for bit; float
//! kernels keep the reference summation order, so results agree with TFLM's
//! to the last rounding.

pub mod binary;
pub mod conv;
pub mod depthwise;
pub mod detection;
pub mod dot;
pub mod dot_int4;
pub mod dot_vector;
pub mod dot_widened;
pub mod elementwise;
pub mod fft;
pub mod fully_connected;
pub mod hybrid;
pub mod int16;
pub mod lstm;
pub mod movement;
pub use tinyaot_common::layout;
pub mod pool;
pub mod reduce;
pub mod signal;
pub mod softmax;
pub mod svdf;
pub mod transpose_conv;

/// Where a kernel reads its main input and writes its output: two separate
/// slices, or one slice holding both at element offsets (an in-place plan,
/// where the compiler proved that the kernel never overwrites an input
/// element it will still read). Both are safe Rust: the in-place case is one
/// `&mut` borrow, not two aliasing ones.
pub trait Io<I: Copy, O: Copy = I> {
    /// Input element `i`.
    fn get(&self, i: usize) -> I;
    /// Writes output element `j`.
    fn put(&mut self, j: usize, v: O);
    /// Reads back output element `j` (already written).
    fn out(&self, j: usize) -> O;
    /// `len` consecutive output elements from `start`, to write.
    fn out_run(&mut self, start: usize, len: usize) -> &mut [O];
    /// `len` consecutive input elements from `start`, as a slice (so inner
    /// loops run without a bounds check per element).
    fn run(&self, start: usize, len: usize) -> &[I];
    /// Input elements `input` and output elements `output` at once, for a
    /// kernel that writes part of a pixel's output while still reading
    /// its input. In place the two must not overlap (the planner's slack
    /// guarantees it for window kernels: a pixel's output never covers
    /// input it reads); overlapping ranges panic.
    fn split(&mut self, input: Range<usize>, output: Range<usize>) -> (&[I], &mut [O]);
    /// Pointers to `len` input and `len` output elements from `start`
    /// (both checked in bounds), for an elementwise vector loop that reads
    /// each step's inputs before it writes that step's outputs: in place the
    /// output must not start after the input (asserted; the planner's
    /// slack 0 for elementwise ops), so no output lands on input still to
    /// be read.
    fn elementwise_runs(&mut self, start: usize, len: usize) -> (*const I, *mut O);
}

use core::ops::Range;

/// A filter as the direct convolution kernels read it, run by run: the
/// model's values (a slice) or int4 nibbles (`dot_int4::Int4Filter`).
pub trait Filter<W>: Copy {
    /// `len` values from `start`.
    fn run(self, start: usize, len: usize) -> impl Iterator<Item = W>;
    /// Value `i`.
    fn at(self, i: usize) -> W;
}

impl<W: Copy> Filter<W> for &[W] {
    #[inline(always)]
    fn run(self, start: usize, len: usize) -> impl Iterator<Item = W> {
        self[start..start + len].iter().copied()
    }

    #[inline(always)]
    fn at(self, i: usize) -> W {
        self[i]
    }
}

/// Input and output in disjoint buffers.
pub struct Separate<'a, I, O = I> {
    /// The input.
    pub input: &'a [I],
    /// The output.
    pub output: &'a mut [O],
}

impl<I: Copy, O: Copy> Io<I, O> for Separate<'_, I, O> {
    #[inline(always)]
    fn get(&self, i: usize) -> I {
        self.input[i]
    }
    #[inline(always)]
    fn put(&mut self, j: usize, v: O) {
        self.output[j] = v;
    }
    #[inline(always)]
    fn out(&self, j: usize) -> O {
        self.output[j]
    }
    #[inline(always)]
    fn run(&self, start: usize, len: usize) -> &[I] {
        &self.input[start..start + len]
    }
    #[inline(always)]
    fn out_run(&mut self, start: usize, len: usize) -> &mut [O] {
        &mut self.output[start..start + len]
    }
    #[inline(always)]
    fn split(&mut self, input: Range<usize>, output: Range<usize>) -> (&[I], &mut [O]) {
        (&self.input[input], &mut self.output[output])
    }
    #[inline(always)]
    fn elementwise_runs(&mut self, start: usize, len: usize) -> (*const I, *mut O) {
        (self.input[start..start + len].as_ptr(), self.output[start..start + len].as_mut_ptr())
    }
}

/// Input and output overlapping inside one buffer.
pub struct InPlace<'a, T> {
    /// The span covering both tensors.
    pub buf: &'a mut [T],
    /// Element offset of the input in `buf`.
    pub input: usize,
    /// Element offset of the output in `buf`.
    pub output: usize,
}

impl<T: Copy> Io<T> for InPlace<'_, T> {
    #[inline(always)]
    fn get(&self, i: usize) -> T {
        self.buf[self.input + i]
    }
    #[inline(always)]
    fn put(&mut self, j: usize, v: T) {
        self.buf[self.output + j] = v;
    }
    #[inline(always)]
    fn out(&self, j: usize) -> T {
        self.buf[self.output + j]
    }
    #[inline(always)]
    fn run(&self, start: usize, len: usize) -> &[T] {
        &self.buf[self.input + start..self.input + start + len]
    }
    #[inline(always)]
    fn out_run(&mut self, start: usize, len: usize) -> &mut [T] {
        &mut self.buf[self.output + start..self.output + start + len]
    }
    #[inline(always)]
    fn split(&mut self, input: Range<usize>, output: Range<usize>) -> (&[T], &mut [T]) {
        let (i, o) =
            (self.input + input.start..self.input + input.end, self.output + output.start..self.output + output.end);
        // A window wholly in the padding reads nothing, wherever its empty
        // range would start (the plan's slack does not count it).
        if i.is_empty() {
            return (&[], &mut self.buf[o]);
        }
        if o.end <= i.start {
            let (head, tail) = self.buf.split_at_mut(i.start);
            (&tail[..i.end - i.start], &mut head[o])
        } else {
            assert!(i.end <= o.start, "an in-place output range overlaps the input it reads");
            let (head, tail) = self.buf.split_at_mut(o.start);
            (&head[i], &mut tail[..o.end - o.start])
        }
    }
    #[inline(always)]
    fn elementwise_runs(&mut self, start: usize, len: usize) -> (*const T, *mut T) {
        assert!(self.output <= self.input, "an in-place elementwise output starts after its input");
        let (i, o) = (self.input + start, self.output + start);
        let _in_bounds = (&self.buf[i..i + len], &self.buf[o..o + len]);
        // Both from one pointer to the whole buffer: the loop's writes
        // may touch input it has read.
        let base = self.buf.as_mut_ptr();
        (base.wrapping_add(i) as *const T, base.wrapping_add(o))
    }
}

/// Requantization of an int32 accumulator to an int8/int16 output, per
/// output channel: the constants every quantized conv-like kernel needs.
#[derive(Clone, Copy, Debug)]
pub struct Requant<'a> {
    /// Added to every input value (the negated input zero point).
    pub input_offset: i32,
    /// Added after rescaling (the output zero point).
    pub output_offset: i32,
    /// Q0.31 significands, one per output channel.
    pub multiplier: &'a [i32],
    /// Power-of-two exponents (positive = left), one per output channel.
    pub shift: &'a [i32],
    /// Fused activation range in the output's quantized domain.
    pub act_min: i32,
    /// Upper end of the fused activation range.
    pub act_max: i32,
}

impl Requant<'_> {
    /// Bias-added accumulator of channel `c` to the clamped output value.
    #[inline(always)]
    pub fn apply(&self, acc: i32, c: usize) -> i32 {
        let v = crate::fixedpoint::multiply_by_quantized_multiplier(acc, self.multiplier[c], self.shift[c])
            .wrapping_add(self.output_offset);
        clamp_i32(v, self.act_min, self.act_max)
    }
}

/// The arithmetic of the reference conv-like kernels (`conv::conv2d`,
/// `depthwise::depthwise`, `fully_connected::fully_connected`): one loop
/// for every dtype, as TFLite's reference kernels are one template. `Acc`
/// is the accumulator and bias type (i32 for int8, i64 or i32 for 16x8,
/// f32 for float32); the implementing type holds the constants.
pub trait Arithmetic<Acc: Copy>: Copy {
    /// Activation element.
    type Input: Copy;
    /// Weight element.
    type Weight: Copy;
    /// Output element.
    type Output: Copy;
    /// The empty sum.
    const ZERO: Acc;
    /// `acc + weight * input`, offsets applied, in TFLite's arithmetic.
    fn mac(&self, acc: Acc, weight: Self::Weight, input: Self::Input) -> Acc;
    /// Output channel `channel`'s value from its sum: the bias (if any)
    /// added, then requantized or clamped.
    fn output(&self, acc: Acc, bias: Option<&[Acc]>, channel: usize) -> Self::Output;
}

/// The int8 arithmetic of a type with `input_offset` and `apply(acc,
/// channel)`: [`Requant`] (TFLite's general requantization) and
/// [`Rescale`] (the fast kernels' short forms where the compiler found
/// them; the same bits).
macro_rules! int8_arithmetic {
    ($ty:ident) => {
        impl Arithmetic<i32> for $ty<'_> {
            type Input = i8;
            type Weight = i8;
            type Output = i8;
            const ZERO: i32 = 0;
            #[inline(always)]
            fn mac(&self, acc: i32, weight: i8, input: i8) -> i32 {
                acc.wrapping_add((weight as i32).wrapping_mul((input as i32).wrapping_add(self.input_offset)))
            }
            #[inline(always)]
            fn output(&self, acc: i32, bias: Option<&[i32]>, channel: usize) -> i8 {
                let acc = match bias {
                    Some(bias) => acc.wrapping_add(bias[channel]),
                    None => acc,
                };
                self.apply(acc, channel) as i8
            }
        }
    };
}

int8_arithmetic!(Requant);
int8_arithmetic!(Rescale);

/// The float32 arithmetic: the fused activation's clamp.
#[derive(Clone, Copy, Debug)]
pub struct F32Range {
    /// Lower end of the activation range.
    pub min: f32,
    /// Upper end.
    pub max: f32,
}

impl Arithmetic<f32> for F32Range {
    type Input = f32;
    type Weight = f32;
    type Output = f32;
    const ZERO: f32 = 0.0;
    #[inline(always)]
    fn mac(&self, acc: f32, weight: f32, input: f32) -> f32 {
        acc + input * weight
    }
    /// TFLite's order: the sum, then the bias (0.0 without one, which
    /// turns a -0.0 sum into +0.0, as TFLite does), then the clamp.
    #[inline(always)]
    fn output(&self, acc: f32, bias: Option<&[f32]>, channel: usize) -> f32 {
        let bias = match bias {
            Some(bias) => bias[channel],
            None => 0.0,
        };
        clamp_f32(acc + bias, self.min, self.max)
    }
}

pub use crate::fixedpoint::{
    DOWN_MAX_RIGHT, DownScale, Scale, down_scale_of, rescale, rescale_down, rescale_down_unnudged, scale_of,
};
pub use dot_widened::PackedRows;

/// Per-channel rescaling constants in one of two precomputed forms, chosen
/// by the compiler per op.
#[derive(Clone, Copy, Debug)]
pub enum Scales<'a> {
    /// Every channel's multiplier is below 1/2 ([`rescale_down`](crate::fixedpoint::rescale_down), the
    /// short form nearly every conv-like layer has; the output offset is
    /// folded in).
    Down(&'a [DownScale]),
    /// Any multiplier ([`rescale`]).
    Any(&'a [Scale]),
}

/// Requantization of the fast kernels: per-channel [`Scales`], offsets
/// and the activation range.
#[derive(Clone, Copy, Debug)]
pub struct Rescale<'a> {
    /// Added to every input value (the negated input zero point).
    pub input_offset: i32,
    /// Added after rescaling (the output zero point).
    pub output_offset: i32,
    /// One per output channel.
    pub scales: Scales<'a>,
    /// Fused activation range in the output's quantized domain.
    pub act_min: i32,
    /// Upper end of the fused activation range.
    pub act_max: i32,
}

impl Rescale<'_> {
    /// Bias-added accumulator of channel `c` to the clamped output value.
    #[inline(always)]
    pub fn apply(&self, acc: i32, c: usize) -> i32 {
        let v = match self.scales {
            Scales::Down(s) => crate::arch::rescale_down(acc, &s[c]),
            Scales::Any(s) => rescale(acc, &s[c]).wrapping_add(self.output_offset),
        };
        clamp_i32(v, self.act_min, self.act_max)
    }
}

/// The quantized integer element types (int8, int16): widened to i32 for
/// arithmetic, narrowed back after the clamp.
pub trait Narrow: Copy + PartialOrd {
    /// Bytes per value.
    const BYTES: usize;
    /// Smallest value.
    const MIN: Self;
    /// Largest value.
    const MAX: Self;
    /// The value as an `i32`.
    fn to_i32(self) -> i32;
    /// Narrow an already clamped value.
    fn narrow(v: i32) -> Self;
    /// `acc[i] = max(acc[i], x[i])` over the shorter of the two.
    #[inline(always)]
    fn max_into(acc: &mut [Self], x: &[Self]) {
        for (a, &v) in acc.iter_mut().zip(x) {
            if v > *a {
                *a = v;
            }
        }
    }
    /// `acc[i] += x[i]` in 16 bits (wrapping) over the shorter of the two:
    /// the sums of int8 windows of up to 256 taps.
    #[inline(always)]
    fn add_into(acc: &mut [i16], x: &[Self]) {
        for (a, &v) in acc.iter_mut().zip(x) {
            *a = a.wrapping_add(v.to_i32() as i16);
        }
    }
}

impl Narrow for i8 {
    const BYTES: usize = 1;
    const MIN: i8 = i8::MIN;
    const MAX: i8 = i8::MAX;
    #[inline(always)]
    fn to_i32(self) -> i32 {
        self as i32
    }
    #[inline(always)]
    fn narrow(v: i32) -> i8 {
        v as i8
    }
    #[inline(always)]
    fn max_into(acc: &mut [i8], x: &[i8]) {
        crate::arch::max_s8(acc, x)
    }
    #[inline(always)]
    fn add_into(acc: &mut [i16], x: &[i8]) {
        crate::arch::add_widened_s8(acc, x)
    }
}

impl Narrow for i16 {
    const BYTES: usize = 2;
    const MIN: i16 = i16::MIN;
    const MAX: i16 = i16::MAX;
    #[inline(always)]
    fn to_i32(self) -> i32 {
        self as i32
    }
    #[inline(always)]
    fn narrow(v: i32) -> i16 {
        v as i16
    }
    #[inline(always)]
    fn max_into(acc: &mut [i16], x: &[i16]) {
        crate::arch::max_s16(acc, x)
    }
}

/// `min(max(v, lo), hi)` as TFLite writes it. Branch-free: ReLU outputs
/// sit on their lower bound about half the time, which a branch
/// mispredicts.
#[inline(always)]
pub fn clamp_i32(v: i32, lo: i32, hi: i32) -> i32 {
    let v = core::hint::select_unpredictable(v < lo, lo, v);
    core::hint::select_unpredictable(hi < v, hi, v)
}

/// TFLite's `ActivationFunctionWithMinMax` for floats: `std::min(std::max(x,
/// lo), hi)`, with the same comparison order (so NaN passes through alike).
#[inline(always)]
pub fn clamp_f32(x: f32, lo: f32, hi: f32) -> f32 {
    let x = if x < lo { lo } else { x };
    if hi < x { hi } else { x }
}

/// A run of float outputs: `out[l] = clamp(sums[l] + bias[l])` (the bias
/// already sliced to the run; none adds 0.0, as TFLite does), TFLite's
/// order: sum, then bias, then the activation clamp.
#[inline(always)]
pub fn finish_f32(out: &mut [f32], sums: &[f32], bias: Option<&[f32]>, lo: f32, hi: f32) {
    for (l, (o, &total)) in out.iter_mut().zip(sums).enumerate() {
        *o = clamp_f32(total + bias.map_or(0.0, |b| b[l]), lo, hi);
    }
}

/// Walks the multi-index of a row-major shape (up to 6 dims) and yields, for
/// each position, the flat offsets into two strided operands. Used by the
/// broadcasting and reducing kernels; strides of 0 repeat an element.
#[derive(Clone, Copy, Debug)]
pub struct Strided6 {
    /// Extent of each dimension (1 for unused leading dims).
    pub dims: [usize; 6],
    /// Stride of each dimension in the first operand.
    pub a: [usize; 6],
    /// Stride of each dimension in the second operand.
    pub b: [usize; 6],
}

impl Strided6 {
    /// Calls `f(i, off_a, off_b)` for every flat position `i` in row-major order.
    #[inline(always)]
    pub fn for_each(&self, mut f: impl FnMut(usize, usize, usize)) {
        // The third operand's offsets are dead here and fold away.
        self.for_each3(&[0; 6], |i, a, b, _| f(i, a, b));
    }

    /// As [`Strided6::for_each`], with the offsets of a third operand of
    /// strides `c` (SELECT_V2's condition).
    #[inline(always)]
    pub fn for_each3(&self, c: &[usize; 6], mut f: impl FnMut(usize, usize, usize, usize)) {
        let (d, a, b) = (&self.dims, &self.a, &self.b);
        let mut i = 0;
        for i0 in 0..d[0] {
            let (a0, b0, c0) = (i0 * a[0], i0 * b[0], i0 * c[0]);
            for i1 in 0..d[1] {
                let (a1, b1, c1) = (a0 + i1 * a[1], b0 + i1 * b[1], c0 + i1 * c[1]);
                for i2 in 0..d[2] {
                    let (a2, b2, c2) = (a1 + i2 * a[2], b1 + i2 * b[2], c1 + i2 * c[2]);
                    for i3 in 0..d[3] {
                        let (a3, b3, c3) = (a2 + i3 * a[3], b2 + i3 * b[3], c2 + i3 * c[3]);
                        for i4 in 0..d[4] {
                            let (a4, b4, c4) = (a3 + i4 * a[4], b3 + i4 * b[4], c3 + i4 * c[4]);
                            for i5 in 0..d[5] {
                                f(i, a4 + i5 * a[5], b4 + i5 * b[5], c4 + i5 * c[5]);
                                i += 1;
                            }
                        }
                    }
                }
            }
        }
    }
}
