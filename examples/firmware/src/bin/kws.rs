//! The keyword spotter of `examples/kws.rs` as a firmware runs it, on the
//! Cortex-M4F under QEMU (`mps2-an386`): a timer interrupt stands in for the
//! microphone's DMA and hands 1 ms blocks of 16 kHz samples (the bundled
//! recording, `examples/kws/wav/words.wav`) through a
//! `heapless::spsc::Queue` to the main loop, which runs the audio front end
//! once per 20 ms hop and the keyword model every `STEP` hops over the last
//! second of features, and prints each word it hears; at the end, a per-op
//! profile of one model invoke (`invoke_with` and `tinyaot::Profile`).
//!
//! ```text
//! cd examples/firmware
//! RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 /usr/bin/cargo build --release --features kws --bin kws
//! qemu-system-arm -M mps2-an386 -nographic -monitor none -serial none \
//!     -semihosting-config enable=on,target=native -icount shift=4,sleep=off \
//!     -kernel target/thumbv7em-none-eabihf/release/kws
//! ```
//!
//! `-icount shift=4` runs the core at one instruction per 16 ns of the
//! board's time (62.5 million a second, a 64 MHz part's order): the timer
//! then paces the audio against the work, and a main loop that fell behind
//! would lose blocks (it says how many).
#![no_std]
#![no_main]

#[path = "../arch.rs"]
mod arch;

use arch::hprintln;
use core::cell::RefCell;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use cortex_m::peripheral::syst::SystClkSource;
use critical_section::Mutex;
use heapless::spsc::{Producer, Queue};

#[path = "../../../kws/listener.rs"]
mod listener;

mod models {
    #![allow(clippy::all)]
    tinyaot::include_model!(pub FrontEnd = "../kws/frontend.tflite");
    tinyaot::include_model!(pub Kws = "../kws/kws.tflite", arena_limit = "24K");
}
use listener::{Listener, RATE};
use models::{FrontEnd, Kws};

/// The recording: yes, no, left, stop, go by synthesized voices the model never
/// heard in training, as a 16 kHz mono 16-bit WAV.
const RECORDING: &[u8] = include_bytes!("../../../kws/wav/words.wav");
/// The canonical 44-byte header of the bundled WAV.
const WAV_HEADER: usize = 44;
/// Samples per timer interrupt: 1 ms, a DMA half-buffer's worth.
const BLOCK: usize = 16;
/// The board's SysTick clock (QEMU's mps2 boards: 25 MHz).
const SYSTICK_HZ: u32 = 25_000_000;
/// 256 ms of audio (8 KB): the longest the main loop may fall behind (one
/// model invoke is about 90 ms at 62.5 million instructions a second).
const QUEUE: usize = 4096;

static SAMPLES: Mutex<RefCell<Option<Producer<'static, i16, QUEUE>>>> = Mutex::new(RefCell::new(None));
static DROPPED: AtomicU32 = AtomicU32::new(0);
static FINISHED: AtomicBool = AtomicBool::new(false);

/// Sample `n` of the recording; `None` past its end.
fn sample(n: usize) -> Option<i16> {
    let at = WAV_HEADER + 2 * n;
    RECORDING.get(at..at + 2).map(|s| i16::from_le_bytes([s[0], s[1]]))
}

/// The "DMA": one block of samples into the queue per tick. A block the
/// queue cannot take is lost, as on hardware, and counted.
#[cortex_m_rt::exception]
fn SysTick() {
    static mut NEXT: usize = 0;
    critical_section::with(|cs| {
        let mut producer = SAMPLES.borrow_ref_mut(cs);
        let Some(producer) = producer.as_mut() else { return };
        if FINISHED.load(Ordering::Relaxed) {
            return;
        }
        let room = producer.capacity() - producer.len();
        for _ in 0..BLOCK {
            let Some(s) = sample(*NEXT) else {
                FINISHED.store(true, Ordering::Relaxed);
                return;
            };
            *NEXT += 1;
            if room >= BLOCK {
                // Cannot fail: `room` was checked for the whole block.
                let _ = producer.enqueue(s);
            }
        }
        if room < BLOCK {
            DROPPED.fetch_add(1, Ordering::Relaxed);
        }
    });
}

#[arch::entry]
fn main() -> ! {
    static mut QUEUE_STORAGE: Queue<i16, QUEUE> = Queue::new();
    let (producer, mut consumer) = QUEUE_STORAGE.split();
    critical_section::with(|cs| *SAMPLES.borrow_ref_mut(cs) = Some(producer));

    let mut front_end = FrontEnd::take().expect("taken once");
    let mut kws = Kws::take().expect("taken once");
    hprintln!(
        "keyword spotting: front end arena {} B + {} B state, model arena {} B, weights {} B",
        FrontEnd::ARENA_SIZE,
        FrontEnd::STATE_SIZE,
        Kws::ARENA_SIZE,
        Kws::WEIGHT_BYTES + FrontEnd::WEIGHT_BYTES
    );

    let mut peripherals = cortex_m::Peripherals::take().expect("taken once");
    let syst = &mut peripherals.SYST;
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(SYSTICK_HZ / (RATE / BLOCK) as u32 - 1);
    syst.clear_current();
    syst.enable_interrupt();
    syst.enable_counter();

    let mut listener = Listener::new();
    let mut heard = 0u32;
    loop {
        let Some(s) = consumer.dequeue() else {
            if FINISHED.load(Ordering::Relaxed) && !consumer.ready() {
                break;
            }
            cortex_m::asm::wfi();
            continue;
        };
        if let Some(w) = listener.push(s, &mut front_end, &mut kws) {
            let ms = (w.at_sample * 1000 / RATE) as u32;
            hprintln!("{}.{:03} s: {} ({}%)", ms / 1000, ms % 1000, w.word, w.percent);
            heard += 1;
        }
    }
    let received = listener.received();
    let dropped = DROPPED.load(Ordering::Relaxed);
    hprintln!("{} words in {} ms of audio; {} blocks lost", heard, received * 1000 / RATE, dropped);

    // Where one invoke's time goes, op by op, through `invoke_with` and a
    // `Profile` (on the last second of features). QEMU has no DWT cycle
    // counter: its 25 MHz SysTick, free-running now that the audio is
    // over, is the clock here; on a board, `tinyaot::DwtCycles::start()`.
    syst.disable_interrupt();
    syst.disable_counter();
    syst.set_reload(SYSTICK_MAX);
    syst.clear_current();
    syst.enable_counter();
    let mut profile = tinyaot::Profile::<_, { Kws::OPS }>::new(SysTickClock);
    kws.invoke_with(&mut profile);
    hprintln!("profile of one invoke ({} ops, SysTick ticks of 40 ns):\n{}", Kws::OPS, profile.table(Kws::PLAN.ops));
    arch::exit(if dropped == 0 { 0 } else { 1 })
}

/// SysTick's largest reload: it counts down 24 bits.
const SYSTICK_MAX: u32 = 0x00FF_FFFF;

/// The free-running SysTick as a profiling clock (24 bits, counting down).
struct SysTickClock;

impl tinyaot::Clock for SysTickClock {
    fn now(&mut self) -> u64 {
        u64::from(SYSTICK_MAX - cortex_m::peripheral::SYST::get_current())
    }

    fn bits(&self) -> u32 {
        24
    }
}
