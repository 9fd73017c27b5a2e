//! The int16 fixed-point real FFT of TFLM's signal library (its RFFT runs
//! KISS FFT v130 built with 16-bit fixed point): a complex FFT of half the
//! length over the samples taken as (even, odd) pairs, mixed radix 4, 2, 3
//! and 5, every stage divided by its radix, products rounded to Q15, then
//! the split into the real transform's bins. Same operations in the same
//! order, so the same bits.

/// A complex int16 value (real, imaginary).
pub type Complex16 = [i16; 2];

/// The compile-time tables of one FFT length.
#[derive(Clone, Copy, Debug)]
pub struct Rfft16<'a> {
    /// `(radix, remaining length)` of each stage, from the first.
    pub stages: &'a [(usize, usize)],
    /// The half-length FFT's twiddles, Q15.
    pub twiddles: &'a [Complex16],
    /// The split's twiddles, Q15.
    pub split_twiddles: &'a [Complex16],
}

/// Q15 rounding of a product (KISS `sround`).
#[inline(always)]
fn round_q15(x: i32) -> i16 {
    (x.wrapping_add(1 << 14) >> 15) as i16
}

#[inline(always)]
fn mul(a: Complex16, b: Complex16) -> Complex16 {
    let p = |x: i16, y: i16| x as i32 * y as i32;
    [round_q15(p(a[0], b[0]).wrapping_sub(p(a[1], b[1]))), round_q15(p(a[0], b[1]).wrapping_add(p(a[1], b[0])))]
}

#[inline(always)]
fn scale(a: Complex16, s: i16) -> Complex16 {
    [round_q15(a[0] as i32 * s as i32), round_q15(a[1] as i32 * s as i32)]
}

/// Division by the radix, as a Q15 product by `32767 / radix` (KISS
/// `C_FIXDIV`).
#[inline(always)]
fn divide(a: Complex16, radix: i32) -> Complex16 {
    scale(a, (32767 / radix) as i16)
}

#[inline(always)]
fn add(a: Complex16, b: Complex16) -> Complex16 {
    [(a[0] as i32 + b[0] as i32) as i16, (a[1] as i32 + b[1] as i32) as i16]
}

#[inline(always)]
fn sub(a: Complex16, b: Complex16) -> Complex16 {
    [(a[0] as i32 - b[0] as i32) as i16, (a[1] as i32 - b[1] as i32) as i16]
}

fn radix2(out: &mut [Complex16], stride: usize, tw: &[Complex16], m: usize) {
    for k in 0..m {
        let a = divide(out[k], 2);
        let b = divide(out[m + k], 2);
        let t = mul(b, tw[k * stride]);
        out[m + k] = sub(a, t);
        out[k] = add(a, t);
    }
}

fn radix3(out: &mut [Complex16], stride: usize, tw: &[Complex16], m: usize) {
    let epi3 = tw[stride * m];
    for k in 0..m {
        let f0 = divide(out[k], 3);
        let s1 = mul(divide(out[k + m], 3), tw[k * stride]);
        let s2 = mul(divide(out[k + 2 * m], 3), tw[2 * k * stride]);
        let s3 = add(s1, s2);
        let s0 = scale(sub(s1, s2), epi3[1]);
        let mut fm = [(f0[0] as i32 - (s3[0] >> 1) as i32) as i16, (f0[1] as i32 - (s3[1] >> 1) as i32) as i16];
        out[k] = add(f0, s3);
        out[k + 2 * m] = [(fm[0] as i32 + s0[1] as i32) as i16, (fm[1] as i32 - s0[0] as i32) as i16];
        fm = [(fm[0] as i32 - s0[1] as i32) as i16, (fm[1] as i32 + s0[0] as i32) as i16];
        out[k + m] = fm;
    }
}

fn radix4(out: &mut [Complex16], stride: usize, tw: &[Complex16], m: usize) {
    for k in 0..m {
        let f0 = divide(out[k], 4);
        let s0 = mul(divide(out[k + m], 4), tw[k * stride]);
        let s1 = mul(divide(out[k + 2 * m], 4), tw[2 * k * stride]);
        let s2 = mul(divide(out[k + 3 * m], 4), tw[3 * k * stride]);
        let s5 = sub(f0, s1);
        let f0 = add(f0, s1);
        let s3 = add(s0, s2);
        let s4 = sub(s0, s2);
        out[k + 2 * m] = sub(f0, s3);
        out[k] = add(f0, s3);
        out[k + m] = [(s5[0] as i32 + s4[1] as i32) as i16, (s5[1] as i32 - s4[0] as i32) as i16];
        out[k + 3 * m] = [(s5[0] as i32 - s4[1] as i32) as i16, (s5[1] as i32 + s4[0] as i32) as i16];
    }
}

