//! The real FFTs of TFLM's signal library (RFFT and IRFFT run KISS FFT
//! v130's `kiss_fftr`/`kiss_fftri`, built for int16 and int32 fixed point
//! and for float): a complex FFT of half the length over the samples taken
//! as (even, odd) pairs, mixed radix 4, 2, 3 and 5, then (or, inverse,
//! first) the split between the real transform's bins. In fixed point every
//! stage divides by its radix and products are rounded (Q15, Q31). Same
//! operations in the same order and the same types, so the same bits.

/// A complex value (real, imaginary).
pub type Complex<T> = [T; 2];

/// The compile-time tables of one FFT length and direction.
#[derive(Clone, Copy, Debug)]
pub struct FftTables<'a, T> {
    /// `(radix, remaining length)` of each stage, from the first.
    pub stages: &'a [(usize, usize)],
    /// The half-length FFT's twiddles (conjugated for the inverse).
    pub twiddles: &'a [Complex<T>],
    /// The split's twiddles.
    pub split_twiddles: &'a [Complex<T>],
    /// The inverse transform (radix 4 turns the other way).
    pub inverse: bool,
}

/// A sample type of KISS FFT, with its arithmetic as the C build does it:
/// fixed point wraps on overflow (the C code's int arithmetic, truncated
/// when stored), rounds its products and divides each stage by its radix;
/// float does neither.
pub trait FftSample: Copy + Default {
    /// `x + y`.
    fn add(x: Self, y: Self) -> Self;
    /// `x - y`.
    fn sub(x: Self, y: Self) -> Self;
    /// `-x`.
    fn neg(x: Self) -> Self;
    /// `S_MUL`: a product (rounded to the fixed point's fraction).
    fn smul(x: Self, y: Self) -> Self;
    /// `C_MUL`: a complex product.
    fn cmul(a: Complex<Self>, b: Complex<Self>) -> Complex<Self>;
    /// `C_FIXDIV`: division by a radix (a product by `MAX / radix`); none
    /// in float.
    fn fixdiv(a: Complex<Self>, radix: i32) -> Complex<Self>;
    /// `HALF_OF(x)`.
    fn half(x: Self) -> Self;
    /// `x - HALF_OF(y)` (in float, C computes it in double).
    fn minus_half(x: Self, y: Self) -> Self;
    /// An inverse transform's sample as TFLM's IRFFT leaves it: float
    /// divides by `fft_length` (KISS does not scale), fixed point keeps it
    /// (its stages divided already).
    fn inverse_scaled(x: Self, _fft_length: usize) -> Self {
        x
    }
}

impl FftSample for i16 {
    #[inline(always)]
    fn add(x: i16, y: i16) -> i16 {
        x.wrapping_add(y)
    }
    #[inline(always)]
    fn sub(x: i16, y: i16) -> i16 {
        x.wrapping_sub(y)
    }
    #[inline(always)]
    fn neg(x: i16) -> i16 {
        x.wrapping_neg()
    }
    #[inline(always)]
    fn smul(x: i16, y: i16) -> i16 {
        round_q15(x as i32 * y as i32)
    }
    #[inline(always)]
    fn cmul(a: Complex<i16>, b: Complex<i16>) -> Complex<i16> {
        let p = |x: i16, y: i16| x as i32 * y as i32;
        [round_q15(p(a[0], b[0]).wrapping_sub(p(a[1], b[1]))), round_q15(p(a[0], b[1]).wrapping_add(p(a[1], b[0])))]
    }
    #[inline(always)]
    fn fixdiv(a: Complex<i16>, radix: i32) -> Complex<i16> {
        let s = (i16::MAX as i32 / radix) as i16;
        [i16::smul(a[0], s), i16::smul(a[1], s)]
    }
    #[inline(always)]
    fn half(x: i16) -> i16 {
        x >> 1
    }
    #[inline(always)]
    fn minus_half(x: i16, y: i16) -> i16 {
        x.wrapping_sub(y >> 1)
    }
}

/// Q15 rounding of a product (KISS `sround`, 16-bit).
#[inline(always)]
fn round_q15(x: i32) -> i16 {
    (x.wrapping_add(1 << 14) >> 15) as i16
}

