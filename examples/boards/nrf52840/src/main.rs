//! tinyaot's keyword spotter on an nRF52840 with a PDM microphone (the
//! Arduino Nano 33 BLE Sense: microphone clock on P0.26, data on P0.25,
//! power on P0.17). The PDM peripheral fills 20 ms buffers at 16 kHz by
//! DMA; a task of an interrupt-mode executor copies each into a
//! `heapless::spsc::Queue`, and the main loop, in thread mode, runs the
//! audio front end per 20 ms hop and the keyword model every 200 ms
//! (`examples/kws/listener.rs`), logging each word with `defmt`; every 10 s,
//! a per-op profile of one model invoke in core cycles (`invoke_with`, a
//! `tinyaot::Profile` on `tinyaot::DwtCycles`).
//!
//! ```text
//! cd examples/boards/nrf52840
//! cargo run --release          # needs probe-rs and `rustup target add thumbv7em-none-eabihf`
//! ```
#![no_std]
#![no_main]

#[path = "../../../kws/listener.rs"]
mod listener;

mod models {
    tinyaot::include_model!(pub FrontEnd = "../../kws/frontend.tflite");
    tinyaot::include_model!(pub Kws = "../../kws/kws.tflite");
}

use core::sync::atomic::{AtomicU32, Ordering};
use defmt::{info, warn};
use defmt_rtt as _;
use embassy_executor::InterruptExecutor;
use embassy_nrf::gpio::{Level, Output, OutputDrive};
use embassy_nrf::interrupt;
use embassy_nrf::interrupt::{InterruptExt, Priority};
use embassy_nrf::pdm::{self, Frequency, Pdm, Ratio, SamplerState};
use embassy_nrf::{bind_interrupts, peripherals};
use heapless::spsc::{Producer, Queue};
use listener::{Listener, RATE};
use models::{FrontEnd, Kws};
use panic_probe as _;

bind_interrupts!(struct Irqs {
    PDM => pdm::InterruptHandler<peripherals::PDM>;
});

/// Samples per DMA buffer: 20 ms.
const BLOCK: usize = 320;
/// 256 ms of audio: the longest the main loop may fall behind.
const QUEUE: usize = 4096;

/// Runs the microphone task above thread mode, so the main loop's model
/// invokes never delay the DMA buffer swaps.
static MICROPHONE: InterruptExecutor = InterruptExecutor::new();
/// Samples the queue could not take (the main loop fell behind).
static DROPPED: AtomicU32 = AtomicU32::new(0);

#[interrupt]
unsafe fn EGU0_SWI0() {
    // SAFETY: the executor's interrupt, as `InterruptExecutor::start` requires.
    unsafe { MICROPHONE.on_interrupt() }
}

#[embassy_executor::task]
async fn microphone(mut pdm: Pdm<'static>, mut samples: Producer<'static, i16, QUEUE>) {
    let mut buffers = [[0i16; BLOCK]; 2];
    let sampled = pdm
        .run_task_sampler(&mut buffers, |block| {
            for &s in block {
                if samples.enqueue(s).is_err() {
                    DROPPED.fetch_add(1, Ordering::Relaxed);
                }
            }
            SamplerState::Sampled
        })
        .await;
    if let Err(e) = sampled {
        warn!("the microphone stopped: {}", e);
    }
}

#[cortex_m_rt::entry]
fn main() -> ! {
    static mut SAMPLES: Queue<i16, QUEUE> = Queue::new();
    let p = embassy_nrf::init(Default::default());
    // The microphone's supply.
    let _power = Output::new(p.P0_17, Level::High, OutputDrive::HighDrive);
    let mut config = pdm::Config::default();
    // 32 MHz / 25 = 1.28 MHz, decimated by 80: 16 kHz.
    config.frequency = Frequency::_1280k;
    config.ratio = Ratio::Ratio80;
    let pdm = Pdm::new(p.PDM, Irqs, p.P0_26, p.P0_25, config);

    let (producer, mut consumer) = SAMPLES.split();
    interrupt::EGU0_SWI0.set_priority(Priority::P6);
    let spawner = MICROPHONE.start(interrupt::EGU0_SWI0);
    spawner.must_spawn(microphone(pdm, producer));

    let mut front_end = FrontEnd::take().expect("taken once");
    let mut kws = Kws::take().expect("taken once");
    info!(
        "listening: arenas {} + {} bytes, {} bytes of state",
        FrontEnd::ARENA_SIZE,
        Kws::ARENA_SIZE,
        FrontEnd::STATE_SIZE
    );
    let mut listener = Listener::new();
    let (mut busy, mut second) = (embassy_time::Duration::from_ticks(0), 0);
    loop {
        let Some(sample) = consumer.dequeue() else {
            cortex_m::asm::wfi();
            continue;
        };
        let start = embassy_time::Instant::now();
        let heard = listener.push(sample, &mut front_end, &mut kws);
        busy += start.elapsed();
        if let Some(w) = heard {
            info!("{} ({}%) at {} ms", w.word, w.percent, w.at_sample * 1000 / RATE);
        }
        if listener.received() / RATE > second {
            second = listener.received() / RATE;
            if second % 10 == 0 {
                // The share of the core the spotter takes, and lost samples.
                info!(
                    "{} s: {} ms of work a second, {} samples lost",
                    second,
                    busy.as_millis() / second as u64,
                    DROPPED.load(Ordering::Relaxed)
                );
                // Where the model's time goes, in cycles at 64 MHz.
                let mut profile = tinyaot::Profile::<_, { Kws::OPS }>::new(tinyaot::DwtCycles::start());
                kws.invoke_with(&mut profile);
                info!("one invoke, op by op:\n{}", defmt::Display2Format(&profile.table(Kws::PLAN.ops)));
            }
        }
    }
}