fn radix5(out: &mut [Complex16], stride: usize, tw: &[Complex16], m: usize) {
    let (ya, yb) = (tw[stride * m], tw[stride * 2 * m]);
    let s = |x: i16, y: i16| round_q15(x as i32 * y as i32) as i32;
    let wrap = |x: i32| x as i16;
    for u in 0..m {
        let f: [Complex16; 5] = core::array::from_fn(|j| divide(out[u + j * m], 5));
        let s0 = f[0];
        let s1 = mul(f[1], tw[u * stride]);
        let s2 = mul(f[2], tw[2 * u * stride]);
        let s3 = mul(f[3], tw[3 * u * stride]);
        let s4 = mul(f[4], tw[4 * u * stride]);
        let (s7, s10, s8, s9) = (add(s1, s4), sub(s1, s4), add(s2, s3), sub(s2, s3));
        out[u] =
            [wrap(s0[0] as i32 + (s7[0] as i32 + s8[0] as i32)), wrap(s0[1] as i32 + (s7[1] as i32 + s8[1] as i32))];
        let s5 = [
            wrap(s0[0] as i32 + s(s7[0], ya[0]) + s(s8[0], yb[0])),
            wrap(s0[1] as i32 + s(s7[1], ya[0]) + s(s8[1], yb[0])),
        ];
        let s6 = [wrap(s(s10[1], ya[1]) + s(s9[1], yb[1])), wrap(-s(s10[0], ya[1]) - s(s9[0], yb[1]))];
        out[u + m] = sub(s5, s6);
        out[u + 4 * m] = add(s5, s6);
        let s11 = [
            wrap(s0[0] as i32 + s(s7[0], yb[0]) + s(s8[0], ya[0])),
            wrap(s0[1] as i32 + s(s7[1], yb[0]) + s(s8[1], ya[0])),
        ];
        let s12 = [wrap(-s(s10[1], yb[1]) + s(s9[1], ya[1])), wrap(s(s10[0], yb[1]) - s(s9[0], ya[1]))];
        out[u + 2 * m] = add(s11, s12);
        out[u + 3 * m] = sub(s11, s12);
    }
}

/// One stage of the mixed-radix FFT (KISS `kf_work`): the sub-FFTs of
/// every `radix`-th input, then the butterflies over them.
fn stage(
    out: &mut [Complex16],
    input: &[Complex16],
    at: usize,
    stride: usize,
    stages: &[(usize, usize)],
    tw: &[Complex16],
) {
    let Some((&(radix, m), rest)) = stages.split_first() else { return };
    if m == 1 {
        for (k, o) in out[..radix].iter_mut().enumerate() {
            *o = input[at + k * stride];
        }
    } else {
        for k in 0..radix {
            stage(&mut out[k * m..(k + 1) * m], input, at + k * stride, stride * radix, rest, tw);
        }
    }
    match radix {
        2 => radix2(out, stride, tw, m),
        3 => radix3(out, stride, tw, m),
        4 => radix4(out, stride, tw, m),
        _ => radix5(out, stride, tw, m),
    }
}

/// RFFT of every `FRAME` int16 samples into `FFT / 2 + 1` complex bins
/// (TFLM `RfftInt16Apply`, each frame zero-padded to `FFT` in `scratch`).
/// The half-length spectrum is computed into the frame's output bins and
/// split there: step `k` reads and writes only bins `k` and `FFT/2 - k`.
#[inline(never)]
pub fn rfft_s16<const FRAMES: usize, const FRAME: usize, const FFT: usize>(
    input: &[i16],
    output: &mut [i16],
    tables: &Rfft16<'_>,
    scratch: &mut [i16],
) {
    let half = FFT / 2;
    let time = &mut scratch[..FFT];
    for f in 0..FRAMES {
        time[..FRAME].copy_from_slice(&input[f * FRAME..(f + 1) * FRAME]);
        time[FRAME..].fill(0);
        let (pairs, _) = time.as_chunks::<2>();
        let (bins, _) = output[f * (FFT + 2)..(f + 1) * (FFT + 2)].as_chunks_mut::<2>();
        stage(&mut bins[..half], pairs, 0, 1, tables.stages, tables.twiddles);
        let spectrum = &mut *bins;
        let dc = divide(spectrum[0], 2);
        spectrum[0] = [(dc[0] as i32 + dc[1] as i32) as i16, 0];
        spectrum[half] = [(dc[0] as i32 - dc[1] as i32) as i16, 0];
        for k in 1..=half / 2 {
            let fpk = divide(spectrum[k], 2);
            let mirror = spectrum[half - k];
            let fpnk = divide([mirror[0], (-(mirror[1] as i32)) as i16], 2);
            let f1k = add(fpk, fpnk);
            let f2k = sub(fpk, fpnk);
            let tw = mul(f2k, tables.split_twiddles[k - 1]);
            spectrum[k] = [((f1k[0] as i32 + tw[0] as i32) >> 1) as i16, ((f1k[1] as i32 + tw[1] as i32) >> 1) as i16];
            spectrum[half - k] =
                [((f1k[0] as i32 - tw[0] as i32) >> 1) as i16, ((tw[1] as i32 - f1k[1] as i32) >> 1) as i16];
        }
    }
}