/// Q31 rounding of a product (KISS `sround`, 32-bit).
#[inline(always)]
fn round_q31(x: i64) -> i32 {
    (x.wrapping_add(1 << 30) >> 31) as i32
}

impl FftSample for i32 {
    #[inline(always)]
    fn add(x: i32, y: i32) -> i32 {
        x.wrapping_add(y)
    }
    #[inline(always)]
    fn sub(x: i32, y: i32) -> i32 {
        x.wrapping_sub(y)
    }
    #[inline(always)]
    fn neg(x: i32) -> i32 {
        x.wrapping_neg()
    }
    #[inline(always)]
    fn smul(x: i32, y: i32) -> i32 {
        round_q31(x as i64 * y as i64)
    }
    #[inline(always)]
    fn cmul(a: Complex<i32>, b: Complex<i32>) -> Complex<i32> {
        let p = |x: i32, y: i32| x as i64 * y as i64;
        [round_q31(p(a[0], b[0]).wrapping_sub(p(a[1], b[1]))), round_q31(p(a[0], b[1]).wrapping_add(p(a[1], b[0])))]
    }
    #[inline(always)]
    fn fixdiv(a: Complex<i32>, radix: i32) -> Complex<i32> {
        let s = i32::MAX / radix;
        [i32::smul(a[0], s), i32::smul(a[1], s)]
    }
    #[inline(always)]
    fn half(x: i32) -> i32 {
        x >> 1
    }
    #[inline(always)]
    fn minus_half(x: i32, y: i32) -> i32 {
        x.wrapping_sub(y >> 1)
    }
}

impl FftSample for f32 {
    #[inline(always)]
    fn add(x: f32, y: f32) -> f32 {
        x + y
    }
    #[inline(always)]
    fn sub(x: f32, y: f32) -> f32 {
        x - y
    }
    #[inline(always)]
    fn neg(x: f32) -> f32 {
        -x
    }
    #[inline(always)]
    fn smul(x: f32, y: f32) -> f32 {
        x * y
    }
    #[inline(always)]
    fn cmul(a: Complex<f32>, b: Complex<f32>) -> Complex<f32> {
        [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]]
    }
    #[inline(always)]
    fn fixdiv(a: Complex<f32>, _: i32) -> Complex<f32> {
        a
    }
    #[inline(always)]
    fn half(x: f32) -> f32 {
        x * 0.5
    }
    #[inline(always)]
    fn minus_half(x: f32, y: f32) -> f32 {
        (x as f64 - y as f64 * 0.5) as f32
    }
    #[inline(always)]
    fn inverse_scaled(x: f32, fft_length: usize) -> f32 {
        x / fft_length as f32
    }
}

#[inline(always)]
fn add<T: FftSample>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    [T::add(a[0], b[0]), T::add(a[1], b[1])]
}

#[inline(always)]
fn sub<T: FftSample>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    [T::sub(a[0], b[0]), T::sub(a[1], b[1])]
}

fn radix2<T: FftSample>(out: &mut [Complex<T>], stride: usize, tw: &[Complex<T>], m: usize) {
    for k in 0..m {
        let a = T::fixdiv(out[k], 2);
        let b = T::fixdiv(out[m + k], 2);
        let t = T::cmul(b, tw[k * stride]);
        out[m + k] = sub(a, t);
        out[k] = add(a, t);
    }
}

fn radix3<T: FftSample>(out: &mut [Complex<T>], stride: usize, tw: &[Complex<T>], m: usize) {
    let epi3 = tw[stride * m];
    for k in 0..m {
        let f0 = T::fixdiv(out[k], 3);
        let s1 = T::cmul(T::fixdiv(out[k + m], 3), tw[k * stride]);
        let s2 = T::cmul(T::fixdiv(out[k + 2 * m], 3), tw[2 * k * stride]);
        let s3 = add(s1, s2);
        let s0 = sub(s1, s2);
        let s0 = [T::smul(s0[0], epi3[1]), T::smul(s0[1], epi3[1])];
        let fm = [T::minus_half(f0[0], s3[0]), T::minus_half(f0[1], s3[1])];
        out[k] = add(f0, s3);
        out[k + 2 * m] = [T::add(fm[0], s0[1]), T::sub(fm[1], s0[0])];
        out[k + m] = [T::sub(fm[0], s0[1]), T::add(fm[1], s0[0])];
    }
}

