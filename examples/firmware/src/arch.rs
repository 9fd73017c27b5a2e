//! What differs between the Cortex-M and RISC-V builds: start-up (the
//! `entry` attribute), a `nop` for the markers, the semihosting call that
//! carries output, arguments and the exit code to QEMU, and the handlers
//! of faults and panics (both print and exit with a failure code).

#[cfg(target_arch = "arm")]
pub use cortex_m_rt::entry;
#[cfg(target_arch = "arm")]
pub use cortex_m_semihosting::hprintln;
#[cfg(target_arch = "riscv32")]
pub use riscv_rt::entry;

/// One `nop`.
#[inline(always)]
pub fn nop() {
    #[cfg(target_arch = "arm")]
    cortex_m::asm::nop();
    #[cfg(target_arch = "riscv32")]
    riscv::asm::nop();
}

/// A semihosting call: operation `op` with parameter `arg`.
///
/// # Safety
/// `arg` is what operation `op` expects (a valid parameter block).
pub unsafe fn semihosting(op: usize, arg: usize) -> usize {
    #[cfg(target_arch = "arm")]
    // SAFETY: forwarded contract.
    return unsafe { cortex_m_semihosting::syscall1(op, arg) };
    #[cfg(target_arch = "riscv32")]
    {
        let mut r = op;
        // SAFETY: the RISC-V semihosting sequence (uncompressed, as the
        // debugger recognizes it): a0 = operation, a1 = parameter, result
        // in a0; forwarded contract for `arg`.
        unsafe {
            core::arch::asm!(
                ".option push",
                ".option norvc",
                ".balign 16",
                "slli zero, zero, 0x1f",
                "ebreak",
                "srai zero, zero, 0x7",
                ".option pop",
                inout("a0") r,
                in("a1") arg,
                options(nostack),
            );
        }
        r
    }
}

/// Ends the QEMU run with exit code `code` (semihosting).
pub fn exit(code: u32) -> ! {
    // SYS_EXIT_EXTENDED with ADP_Stopped_ApplicationExit: QEMU exits with `code`.
    let block = [0x20026u32, code];
    // SAFETY: a valid semihosting parameter block.
    unsafe { semihosting(0x20, block.as_ptr() as usize) };
    loop {
        nop();
    }
}

#[cfg(target_arch = "riscv32")]
pub(crate) use riscv_out::hprintln;

#[cfg(target_arch = "riscv32")]
mod riscv_out {
    /// Formats into a buffer and writes it to the host (up to 254 bytes a
    /// line).
    pub struct Line {
        buf: [u8; 256],
        len: usize,
    }

    impl Line {
        pub const fn new() -> Self {
            Line { buf: [0; 256], len: 0 }
        }

        /// Writes the line to the host's stdout (`:tt` opened for writing,
        /// as the Arm build's `hprintln` does: SYS_OPEN, then SYS_WRITE).
        pub fn flush(&mut self) {
            use core::sync::atomic::{AtomicUsize, Ordering};
            // The handle, opened once (0: not yet; load and store only, as
            // RV32IMC has no atomic read-modify-write).
            static STDOUT: AtomicUsize = AtomicUsize::new(0);
            let mut handle = STDOUT.load(Ordering::Relaxed);
            if handle == 0 {
                let name = b":tt\0";
                let open = [name.as_ptr() as usize, 4, 3];
                // SAFETY: SYS_OPEN reads the NUL-terminated name of the
                // given length.
                handle = unsafe { super::semihosting(0x01, open.as_ptr() as usize) } + 1;
                STDOUT.store(handle, Ordering::Relaxed);
            }
            let write = [handle - 1, self.buf.as_ptr() as usize, self.len];
            // SAFETY: SYS_WRITE reads `len` bytes of `buf`.
            unsafe { super::semihosting(0x05, write.as_ptr() as usize) };
            self.len = 0;
        }
    }

    impl core::fmt::Write for Line {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            for &b in s.as_bytes() {
                if self.len < 254 {
                    self.buf[self.len] = b;
                    self.len += 1;
                }
            }
            Ok(())
        }
    }

    /// `println!` over semihosting.
    macro_rules! hprintln {
        ($($arg:tt)*) => {{
            let mut line = $crate::arch::Line::new();
            let _ = core::fmt::Write::write_fmt(&mut line, format_args!($($arg)*));
            let _ = core::fmt::Write::write_str(&mut line, "\n");
            line.flush();
        }};
    }
    pub(crate) use hprintln;
}

#[cfg(target_arch = "riscv32")]
pub use riscv_out::Line;

#[cfg(target_arch = "arm")]
use panic_semihosting as _;

#[cfg(target_arch = "arm")]
#[cortex_m_rt::exception]
unsafe fn HardFault(ef: &cortex_m_rt::ExceptionFrame) -> ! {
    hprintln!("HardFault at pc {:#x}", ef.pc());
    exit(3)
}

#[cfg(target_arch = "riscv32")]
#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    hprintln!("panic: {}", info);
    exit(4)
}

#[cfg(target_arch = "riscv32")]
#[allow(non_snake_case)]
#[unsafe(no_mangle)]
fn ExceptionHandler(_frame: &riscv_rt::TrapFrame) -> ! {
    hprintln!("exception, mcause {:#x}", riscv::register::mcause::read().bits());
    exit(3)
}
