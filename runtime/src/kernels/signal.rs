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
