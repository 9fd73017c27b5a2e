//! TFLM's signal library (the audio front end's custom operators).

use super::Io;

/// WINDOW (TFLM `ApplyWindow`): every `FRAME` input samples times the
/// window, shifted right by `shift` (arithmetic) and saturated to int16.
#[inline(never)]
pub fn window<const LEN: usize, const FRAME: usize, IO: Io<i16>>(mut io: IO, window: &[i16], shift: i32) {
    let window = &window[..FRAME];
    for i in 0..LEN {
        let raw = (io.get(i) as i32 * window[i % FRAME] as i32) >> shift;
        io.put(i, raw.clamp(i16::MIN as i32, i16::MAX as i32) as i16);
    }
}

/// FFT_AUTO_SCALE (TFLM `FftAutoScale`): the frame times `2^bits`, `bits`
/// the headroom of its largest magnitude, as TFLM finds it: an int16
/// running maximum (-32768 wraps to itself, which a later positive sample
/// replaces), GCC's most significant bit of 0 being 32 (no shift); written
/// to `scale_bits[0]`.
#[inline(never)]
pub fn fft_auto_scale<const LEN: usize>(input: &[i16], output: &mut [i16], scale_bits: &mut [i32]) {
    let input = &input[..LEN];
    let max = input.iter().fold(0i16, |max, &v| {
        if v > max {
            v
        } else if -(v as i32) > max as i32 {
            (v as i32).wrapping_neg() as i16
        } else {
            max
        }
    });
    let msb = match max as u32 {
        0 => 32,
        m => 32 - m.leading_zeros() as i32,
    };
    let bits = (16 - msb - 1).max(0);
    for (o, &v) in output[..LEN].iter_mut().zip(input) {
        *o = (v as i32).wrapping_mul(1 << bits) as i16;
    }
    scale_bits[0] = bits;
}

/// ENERGY (TFLM `SpectrumToEnergy`): `re^2 + im^2` of bins `start..end`
/// of the interleaved int16 spectrum (in 32-bit arithmetic, wrapping as
/// TFLM's does), zero elsewhere.
#[inline(never)]
pub fn energy<const BINS: usize>(spectrum: &[i16], output: &mut [u32], start: usize, end: usize) {
    let output = &mut output[..BINS];
    output.fill(0);
    for (o, bin) in output[start..end].iter_mut().zip(spectrum[2 * start..2 * end].chunks_exact(2)) {
        let (re, im) = (bin[0] as i32, bin[1] as i32);
        *o = (re * re).wrapping_add(im * im) as u32;
    }
}