fn radix4<T: FftSample>(out: &mut [Complex<T>], stride: usize, tw: &[Complex<T>], m: usize, inverse: bool) {
    for k in 0..m {
        let f0 = T::fixdiv(out[k], 4);
        let s0 = T::cmul(T::fixdiv(out[k + m], 4), tw[k * stride]);
        let s1 = T::cmul(T::fixdiv(out[k + 2 * m], 4), tw[2 * k * stride]);
        let s2 = T::cmul(T::fixdiv(out[k + 3 * m], 4), tw[3 * k * stride]);
        let s5 = sub(f0, s1);
        let f0 = add(f0, s1);
        let s3 = add(s0, s2);
        let s4 = sub(s0, s2);
        out[k + 2 * m] = sub(f0, s3);
        out[k] = add(f0, s3);
        let (turn_left, turn_right) =
            ([T::add(s5[0], s4[1]), T::sub(s5[1], s4[0])], [T::sub(s5[0], s4[1]), T::add(s5[1], s4[0])]);
        (out[k + m], out[k + 3 * m]) = if inverse { (turn_right, turn_left) } else { (turn_left, turn_right) };
    }
}

fn radix5<T: FftSample>(out: &mut [Complex<T>], stride: usize, tw: &[Complex<T>], m: usize) {
    let (ya, yb) = (tw[stride * m], tw[stride * 2 * m]);
    let (add1, sub1, neg, mul) = (T::add, T::sub, T::neg, T::smul);
    for u in 0..m {
        let f: [Complex<T>; 5] = core::array::from_fn(|j| T::fixdiv(out[u + j * m], 5));
        let s0 = f[0];
        let s1 = T::cmul(f[1], tw[u * stride]);
        let s2 = T::cmul(f[2], tw[2 * u * stride]);
        let s3 = T::cmul(f[3], tw[3 * u * stride]);
        let s4 = T::cmul(f[4], tw[4 * u * stride]);
        let (s7, s10, s8, s9) = (add(s1, s4), sub(s1, s4), add(s2, s3), sub(s2, s3));
        out[u] = [add1(s0[0], add1(s7[0], s8[0])), add1(s0[1], add1(s7[1], s8[1]))];
        let s5 = [
            add1(add1(s0[0], mul(s7[0], ya[0])), mul(s8[0], yb[0])),
            add1(add1(s0[1], mul(s7[1], ya[0])), mul(s8[1], yb[0])),
        ];
        let s6 = [add1(mul(s10[1], ya[1]), mul(s9[1], yb[1])), sub1(neg(mul(s10[0], ya[1])), mul(s9[0], yb[1]))];
        out[u + m] = sub(s5, s6);
        out[u + 4 * m] = add(s5, s6);
        let s11 = [
            add1(add1(s0[0], mul(s7[0], yb[0])), mul(s8[0], ya[0])),
            add1(add1(s0[1], mul(s7[1], yb[0])), mul(s8[1], ya[0])),
        ];
        let s12 = [add1(neg(mul(s10[1], yb[1])), mul(s9[1], ya[1])), sub1(mul(s10[0], yb[1]), mul(s9[0], ya[1]))];
        out[u + 2 * m] = add(s11, s12);
        out[u + 3 * m] = sub(s11, s12);
    }
}

/// One stage of the mixed-radix FFT (KISS `kf_work`): the sub-FFTs of
/// every `radix`-th input, then the butterflies over them.
fn stage<T: FftSample>(
    out: &mut [Complex<T>],
    input: &[Complex<T>],
    at: usize,
    stride: usize,
    stages: &[(usize, usize)],
    tables: &FftTables<'_, T>,
) {
    let Some((&(radix, m), rest)) = stages.split_first() else { return };
    if m == 1 {
        for (k, o) in out[..radix].iter_mut().enumerate() {
            *o = input[at + k * stride];
        }
    } else {
        for k in 0..radix {
            stage(&mut out[k * m..(k + 1) * m], input, at + k * stride, stride * radix, rest, tables);
        }
    }
    let tw = tables.twiddles;
    match radix {
        2 => radix2(out, stride, tw, m),
        3 => radix3(out, stride, tw, m),
        4 => radix4(out, stride, tw, m, tables.inverse),
        _ => radix5(out, stride, tw, m),
    }
}

