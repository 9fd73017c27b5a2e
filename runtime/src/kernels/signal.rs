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