/// The rounded integer square root of a 32-bit value (TFLM `Sqrt32`): bit
/// by bit from the highest even bit, then one up if the remainder exceeds
/// the root (never past 0xFFFF).
fn sqrt32(mut num: u32) -> u32 {
    if num == 0 {
        return 0;
    }
    let mut res = 0u32;
    let max_bit_number = num.leading_zeros() | 1;
    let mut bit = 1u32 << (31 - max_bit_number);
    for _ in 0..(31 - max_bit_number) / 2 + 1 {
        if num >= res + bit {
            num -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if num > res && res != 0xFFFF {
        res += 1;
    }
    res
}

/// The rounded integer square root of a 64-bit value (TFLM `Sqrt64`),
/// through [`sqrt32`] when the upper word is clear (TFLM's shortcut, off
/// by one near 2^32). Not inlined: unrolled over a filter bank's channels
/// it took 33 KB of an M4's flash, for 1% fewer instructions.
#[inline(never)]
fn sqrt64(mut num: u64) -> u32 {
    if num >> 32 == 0 {
        return sqrt32(num as u32);
    }
    let mut res = 0u64;
    let max_bit_number = num.leading_zeros() | 1;
    let mut bit = 1u64 << (63 - max_bit_number);
    for _ in 0..(63 - max_bit_number) / 2 + 1 {
        if num >= res + bit {
            num -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if num > res && res != 0xFFFF_FFFF {
        res += 1;
    }
    res as u32
}

/// FILTER_BANK_SQUARE_ROOT (TFLM `FilterbankSqrt`): each channel's rounded
/// square root shifted right by `scale_bits[0]` (taken modulo 32, where
/// TFLM's shift would be undefined).
#[inline(never)]
pub fn filter_bank_square_root<const CHANNELS: usize>(input: &[u64], scale_bits: &[i32], output: &mut [u32]) {
    let shift = scale_bits[0] as u32 & 31;
    for (o, &x) in output[..CHANNELS].iter_mut().zip(&input[..CHANNELS]) {
        *o = sqrt64(x) >> shift;
    }
}

/// `log2(x) - floor(log2(x))` in units of 2^-16 (TFLM `Log2FractionPart32`):
/// the bits below the top one, in 16 bits, plus the table's correction
/// interpolated between the segment ends around them.
fn log2_fraction(x: u32, log2x: u32, table: &[u16]) -> u32 {
    let mut frac = (x as i64 - (1i64 << log2x)) as i32;
    if log2x < 16 {
        frac <<= 16 - log2x;
    } else {
        frac >>= log2x - 16;
    }
    let segment = (frac as u32 >> 9) as usize;
    let (c0, c1) = (table[segment] as i32, table[segment + 1] as i32);
    let rel = ((c1 - c0) * (frac - 512 * segment as i32)) >> 16;
    (frac + c0 + rel) as u32
}

/// `ln(x) * out_scale / 2^16` in fixed point (TFLM `Log32`), `x >= 2`.
fn log32(x: u32, out_scale: u32, table: &[u16]) -> u32 {
    let integer = 31 - x.leading_zeros();
    let log2 = (integer << 16).wrapping_add(log2_fraction(x, integer, table));
    let loge = ((45426u64 * log2 as u64 + 32768) >> 16) as u32;
    out_scale.wrapping_mul(loge).wrapping_add(32768) >> 16
}

/// FILTER_BANK_LOG (TFLM `FilterbankLog`): each channel shifted left by
/// `correction_bits`, then its fixed-point log (TFLM `Log32`) saturated to
/// int16, or 0 below 2.
/// `table` is the compiler's 130-entry log2 correction table.
#[inline(never)]
pub fn filter_bank_log<const CHANNELS: usize>(
    input: &[u32],
    output: &mut [i16],
    correction_bits: u32,
    out_scale: u32,
    table: &[u16],
) {
    let table = &table[..130];
    for (o, &x) in output[..CHANNELS].iter_mut().zip(&input[..CHANNELS]) {
        let scaled = x << correction_bits;
        *o = if scaled > 1 { log32(scaled, out_scale, table).min(i16::MAX as u32) as i16 } else { 0 };
    }
}

/// The int16 tables of a FILTER_BANK, `channels + 1` entries each but the
/// weights (the first channel is scratch).
#[derive(Clone, Copy, Debug)]
pub struct FilterBankConfig<'a> {
    /// Weight of each bin into its channel.
    pub weights: &'a [i16],
    /// Weight of each bin into the next channel.
    pub unweights: &'a [i16],
    /// Each channel's first bin.
    pub frequency_starts: &'a [i16],
    /// Each channel's first weight.
    pub weight_starts: &'a [i16],
    /// Each channel's number of bins.
    pub widths: &'a [i16],
}

/// FILTER_BANK (TFLM `FilterbankAccumulateChannels`): channel `i` sums its
/// bins times the weights, plus the previous channel's bins times their
/// unweights, in wrapping 64-bit arithmetic (an int16 weight widened to
/// uint64, as C converts it); output `i` is channel `i + 1`. Bins or
/// weights past the tables' ends (a computed config) count as 0.
#[inline(never)]
pub fn filter_bank<const CHANNELS: usize>(spectrum: &[u32], config: &FilterBankConfig<'_>, output: &mut [u64]) {
    let at = |table: &[i16], i: i64| usize::try_from(i).ok().and_then(|i| table.get(i)).map_or(0, |&v| v as i64 as u64);
    let (mut weighted, mut unweighted) = (0u64, 0u64);
    for i in 0..=CHANNELS {
        let freq = config.frequency_starts[i] as i64;
        let start = config.weight_starts[i] as i64;
        for j in 0..config.widths[i].max(0) as i64 {
            let x = usize::try_from(freq + j).ok().and_then(|k| spectrum.get(k)).map_or(0, |&v| v as u64);
            weighted = weighted.wrapping_add(at(config.weights, start + j).wrapping_mul(x));
            unweighted = unweighted.wrapping_add(at(config.unweights, start + j).wrapping_mul(x));
        }
        if i > 0 {
            output[i - 1] = weighted;
        }
        weighted = unweighted;
        unweighted = 0;
    }
}

/// PCAN's gain for a noise estimate (TFLM `WideDynamicFunction`): the table
/// entry itself up to 2, else a quadratic in the 10 bits below the top
/// one, from the table's four entries per octave; C's conversions kept.
fn wide_dynamic(x: u32, table: &[i16]) -> i16 {
    let at = |i: i64| usize::try_from(i).ok().and_then(|i| table.get(i)).map_or(0, |&v| v);
    if x <= 2 {
        return at(x as i64);
    }
    let interval = 32 - x.leading_zeros() as i64;
    let base = 4 * interval - 6;
    let frac = (if interval < 11 { x << (11 - interval) } else { x >> (interval - 11) } & 0x3FF) as i32;
    let mut result = (at(base + 2) as i32 * frac) >> 5;
    result = result.wrapping_add(((at(base + 1) as i32 as u32) << 5) as i32);
    result = result.wrapping_mul(frac);
    result = (result.wrapping_add(1 << 14) >> 15).wrapping_add(at(base) as i32);
    result as i16
}

/// PCAN (TFLM `ApplyPcanAutoGainControlFixed`, SNR with 12 fractional
/// bits, output with 6).
#[inline(never)]
pub fn pcan<const CHANNELS: usize>(input: &[u32], noise: &[u32], gains: &[i16], snr_shift: u32, output: &mut [u32]) {
    for ((o, &x), &n) in output[..CHANNELS].iter_mut().zip(&input[..CHANNELS]).zip(&noise[..CHANNELS]) {
        let gain = wide_dynamic(n, gains) as i32 as u32;
        let snr = ((x as u64 * gain as u64) >> snr_shift) as u32;
        *o = if snr < 2 << 12 { snr.wrapping_mul(snr) >> 20 } else { (snr >> 6).wrapping_sub(1 << 6) };
    }
}

/// The constants of a FILTER_BANK_SPECTRAL_SUBTRACTION.
#[derive(Clone, Copy, Debug)]
pub struct SpectralSubtraction {
    /// (smoothing, one minus smoothing) of even and of odd channels.
    pub smoothing: [(u32, u32); 2],
    /// Whether the estimate is kept no higher than the signal.
    pub clamping: bool,
    /// The floor, as a fraction of the signal.
    pub min_signal_remaining: u32,
    /// The signal's headroom shift in the smoothing filter.
    pub smoothing_bits: u32,
    /// The fixed-point shift of the smoothing and floor fractions.
    pub spectral_subtraction_bits: u32,
}

/// FILTER_BANK_SPECTRAL_SUBTRACTION (TFLM `FilterbankSpectralSubtraction`):
/// `state` is the noise estimate carried between invokes, smoothed toward
/// each channel, subtracted from it down to the floor; `noise` gets a copy.
#[inline(never)]
pub fn spectral_subtraction<const CHANNELS: usize>(
    input: &[u32],
    output: &mut [u32],
    noise: &mut [u32],
    state: &mut [u32],
    c: &SpectralSubtraction,
) {
    let state = &mut state[..CHANNELS];
    for (i, ((o, &x), estimate)) in
        output[..CHANNELS].iter_mut().zip(&input[..CHANNELS]).zip(state.iter_mut()).enumerate()
    {
        let (smoothing, one_minus) = c.smoothing[i & 1];
        let scaled = x << c.smoothing_bits;
        *estimate = ((scaled as u64 * smoothing as u64).wrapping_add(*estimate as u64 * one_minus as u64)
            >> c.spectral_subtraction_bits) as u32;
        let mut subtrahend = *estimate;
        if subtrahend > scaled {
            subtrahend = scaled;
            if c.clamping {
                *estimate = subtrahend;
            }
        }
        let floor = ((x as u64 * c.min_signal_remaining as u64) >> c.spectral_subtraction_bits) as u32;
        let subtracted = (scaled - subtrahend) >> c.smoothing_bits;
        *o = subtracted.max(floor);
    }
    noise[..CHANNELS].copy_from_slice(state);
}

/// DELAY (TFLM `Delay`): each of the `ROWS` rows of `FRAME` samples comes
/// out `DELAY` samples late; `state` holds every row's last `DELAY`
/// samples (zero after reset, TFLM's preloaded zeros).
#[inline(never)]
pub fn delay<const ROWS: usize, const FRAME: usize, const DELAY: usize>(
    input: &[i16],
    output: &mut [i16],
    state: &mut [i16],
) {
    for row in 0..ROWS {
        let x = &input[row * FRAME..][..FRAME];
        let y = &mut output[row * FRAME..][..FRAME];
        let s = &mut state[row * DELAY..][..DELAY];
        for (j, out) in y.iter_mut().enumerate() {
            *out = if j < DELAY { s[j] } else { x[j - DELAY] };
        }
        if DELAY <= FRAME {
            s.copy_from_slice(&x[FRAME - DELAY..]);
        } else {
            s.copy_within(FRAME.., 0);
            s[DELAY - FRAME..].copy_from_slice(x);
        }
    }
}

/// FRAMER's figures: frames of `size` samples every `step` samples, the
/// per-row buffer holding `capacity`, `prefill` zeros at the start.
pub struct Framer {
    /// Samples per frame.
    pub size: usize,
    /// Samples between frame starts.
    pub step: usize,
    /// Samples each row's buffer holds (`size` rounded up to `step`).
    pub capacity: usize,
    /// Zeros the buffer starts with (`size - step` with TFLM's `prefill`).
    pub prefill: usize,
}

/// FRAMER (TFLM `Framer`): every row's samples, `step` at a time, into a
/// buffer; each time it holds a whole frame the frame is output and `step`
/// samples dropped. A frame slot with no whole frame is left as it was and
/// clears `valid`. `state` is `[count, row buffers...]`: the samples held
/// beyond the prefill (the same for every row), then `capacity` samples
/// per row; all zero after reset.
#[inline(never)]
pub fn framer<const ROWS: usize, const INNER: usize>(
    input: &[i16],
    output: &mut [i16],
    valid: &mut [u8],
    state: &mut [i16],
    f: &Framer,
) {
    let (count, buffers) = state.split_at_mut(1);
    let mut held = count[0] as u16 as usize + f.prefill;
    let frames = INNER / f.step;
    let mut all = true;
    for frame in 0..frames {
        for row in 0..ROWS {
            let buffer = &mut buffers[row * f.capacity..][..f.capacity];
            buffer[held..held + f.step].copy_from_slice(&input[(row * frames + frame) * f.step..][..f.step]);
        }
        held += f.step;
        if held >= f.size {
            for row in 0..ROWS {
                let buffer = &mut buffers[row * f.capacity..][..f.capacity];
                output[(row * frames + frame) * f.size..][..f.size].copy_from_slice(&buffer[..f.size]);
                buffer.copy_within(f.step..held, 0);
            }
            held -= f.step;
        } else {
            all = false;
        }
    }
    count[0] = (held - f.prefill) as u16 as i16;
    valid[0] = u8::from(all);
}

/// STACKER's figures.
pub struct Stacker {
    /// Samples per input frame (`num_channels`).
    pub channels: usize,
    /// Frames of left context (the first frame repeated at the start).
    pub left: usize,
    /// Samples output: `channels * (left + right + 1)`.
    pub size: usize,
    /// Samples dropped after an output: `channels * stacker_step`.
    pub step: usize,
}

/// STACKER (TFLM `Stacker`): frames of `channels` samples appended to a
/// buffer (the first one `left` more times); when it holds `size` samples
/// they are output (`valid` set) and `step` dropped, else the output is
/// left as it was (`valid` cleared). `state` is `[count, started,
/// buffer...]`, all zero after reset.
#[inline(never)]
pub fn stacker(input: &[i16], output: &mut [i16], valid: &mut [u8], state: &mut [i16], s: &Stacker) {
    let (head, buffer) = state.split_at_mut(2);
    let mut held = head[0] as u16 as usize;
    buffer[held..held + s.channels].copy_from_slice(&input[..s.channels]);
    held += s.channels;
    if head[1] == 0 {
        for _ in 0..s.left {
            buffer.copy_within(held - s.channels..held, held);
            held += s.channels;
        }
        head[1] = 1;
    }
    if held >= s.size {
        output[..s.size].copy_from_slice(&buffer[..s.size]);
        buffer.copy_within(s.step..held, 0);
        held -= s.step;
        valid[0] = 1;
    } else {
        valid[0] = 0;
    }
    head[0] = held as u16 as i16;
}

/// A sample type OVERLAP_ADD sums: int16 saturates, float32 does not.
pub trait OverlapSample: Copy + Default {
    /// `self + other` as TFLM's `OverlapAdd` adds them.
    fn add(self, other: Self) -> Self;
}

impl OverlapSample for i16 {
    #[inline(always)]
    fn add(self, other: i16) -> i16 {
        self.saturating_add(other)
    }
}

impl OverlapSample for f32 {
    #[inline(always)]
    fn add(self, other: f32) -> f32 {
        self + other
    }
}

/// OVERLAP_ADD (TFLM `OverlapAdd`): each of the `ROWS` rows' `FRAMES`
/// frames of `SIZE` samples added into the row's buffer (`state`, `SIZE`
/// samples per row, zero after reset); the buffer's first `STEP` samples
/// are output and it shifts by `STEP`, zeros coming in.
#[inline(never)]
pub fn overlap_add<T: OverlapSample, const ROWS: usize, const FRAMES: usize, const SIZE: usize, const STEP: usize>(
    input: &[T],
    output: &mut [T],
    state: &mut [T],
) {
    for row in 0..ROWS {
        let buffer = &mut state[row * SIZE..][..SIZE];
        for frame in 0..FRAMES {
            let x = &input[(row * FRAMES + frame) * SIZE..][..SIZE];
            for (b, &v) in buffer.iter_mut().zip(x) {
                *b = v.add(*b);
            }
            output[(row * FRAMES + frame) * STEP..][..STEP].copy_from_slice(&buffer[..STEP]);
            buffer.copy_within(STEP.., 0);
            buffer[SIZE - STEP..].fill(T::default());
        }
    }
}
