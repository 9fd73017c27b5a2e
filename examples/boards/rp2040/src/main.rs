//! tinyaot's keyword spotter on an RP2040 (Raspberry Pi Pico, Cortex-M0+ at
//! 125 MHz). The Pico has no microphone: the samples come from the bundled
//! recording (`examples/kws/wav/words.wav`: yes, no, left, stop, go) in
//! flash, through the audio front end per 20 ms hop and the keyword model
//! every 200 ms (`examples/kws/listener.rs`); each word heard and the time
//! the spotter took for each second of audio are logged with `defmt`. Then
//! one model invoke is profiled op by op (`invoke_with` and a
//! `tinyaot::Profile` on `embassy_time`'s clock), and one runs as a future
//! (`invoke_async`) beside a heartbeat task, which keeps beating during it
//! (it cannot during a plain `invoke()`: the executor is cooperative).
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
    // The RP2040 runs from QSPI flash through a 16 KB cache: the keyword
    // model's weights (15.7 KB, every convolution's read once per output
    // pixel) are copied into SRAM when the model is taken, so its loops read
    // them there instead of missing the cache.
    tinyaot::include_model!(
        pub Kws = "../../kws/kws.tflite",
        regions = [sram(40K)],
        copy_weights = sram(16K)
    );
}

use core::sync::atomic::{AtomicU32, Ordering};
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

/// Heartbeats so far (one a millisecond, from `heartbeat`).
static BEATS: AtomicU32 = AtomicU32::new(0);

/// Another task on the same executor: it runs only when the main task
/// yields.
#[embassy_executor::task]
async fn heartbeat() {
    loop {
        // The only writer, and the M0+ has no atomic read-modify-write.
        BEATS.store(BEATS.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        Timer::after_millis(1).await;
    }
}

#[embassy_executor::main]
async fn main(spawner: Spawner) {
    let _p = embassy_rp::init(Default::default());
    spawner.must_spawn(heartbeat());
    let mut front_end = FrontEnd::take().expect("taken once");
    let mut kws = Kws::take().expect("taken once");
    info!(
        "keyword spotter: arenas {} + {} bytes ({} of them weights copied from flash), {} bytes of state",
        FrontEnd::ARENA_SIZE,
        Kws::ARENA_SIZE,
        Kws::PLAN
            .buffers
            .iter()
            .filter(|b| b.name.starts_with("weights of op"))
            .map(|b| b.size.next_multiple_of(16))
            .sum::<usize>(),
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

        // Where one invoke's time goes, in microseconds (embassy's 1 MHz
        // ticks; the M0+ has no cycle counter).
        let mut profile = tinyaot::Profile::<_, { Kws::OPS }>::new(|| Instant::now().as_ticks());
        kws.invoke_with(&mut profile);
        info!("one invoke, op by op:\n{}", defmt::Display2Format(&profile.table(Kws::PLAN.ops)));

        // The same invoke blocking the executor, then yielding between ops.
        let beats = BEATS.load(Ordering::Relaxed);
        kws.invoke();
        let during_invoke = BEATS.load(Ordering::Relaxed) - beats;
        let beats = BEATS.load(Ordering::Relaxed);
        kws.invoke_async().await;
        let during_async = BEATS.load(Ordering::Relaxed) - beats;
        info!("heartbeats during invoke(): {}, during invoke_async(): {}", during_invoke, during_async);
        Timer::after_secs(5).await;
    }
}
