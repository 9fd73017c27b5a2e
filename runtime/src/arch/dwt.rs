//! The Cortex-M cycle counter (`DWT.CYCCNT`) as a profiling clock, on
//! Armv7-M and Armv8-M Mainline (the M0/M0+ have no DWT counter).

use crate::hook::Clock;

/// Debug Exception and Monitor Control Register: `TRCENA` (bit 24) powers
/// the DWT.
const DEMCR: *mut u32 = 0xE000_EDFC as *mut u32;
/// DWT control: `CYCCNTENA` (bit 0) starts the counter.
const DWT_CTRL: *mut u32 = 0xE000_1000 as *mut u32;
/// The counter itself.
const DWT_CYCCNT: *mut u32 = 0xE000_1004 as *mut u32;
/// The Cortex-M7's software lock: writes to the DWT are ignored until the
/// key is written here (read-as-zero, write-ignored on the other cores).
const DWT_LAR: *mut u32 = 0xE000_1FB0 as *mut u32;

/// Core clock cycles from `DWT.CYCCNT` (32 bits: it wraps after 2^32
/// cycles, which a [`Profile`](crate::Profile) tolerates once per op).
#[derive(Clone, Copy, Debug)]
pub struct DwtCycles(());

impl DwtCycles {
    /// Powers and starts the cycle counter. The debug registers it writes
    /// are the core's own; a debugger attached to the board may use the
    /// counter too (it reads the same count).
    pub fn start() -> Self {
        // SAFETY: the System Control Space is mapped on every Armv7-M and
        // Armv8-M Mainline core; these are read-modify-writes of the
        // documented enable bits and the M7's lock key, volatile so they
        // happen once, in order.
        unsafe {
            DEMCR.write_volatile(DEMCR.read_volatile() | 1 << 24);
            DWT_LAR.write_volatile(0xC5AC_CE55);
            DWT_CTRL.write_volatile(DWT_CTRL.read_volatile() | 1);
        }
        DwtCycles(())
    }
}

impl Clock for DwtCycles {
    #[inline(always)]
    fn now(&mut self) -> u64 {
        // SAFETY: a volatile read of the counter `start` enabled.
        u64::from(unsafe { DWT_CYCCNT.read_volatile() })
    }

    fn bits(&self) -> u32 {
        32
    }
}
