//! Watching and sharing an inference: a [`Hook`] called around every op
//! (`invoke_with`), a ready per-op [`Profile`] over any [`Clock`], and the
//! step-wise invoke ([`Step`], [`Stepwise`], [`InvokeStepwise`]) that lets a
//! cooperative executor run other tasks between ops.
//!
//! `invoke()` runs the same generated code with [`NoHook`], whose empty
//! methods compile away: a model that never calls `invoke_with` pays
//! nothing for it.

use crate::{Invoked, OpSite};
use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

/// Called around each op by a model's `invoke_with(&mut hook)`.
///
/// `site` is the op's entry in the model's `PLAN.ops` (its `position` is
/// the index there). Ops of a tiled stage run band by band: each band of
/// each of them is one call pair, `band` saying which (`None` elsewhere).
/// Ops in the branch of an IF that is not taken are not called; the ops of
/// a WHILE body are called once per iteration; a control-flow op itself
/// (CALL_ONCE, IF, WHILE) gets its pair just before the ops it runs. An op
/// that stops the invoke (a CIRCULAR_BUFFER between its strides) gets no
/// `after`. Views (RESHAPE and the like, which run no code) get their pair
/// like every op.
pub trait Hook {
    /// Just before the op (or the band of it) runs.
    #[inline(always)]
    fn before(&mut self, site: &OpSite, band: Option<usize>) {
        let _ = (site, band);
    }

    /// Just after it ran.
    #[inline(always)]
    fn after(&mut self, site: &OpSite, band: Option<usize>) {
        let _ = (site, band);
    }
}

impl<H: Hook + ?Sized> Hook for &mut H {
    #[inline(always)]
    fn before(&mut self, site: &OpSite, band: Option<usize>) {
        (**self).before(site, band);
    }

    #[inline(always)]
    fn after(&mut self, site: &OpSite, band: Option<usize>) {
        (**self).after(site, band);
    }
}

/// The hook of `invoke()`: does nothing, and compiles to nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoHook;

impl Hook for NoHook {}

/// A free-running counter a [`Profile`] reads: cycles, timer ticks,
/// nanoseconds. Differences are taken with wrapping arithmetic, so a
/// 32-bit counter that wraps between `before` and `after` still measures
/// right (one wrap at most per op).
pub trait Clock {
    /// The counter now.
    fn now(&mut self) -> u64;

    /// The counter's width in bits (64 unless it wraps sooner, as the
    /// 32-bit `DWT.CYCCNT` does).
    fn bits(&self) -> u32 {
        64
    }
}

/// Any `FnMut() -> u64` is a clock: a board's timer, `embassy_time`'s
/// `Instant::now().as_ticks()`.
impl<F: FnMut() -> u64> Clock for F {
    fn now(&mut self) -> u64 {
        self()
    }
}

/// The Cortex-M cycle counter (`DWT.CYCCNT`, Armv7-M and Armv8-M
/// Mainline: M3, M4, M7, M33, M55, M85; the M0/M0+ have none). QEMU does
/// not model it: read it on a board.
#[cfg(all(target_arch = "arm", target_feature = "thumb2"))]
pub use crate::arch::DwtCycles;

/// Time on the host, in nanoseconds since the clock was made (with the
/// `std` feature).
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug)]
pub struct InstantClock(std::time::Instant);

#[cfg(feature = "std")]
impl InstantClock {
    /// A clock starting now.
    pub fn new() -> Self {
        InstantClock(std::time::Instant::now())
    }
}