/// RFFT of every `FRAME` samples into `FFT / 2 + 1` complex bins (TFLM
/// `Rfft*Apply`, each frame zero-padded to `FFT` in `scratch`). The
/// half-length spectrum is computed into the frame's output bins and split
/// there: step `k` reads and writes only bins `k` and `FFT/2 - k`.
#[inline(never)]
pub fn rfft<T: FftSample, const FRAMES: usize, const FRAME: usize, const FFT: usize>(
    input: &[T],
    output: &mut [T],
    tables: &FftTables<'_, T>,
    scratch: &mut [T],
) {
    let half = FFT / 2;
    let time = &mut scratch[..FFT];
    for f in 0..FRAMES {
        time[..FRAME].copy_from_slice(&input[f * FRAME..(f + 1) * FRAME]);
        time[FRAME..].fill(T::default());
        let (pairs, _) = time.as_chunks::<2>();
        let (bins, _) = output[f * (FFT + 2)..(f + 1) * (FFT + 2)].as_chunks_mut::<2>();
        stage(&mut bins[..half], pairs, 0, 1, tables.stages, tables);
        let dc = T::fixdiv(bins[0], 2);
        bins[0] = [T::add(dc[0], dc[1]), T::default()];
        bins[half] = [T::sub(dc[0], dc[1]), T::default()];
        for k in 1..=half / 2 {
            let fpk = T::fixdiv(bins[k], 2);
            let mirror = bins[half - k];
            let fpnk = T::fixdiv([mirror[0], T::neg(mirror[1])], 2);
            let f1k = add(fpk, fpnk);
            let f2k = sub(fpk, fpnk);
            let tw = T::cmul(f2k, tables.split_twiddles[k - 1]);
            bins[k] = [T::half(T::add(f1k[0], tw[0])), T::half(T::add(f1k[1], tw[1]))];
            bins[half - k] = [T::half(T::sub(f1k[0], tw[0])), T::half(T::sub(tw[1], f1k[1]))];
        }
    }
}

/// IRFFT of every frame of `BINS` complex values (the first `FFT / 2 + 1`
/// read) into `FFT` samples (TFLM `Irfft*Apply`): the bins merged into the
/// half-length spectrum in `scratch`, then its inverse FFT into the output
/// (float divided by `FFT` after, as TFLM's wrapper does).
#[inline(never)]
pub fn irfft<T: FftSample, const FRAMES: usize, const BINS: usize, const FFT: usize>(
    input: &[T],
    output: &mut [T],
    tables: &FftTables<'_, T>,
    scratch: &mut [T],
) {
    let half = FFT / 2;
    for f in 0..FRAMES {
        let (bins, _) = input[f * 2 * BINS..(f + 1) * 2 * BINS].as_chunks::<2>();
        let (merged, _) = scratch[..FFT].as_chunks_mut::<2>();
        merged[0] = T::fixdiv([T::add(bins[0][0], bins[half][0]), T::sub(bins[0][0], bins[half][0])], 2);
        for k in 1..=half / 2 {
            let fk = T::fixdiv(bins[k], 2);
            let fnkc = T::fixdiv([bins[half - k][0], T::neg(bins[half - k][1])], 2);
            let fek = add(fk, fnkc);
            let fok = T::cmul(sub(fk, fnkc), tables.split_twiddles[k - 1]);
            merged[k] = add(fek, fok);
            let low = sub(fek, fok);
            merged[half - k] = [low[0], T::neg(low[1])];
        }
        let frame = &mut output[f * FFT..(f + 1) * FFT];
        let (samples, _) = frame.as_chunks_mut::<2>();
        stage(samples, merged, 0, 1, tables.stages, tables);
        for x in frame.iter_mut() {
            *x = T::inverse_scaled(*x, FFT);
        }
    }
}
