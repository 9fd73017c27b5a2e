//! Keyword spotting from raw audio on the host: an audio front end built
//! from TFLM's signal-library ops and a trained int8 DS-CNN, both compiled
//! at build time by `include_model!`. Reads a 16 kHz WAV, prints the word
//! it hears, its score and both arena plans.
//!
//! ```text
//! cargo run -p tinyaot-examples --example kws               # the bundled recording
//! cargo run -p tinyaot-examples --example kws -- some.wav   # any 16 kHz mono 16-bit WAV
//! ```
//!
//! The models, the clips and the reference vectors are the project's own
//! (`examples/kws/make_kws.py`: speech synthesized by espeak-ng, the model
//! trained on it; `examples/kws/accuracy.txt` its accuracy on held-out voices).

use std::process::ExitCode;

// One 30 ms frame (480 samples) in, 40 int8 log-mel features out; its noise
// estimate is state carried from invoke to invoke, as audio streams.
tinyaot::include_model!(FrontEnd = "kws/frontend.tflite");
// One second of features (49 frames x 40) in, 12 int8 scores out.
tinyaot::include_model!(Kws = "kws/kws.tflite", arena_limit = "24K");

const LABELS: [&str; 12] =
    ["silence", "unknown", "yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go"];
const RATE: u32 = 16_000;
const WINDOW: usize = 480;
const HOP: usize = 320;
const FRAMES: usize = 49;
const CHANNELS: usize = 40;
/// The model runs every `STEP` frames (100 ms) over a longer recording.
const STEP: usize = 5;
/// A keyword is reported when its probability reaches this.
const THRESHOLD: f32 = 0.6;
/// Recordings by synthesized voices the model never heard in training, and
/// the words in each: yes, no, left, stop, go in one, one word in the others.
const BUNDLED: [(&str, &[u8], &[&str]); 4] = [
    ("words", include_bytes!("kws/wav/words.wav"), &["yes", "no", "left", "stop", "go"]),
    ("up", include_bytes!("kws/wav/up.wav"), &["up"]),
    ("right", include_bytes!("kws/wav/right.wav"), &["right"]),
    ("off", include_bytes!("kws/wav/off.wav"), &["off"]),
];

/// What the model heard in one window of one second.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Heard {
    /// Index into `LABELS`.
    label: usize,
    /// Its probability (the dequantized int8 score).
    probability: f32,
    /// Start of the window, in seconds.
    at: f32,
}