#[cfg(feature = "std")]
impl Default for InstantClock {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(feature = "std")]
impl Clock for InstantClock {
    fn now(&mut self) -> u64 {
        u64::try_from(self.0.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

/// One op's share of a [`Profile`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpTime {
    /// Clock ticks spent in the op, over every call.
    pub ticks: u64,
    /// Times its `before`/`after` pair ran (bands of a tiled stage and
    /// WHILE iterations count one each).
    pub calls: u32,
}

impl OpTime {
    /// No time, no calls.
    pub const ZERO: OpTime = OpTime { ticks: 0, calls: 0 };
}

/// A [`Hook`] that adds each op's ticks on a [`Clock`] into a table, one
/// row per op of the model's `PLAN.ops` (`OPS` is the model's `OPS`):
///
/// ```ignore
/// let mut profile = tinyaot::Profile::<_, { Kws::OPS }>::new(tinyaot::DwtCycles::start());
/// kws.invoke_with(&mut profile);
/// defmt::info!("{}", defmt::Display2Format(&profile.table(Kws::PLAN.ops)));
/// ```
///
/// The ticks include the hook's own two clock reads per op (a few cycles
/// with `DwtCycles`). Sites past `OPS` (a profile sized for another
/// model) are not counted.
#[derive(Clone, Debug)]
pub struct Profile<C, const OPS: usize> {
    clock: C,
    started: u64,
    times: [OpTime; OPS],
}

impl<C: Clock, const OPS: usize> Profile<C, OPS> {
    /// An empty profile on `clock`.
    pub fn new(clock: C) -> Self {
        Profile { clock, started: 0, times: [OpTime::ZERO; OPS] }
    }

    /// Each op's time, in `PLAN.ops` order.
    pub fn times(&self) -> &[OpTime; OPS] {
        &self.times
    }

    /// Ticks over every op.
    pub fn total(&self) -> u64 {
        self.times.iter().map(|t| t.ticks).sum()
    }

    /// Clears the times (the clock keeps running).
    pub fn clear(&mut self) {
        self.times = [OpTime::ZERO; OPS];
    }

    /// The profile as a table, one line per op of `ops` (the model's
    /// `PLAN.ops`): position, operator, where it is in the model, ticks,
    /// calls, share of the total.
    pub fn table<'p>(&'p self, ops: &'p [OpSite]) -> ProfileTable<'p> {
        ProfileTable { times: &self.times, ops }
    }
}

impl<C: Clock, const OPS: usize> Hook for Profile<C, OPS> {
    #[inline]
    fn before(&mut self, _: &OpSite, _: Option<usize>) {
        self.started = self.clock.now();
    }

    #[inline]
    fn after(&mut self, site: &OpSite, _: Option<usize>) {
        let elapsed = self.clock.now().wrapping_sub(self.started);
        let bits = self.clock.bits();
        let elapsed = if bits < 64 { elapsed & ((1u64 << bits) - 1) } else { elapsed };
        if let Some(t) = self.times.get_mut(site.position) {
            t.ticks += elapsed;
            t.calls += 1;
        }
    }
}

/// [`Profile::table`]: prints with `{}`.
#[derive(Clone, Copy, Debug)]
pub struct ProfileTable<'p> {
    times: &'p [OpTime],
    ops: &'p [OpSite],
}

impl fmt::Display for ProfileTable<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total: u64 = self.times.iter().map(|t| t.ticks).sum();
        writeln!(f, "{:>4}  {:<28} {:>9} {:>12} {:>6} {:>6}", "#", "op", "sg:index", "ticks", "calls", "share")?;
        for (site, t) in self.ops.iter().zip(self.times) {
            // Per mille, printed as a percentage with one decimal (no floats
            // needed on cores without an FPU).
            let share = t.ticks.saturating_mul(1000).checked_div(total).unwrap_or(0);
            let place = Place(site.subgraph, site.index);
            writeln!(
                f,
                "{:>4}  {:<28} {:>9} {:>12} {:>6} {:>4}.{}%",
                site.position,
                site.name,
                place,
                t.ticks,
                t.calls,
                share / 10,
                share % 10
            )?;
        }
        write!(f, "{:>4}  {:<28} {:>9} {:>12}", "", "total", "", total)
    }
}

/// `subgraph:index`, padded as one field.
struct Place(usize, usize);

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Formatted into a small buffer first so the width applies to the
        // whole `a:b` (at most 20 + 1 + 20 digits).
        let mut buf = [0u8; 48];
        let mut w = Cursor { buf: &mut buf, len: 0 };
        fmt::write(&mut w, format_args!("{}:{}", self.0, self.1))?;
        let len = w.len;
        f.pad(core::str::from_utf8(&buf[..len]).map_err(|_| fmt::Error)?)
    }
}

struct Cursor<'b> {
    buf: &'b mut [u8],
    len: usize,
}

impl fmt::Write for Cursor<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        self.buf.get_mut(self.len..end).ok_or(fmt::Error)?.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// What one `invoke_step()` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// One more part of the invoke ran (an op, a band of a tiled stage, a
    /// whole IF or WHILE); call again to go on.
    Ran,
    /// The invoke is over, as `invoke()` would have returned; the next
    /// `invoke_step()` starts a new one (write the inputs first).
    Finished(Invoked),
}

