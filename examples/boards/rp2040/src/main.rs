//! tinyaot's keyword spotter on an RP2040 (Raspberry Pi Pico, Cortex-M0+ at
//! 125 MHz). The Pico has no microphone: the samples come from the bundled
//! recording (`examples/kws/wav/words.wav`: yes, no, left, stop, go) in
//! flash, through the audio front end per 20 ms hop and the keyword model
//! every 200 ms (`examples/kws/listener.rs`); each word heard and the time
//! the spotter took for each second of audio are logged with `defmt`.
//!
//! ```text
//! cd examples/boards/rp2040
//! cargo run --release          # needs probe-rs and `rustup target add thumbv6m-none-eabi`
//! ```
#![no_std]
#![no_main]

#[path = "../../../kws/listener.rs"]
mod listener;

mod models {
    tinyaot::include_model!(pub FrontEnd = "../../kws/frontend.tflite");
    tinyaot::include_model!(pub Kws = "../../kws/kws.tflite");
}

use defmt::info;
use defmt_rtt as _;
use embassy_executor::Spawner;
use embassy_time::{Instant, Timer};
use listener::{Listener, RATE};
use models::{FrontEnd, Kws};
use panic_probe as _;

/// A 16 kHz mono 16-bit WAV with the canonical 44-byte header.
const RECORDING: &[u8] = include_bytes!("../../../kws/wav/words.wav");
const WAV_HEADER: usize = 44;

#[embassy_executor::main]
async fn main(_spawner: Spawner) {
    let _p = embassy_rp::init(Default::default());
    let mut front_end = FrontEnd::take().expect("taken once");
    let mut kws = Kws::take().expect("taken once");
    info!(
        "keyword spotter: arenas {} + {} bytes, {} bytes of state",
        FrontEnd::ARENA_SIZE,
        Kws::ARENA_SIZE,
        FrontEnd::STATE_SIZE
    );
    loop {
        front_end.reset();
        let mut listener = Listener::new();
        let start = Instant::now();
        for sample in RECORDING[WAV_HEADER..].chunks_exact(2) {
            if let Some(w) = listener.push(i16::from_le_bytes([sample[0], sample[1]]), &mut front_end, &mut kws) {
                info!("{} ({}%) at {} ms", w.word, w.percent, w.at_sample * 1000 / RATE);
            }
        }
        let audio_ms = (listener.received() * 1000 / RATE) as u64;
        let took = start.elapsed().as_millis();
        info!("{} ms of audio in {} ms ({} ms a second)", audio_ms, took, took * 1000 / audio_ms.max(1));
        Timer::after_secs(5).await;
    }
}