fn main() -> ExitCode {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    let mut front_end = FrontEnd::take().expect("the front end's arena is taken once");
    let mut kws = Kws::take().expect("the model's arena is taken once");
    let clips: Vec<(String, Result<Vec<i16>, String>)> = if paths.is_empty() {
        BUNDLED.iter().map(|(name, bytes, _)| (format!("examples/kws/wav/{name}.wav"), read_wav(bytes))).collect()
    } else {
        paths
            .iter()
            .map(|p| {
                (p.clone(), std::fs::read(p).map_err(|e| format!("cannot read it: {e}")).and_then(|b| read_wav(&b)))
            })
            .collect()
    };
    let mut failed = false;
    for (name, samples) in clips {
        match samples {
            Ok(samples) => {
                let heard = listen(&mut front_end, &mut kws, &samples);
                let secs = samples.len() as f32 / RATE as f32;
                let words = keywords(&heard);
                let said: Vec<String> = if words.len() > 1 {
                    words
                        .iter()
                        .map(|h| format!("{} (score {:.2}) at {:.1} s", LABELS[h.label], h.probability, h.at))
                        .collect()
                } else {
                    let best = best_of(&heard);
                    vec![format!("{} (score {:.2})", LABELS[best.label], best.probability)]
                };
                println!("{name} ({secs:.2} s): {}", said.join(", "));
            }
            Err(e) => {
                eprintln!("{name}: {e}");
                failed = true;
            }
        }
    }
    print_plan("front end", FrontEnd::ARENA_SIZE, &FrontEnd::PLAN, FrontEnd::STATE_SIZE);
    print_plan("keyword model", Kws::ARENA_SIZE, &Kws::PLAN, 0);
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

/// Runs the front end over the whole recording (from reset, one invoke per
/// 20 ms hop; a recording shorter than one second is padded with silence
/// on both sides) and the model over every second of features, `STEP`
/// frames apart. Returns what each window heard.
fn listen(front_end: &mut FrontEnd, kws: &mut Kws, samples: &[i16]) -> Vec<Heard> {
    let q = Kws::OUTPUT_QUANT.expect("an int8 model has quantized outputs");
    let (_, scores) = scores(front_end, kws, samples);
    scores
        .iter()
        .enumerate()
        .map(|(k, scores)| {
            let label = (0..LABELS.len()).max_by_key(|&i| scores[i]).unwrap_or(0);
            let probability = q.scale * (i32::from(scores[label]) - q.zero_point) as f32;
            Heard { label, probability, at: (k * STEP * HOP) as f32 / RATE as f32 }
        })
        .collect()
}

/// The front end's features and the model's int8 scores on every second of
/// them, `STEP` frames apart.
fn scores(front_end: &mut FrontEnd, kws: &mut Kws, samples: &[i16]) -> (Vec<i8>, Vec<[i8; 12]>) {
    let features = features(front_end, samples);
    let frames = features.len() / CHANNELS;
    let scores = (0..=frames.saturating_sub(FRAMES))
        .step_by(STEP)
        .map(|start| classify(kws, &features[start * CHANNELS..(start + FRAMES) * CHANNELS]))
        .collect();
    (features, scores)
}

/// The front end's int8 features, 40 per 20 ms hop, from reset.
fn features(front_end: &mut FrontEnd, samples: &[i16]) -> Vec<i8> {
    let one_second = WINDOW + (FRAMES - 1) * HOP;
    let mut audio = samples.to_vec();
    if audio.len() < one_second {
        let pad = one_second - audio.len();
        audio.splice(0..0, std::iter::repeat_n(0, pad / 2));
        audio.resize(one_second, 0);
    }
    front_end.reset();
    let mut features = Vec::new();
    for frame in audio.windows(WINDOW).step_by(HOP) {
        front_end.input_mut().copy_from_slice(frame);
        front_end.invoke();
        features.extend_from_slice(front_end.output());
    }
    features
}

/// The model's int8 scores on one second of features. The model's input
/// quantization is the front end's output quantization: the bytes are
/// copied as they are.
fn classify(kws: &mut Kws, window: &[i8]) -> [i8; 12] {
    kws.input_mut().copy_from_slice(window);
    kws.invoke();
    *kws.output()
}

/// Keyword detections: windows whose top class is a word, at least
/// `THRESHOLD` sure, the best of each run of the same word.
fn keywords(heard: &[Heard]) -> Vec<Heard> {
    let mut found: Vec<Heard> = Vec::new();
    for &h in heard.iter().filter(|h| h.label >= 2 && h.probability >= THRESHOLD) {
        match found.last_mut() {
            Some(last) if last.label == h.label && h.at - last.at <= 1.0 => {
                if h.probability > last.probability {
                    *last = h;
                }
            }
            _ => found.push(h),
        }
    }
    found
}

/// The strongest keyword, or the strongest window when none was heard.
fn best_of(heard: &[Heard]) -> Heard {
    let by_score = |a: &&Heard, b: &&Heard| a.probability.total_cmp(&b.probability);
    keywords(heard).iter().max_by(by_score).or_else(|| heard.iter().max_by(by_score)).copied().unwrap_or(Heard {
        label: 0,
        probability: 0.0,
        at: 0.0,
    })
}

/// 16 kHz 16-bit PCM samples of a WAV file (several channels are averaged).
fn read_wav(bytes: &[u8]) -> Result<Vec<i16>, String> {
    let u16_at = |b: &[u8], i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
    let u32_at = |b: &[u8], i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return Err("not a WAV file (no RIFF/WAVE header)".into());
    }
    let (mut format, mut data, mut at) = (None, None, 12);
    while at + 8 <= bytes.len() {
        let size = u32_at(bytes, at + 4) as usize;
        let body = &bytes[at + 8..(at + 8).saturating_add(size).min(bytes.len())];
        match &bytes[at..at + 4] {
            b"fmt " if body.len() >= 16 => format = Some(body),
            b"data" => data = Some(body),
            _ => {}
        }
        at = at.saturating_add(8 + size + size % 2);
    }
    let format = format.ok_or("the WAV file has no fmt chunk")?;
    let data = data.ok_or("the WAV file has no data chunk")?;
    let (tag, channels, rate, bits) = (u16_at(format, 0), u16_at(format, 2), u32_at(format, 4), u16_at(format, 14));
    if !(tag == 1 || tag == 0xFFFE) || bits != 16 || rate != RATE || channels == 0 {
        return Err(format!(
            "{rate} Hz, {bits}-bit, format {tag}: the models want 16 kHz 16-bit PCM (e.g. `sox in.wav -r 16000 -b 16 -c 1 out.wav`)"
        ));
    }
    let channels = usize::from(channels);
    Ok(data
        .chunks_exact(2 * channels)
        .map(|frame| {
            let sum: i32 = frame.chunks_exact(2).map(|s| i32::from(i16::from_le_bytes([s[0], s[1]]))).sum();
            (sum / channels as i32) as i16
        })
        .collect())
}

