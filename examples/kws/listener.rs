//! The streaming half of the keyword spotter, for firmware (`no_std`,
//! `heapless`): samples in, words out. Shared by `examples/firmware`
//! (`src/bin/kws.rs`) and the board examples (`examples/boards/*`), each of
//! which includes it with `#[path]` beside its own
//! `include_model!`s of `FrontEnd` (`kws/frontend.tflite`) and `Kws`
//! (`kws/kws.tflite`) in `crate::models`.

use crate::models::{FrontEnd, Kws};

/// The model's classes, in its output order.
pub const LABELS: [&str; 12] =
    ["silence", "unknown", "yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go"];
/// Samples a second.
pub const RATE: usize = 16_000;
const WINDOW: usize = 480;
const HOP: usize = 320;
const FRAMES: usize = 49;
const CHANNELS: usize = 40;
/// The model runs every `STEP` hops (200 ms: the host example's 100 ms
/// would double the work for little).
pub const STEP: usize = 10;
/// A word is reported at this probability or above.
pub const THRESHOLD: f32 = 0.6;

/// A word heard.
#[derive(Clone, Copy, Debug)]
pub struct Word {
    /// The word (one of `LABELS`, never silence or unknown).
    pub word: &'static str,
    /// Its probability, in percent.
    pub percent: u32,
    /// Samples received when it was heard.
    pub at_sample: usize,
}

/// The state between samples: the newest 30 ms of audio, the last second
/// of features, and what was last heard.
pub struct Listener {
    window: [i16; WINDOW],
    filled: usize,
    history: heapless::Deque<[i8; CHANNELS], FRAMES>,
    received: usize,
    hops: usize,
    /// The word last above the threshold, and the hop it was.
    last: Option<(usize, usize)>,
    threshold: i32,
}

impl Default for Listener {
    fn default() -> Self {
        Self::new()
    }
}

impl Listener {
    /// A listener that has heard nothing (run the front end from `reset()`
    /// with it).
    pub fn new() -> Self {
        let q = Kws::OUTPUT_QUANT.expect("an int8 model has quantized outputs");
        Listener {
            window: [0; WINDOW],
            filled: 0,
            history: heapless::Deque::new(),
            received: 0,
            hops: 0,
            last: None,
            threshold: (THRESHOLD / q.scale) as i32 + q.zero_point,
        }
    }

    /// Samples received so far.
    pub fn received(&self) -> usize {
        self.received
    }

    /// Takes one sample: every 20 ms the front end runs over the last 30 ms,
    /// and every `STEP` hops the model over the last second of features.
    /// Returns a word when one is heard (once per utterance: the same word
    /// within a second is the same utterance).
    pub fn push(&mut self, sample: i16, front_end: &mut FrontEnd, kws: &mut Kws) -> Option<Word> {
        self.window[self.filled] = sample;
        self.filled += 1;
        self.received += 1;
        if self.filled < WINDOW {
            return None;
        }
        front_end.input_mut().copy_from_slice(&self.window);
        front_end.invoke();
        // The next frame starts one hop later: keep its first 10 ms.
        self.window.copy_within(HOP.., 0);
        self.filled = WINDOW - HOP;
        if self.history.is_full() {
            self.history.pop_front();
        }
        let _ = self.history.push_back(*front_end.output());
        self.hops += 1;
        if self.hops < FRAMES || (self.hops - FRAMES) % STEP != 0 {
            return None;
        }
        for (row, features) in kws.input_mut().chunks_exact_mut(CHANNELS).zip(self.history.iter()) {
            row.copy_from_slice(features);
        }
        kws.invoke();
        let scores = kws.output();
        let label = (0..LABELS.len()).max_by_key(|&i| scores[i]).unwrap_or(0);
        if label < 2 || i32::from(scores[label]) < self.threshold {
            return None;
        }
        let new = self.last.is_none_or(|(word, at)| word != label || self.hops - at > FRAMES);
        self.last = Some((label, self.hops));
        let q = Kws::OUTPUT_QUANT.expect("an int8 model has quantized outputs");
        let percent = (q.scale * (i32::from(scores[label]) - q.zero_point) as f32 * 100.0) as u32;
        new.then_some(Word { word: LABELS[label], percent, at_sample: self.received })
    }
}