/// A model whose invoke can run a part at a time (every generated model
/// whose inputs are in its arena; not `borrowed_inputs = true`, whose
/// `invoke_step` takes the inputs).
pub trait Stepwise {
    /// Runs the next part of the invoke (see [`Step`]).
    fn invoke_step(&mut self) -> Step;
}

/// Runs `model`'s invoke as a future that yields to the executor after
/// every part ([`Stepwise::invoke_step`]), so other tasks on a cooperative
/// executor (embassy) run between ops. Outputs are those of `invoke()`.
pub fn invoke_stepwise<M: Stepwise + ?Sized>(model: &mut M) -> InvokeStepwise<'_, M> {
    InvokeStepwise { model }
}

/// The future of [`invoke_stepwise`] (and of a model's `invoke_async`).
#[derive(Debug)]
#[must_use = "a future does nothing unless awaited"]
pub struct InvokeStepwise<'m, M: ?Sized> {
    model: &'m mut M,
}

impl<M: Stepwise + ?Sized> Future for InvokeStepwise<'_, M> {
    type Output = Invoked;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Invoked> {
        let this = self.get_mut();
        match this.model.invoke_step() {
            Step::Finished(invoked) => Poll::Ready(invoked),
            Step::Ran => {
                // Ready to go on at once: back into the executor's queue,
                // behind the tasks already waiting.
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    const SITES: [OpSite; 2] = [
        OpSite { position: 0, subgraph: 0, index: 0, name: "CONV_2D", cycles_m4: 0 },
        OpSite { position: 1, subgraph: 2, index: 13, name: "SOFTMAX", cycles_m4: 0 },
    ];

    /// A clock that advances by the given steps, one per read.
    struct Steps(&'static [u64], usize, u64);

    impl Clock for Steps {
        fn now(&mut self) -> u64 {
            self.2 += self.0[self.1 % self.0.len()];
            self.1 += 1;
            self.2
        }
    }

    #[test]
    fn a_profile_adds_each_ops_ticks_and_prints_its_share() {
        // before/after of op 0 read +1 then +30; op 1 +1 then +10.
        let mut profile = Profile::<_, 2>::new(Steps(&[1, 30, 1, 10], 0, 0));
        for site in &SITES {
            profile.before(site, None);
            profile.after(site, None);
        }
        assert_eq!(profile.times(), &[OpTime { ticks: 30, calls: 1 }, OpTime { ticks: 10, calls: 1 }]);
        assert_eq!(profile.total(), 40);
        let table = profile.table(&SITES).to_string();
        let lines: std::vec::Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4, "{table}");
        assert!(lines[1].contains("CONV_2D") && lines[1].contains("0:0") && lines[1].ends_with("75.0%"), "{table}");
        assert!(lines[2].contains("SOFTMAX") && lines[2].contains("2:13") && lines[2].ends_with("25.0%"), "{table}");
        assert!(lines[3].contains("total") && lines[3].ends_with("40"), "{table}");
        profile.clear();
        assert_eq!(profile.total(), 0);
    }

    #[test]
    fn a_site_past_the_profiles_rows_is_not_counted() {
        let mut profile = Profile::<_, 1>::new(Steps(&[1], 0, 0));
        profile.before(&SITES[1], Some(3));
        profile.after(&SITES[1], Some(3));
        assert_eq!(profile.total(), 0);
    }

    /// A model whose invoke has three parts.
    struct ThreeParts {
        next: usize,
    }

    impl Stepwise for ThreeParts {
        fn invoke_step(&mut self) -> Step {
            self.next += 1;
            if self.next == 3 {
                self.next = 0;
                return Step::Finished(Invoked::Completed);
            }
            Step::Ran
        }
    }

    #[test]
    fn the_stepwise_future_yields_after_every_part() {
        let mut model = ThreeParts { next: 0 };
        let waker = core::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut future = invoke_stepwise(&mut model);
        let mut polls = 0;
        let done = loop {
            polls += 1;
            if let Poll::Ready(i) = Pin::new(&mut future).poll(&mut cx) {
                break i;
            }
        };
        assert_eq!((done, polls), (Invoked::Completed, 3));
        assert_eq!(model.next, 0, "the next invoke starts over");
    }
}