fn print_plan(what: &str, size: usize, plan: &tinyaot::MemoryPlan, state: usize) {
    println!(
        "\n{what}: arena {size} bytes (lower bound {}, TFLM greedy {}){}",
        plan.lower_bound,
        plan.tflm_greedy,
        if state > 0 { format!(", {state} bytes of state") } else { String::new() }
    );
    println!("  {:<32} {:>7} {:>7}  ops", "buffer", "offset", "bytes");
    for b in plan.buffers {
        // Converter names join every fused op's name with `;`: the first says enough.
        let name: String = b.name.split(';').next().unwrap_or("").chars().take(32).collect();
        println!("  {name:<32} {:>7} {:>7}  {}..={}", b.offset, b.size, b.first_op, b.last_op);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each bundled recording: the front end's features over every hop and
    /// the model's scores on every window byte for byte as TFLM's
    /// interpreter computed them (make_kws.py), and its words heard in
    /// order.
    #[test]
    fn bundled_recordings_match_tflm_and_are_heard_right() {
        let mut front_arena = Box::new(tinyaot::Arena::<{ FrontEnd::ARENA_SIZE }>::new());
        let mut kws_arena = Box::new(tinyaot::Arena::<{ Kws::ARENA_SIZE }>::new());
        let mut front_end = FrontEnd::new(&mut front_arena);
        let mut kws = Kws::new(&mut kws_arena);
        for (name, bytes, words) in BUNDLED {
            let samples = read_wav(bytes).unwrap();
            let (features, scores) = scores(&mut front_end, &mut kws, &samples);
            let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/kws/reference/");
            let expected = std::fs::read(format!("{dir}{name}.features.bin")).unwrap();
            assert_eq!(features.len(), expected.len(), "{name}: frames");
            let got: Vec<u8> = features.iter().map(|&v| v as u8).collect();
            if let Some(k) = got.iter().zip(&expected).position(|(a, b)| a != b) {
                panic!("{name}: front-end feature {} of frame {} differs from TFLM's", k % CHANNELS, k / CHANNELS);
            }
            let expected = std::fs::read(format!("{dir}{name}.scores.bin")).unwrap();
            let got: Vec<u8> = scores.iter().flatten().map(|&v| v as u8).collect();
            assert_eq!(got, expected, "{name}: scores differ from TFLM's");
            let heard = listen(&mut front_end, &mut kws, &samples);
            let heard: Vec<&str> = keywords(&heard).iter().map(|h| LABELS[h.label]).collect();
            assert_eq!(heard, words, "{name}");
        }
    }

    #[test]
    fn wav_reader_rejects_what_the_models_cannot_take() {
        assert!(read_wav(b"not a wav").unwrap_err().contains("RIFF"));
        let mut wav = BUNDLED[0].1.to_vec();
        wav[24..28].copy_from_slice(&44_100u32.to_le_bytes());
        assert!(read_wav(&wav).unwrap_err().contains("44100 Hz"));
    }

    #[test]
    fn detections_merge_runs_of_one_word() {
        let h = |label, probability, at| Heard { label, probability, at };
        let heard = [h(2, 0.7, 0.0), h(2, 0.9, 0.1), h(0, 0.99, 0.2), h(3, 0.5, 0.3), h(3, 0.8, 1.5)];
        assert_eq!(keywords(&heard), vec![h(2, 0.9, 0.1), h(3, 0.8, 1.5)]);
        assert_eq!(best_of(&heard), h(2, 0.9, 0.1));
        assert_eq!(best_of(&[h(1, 0.4, 0.0), h(0, 0.7, 0.1)]), h(0, 0.7, 0.1));
    }
}
