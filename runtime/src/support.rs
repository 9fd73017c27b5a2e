//! What the generated code calls besides the kernels: weight storage in
//! flash, the arena views, the take-once flag. Reached only through
//! `__private` (not public API).

/// Read-only data aligned to 16 bytes: weights and biases in flash, laid out
/// so kernels can read them as `i8`, `i32` or `f32` slices.
#[repr(C, align(16))]
pub struct Aligned<T: ?Sized>(pub T);

impl<const N: usize> Aligned<[u8; N]> {
    /// The bytes as a slice of `T` (`i8`, `i16`, `i32`, `f32`). The compiler
    /// emits byte strings whose length is a multiple of `size_of::<T>()`.
    #[inline(always)]
    pub fn cast<T: Pod>(&self) -> &[T] {
        let len = N / core::mem::size_of::<T>();
        // SAFETY: the storage is 16-aligned (covers every `Pod` type here),
        // `len * size_of::<T>() <= N`, every bit pattern is a valid `T`, and
        // the borrow of `self` keeps the bytes alive and immutable.
        unsafe { core::slice::from_raw_parts(self.0.as_ptr().cast::<T>(), len) }
    }
}

/// Constant data copied from flash into an arena region when the model is
/// made (`copy_weights`): read through the same `cast` as [`Aligned`], from
/// RAM.
#[derive(Clone, Copy, Debug)]
pub struct InRam<'a>(&'a [u8]);

impl<'a> InRam<'a> {
    /// The `len` bytes at byte offset `offset` of the region at `base`.
    ///
    /// # Safety
    /// `base + offset .. + len` lies in one live arena region, is 16-aligned,
    /// holds the copied constant, and no `&mut` view of any of its bytes
    /// exists while this is used.
    #[inline(always)]
    pub unsafe fn at(base: *mut u8, offset: usize, len: usize) -> Self {
        // SAFETY: guaranteed by the caller (see the function's contract).
        InRam(unsafe { core::slice::from_raw_parts(base.add(offset), len) })
    }

    /// The bytes as a slice of `T`, as [`Aligned::cast`].
    #[inline(always)]
    pub fn cast<T: Pod>(&self) -> &'a [T] {
        let len = self.0.len() / core::mem::size_of::<T>();
        // SAFETY: the bytes are 16-aligned (`at`'s contract; covers every
        // `Pod` type here), `len * size_of::<T>()` of them are in the
        // slice, and every bit pattern is a valid `T`.
        unsafe { core::slice::from_raw_parts(self.0.as_ptr().cast::<T>(), len) }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Plain element types that any byte pattern is a valid value of.
pub trait Pod: Copy + sealed::Sealed {}
macro_rules! pod {
    ($($t:ty),*) => { $(impl sealed::Sealed for $t {} impl Pod for $t {})* };
}
pod!(u8, i8, i16, u16, i32, u32, i64, u64, f32);

/// Views into the arena for the generated code.
///
/// The compiler proves, before emitting a call, that the buffers an op reads
/// and the buffer it writes are disjoint byte ranges of the arena (no two
/// buffers live at the same op share a byte), inside `ARENA_SIZE`, and
/// aligned to 16. These functions only turn those proven ranges into slices.
pub mod arena {
    use super::Pod;

    /// A shared view of `len` elements at byte offset `offset`.
    ///
    /// # Safety
    /// `base + offset .. + len * size_of::<T>()` lies in one live arena, is
    /// aligned for `T`, and no `&mut` view of any of its bytes exists while
    /// the returned slice is used.
    #[inline(always)]
    pub unsafe fn view<'a, T: Pod>(base: *mut u8, offset: usize, len: usize) -> &'a [T] {
        // SAFETY: guaranteed by the caller (see the function's contract).
        unsafe { core::slice::from_raw_parts(base.add(offset).cast::<T>(), len) }
    }

    /// An exclusive view of `len` elements at byte offset `offset`.
    ///
    /// # Safety
    /// As for [`view`], and no other view of any of these bytes exists while
    /// the returned slice is used.
    #[inline(always)]
    pub unsafe fn view_mut<'a, T: Pod>(base: *mut u8, offset: usize, len: usize) -> &'a mut [T] {
        // SAFETY: guaranteed by the caller (see the function's contract).
        unsafe { core::slice::from_raw_parts_mut(base.add(offset).cast::<T>(), len) }
    }
}

/// A flag that hands out a model's static arena exactly once.
///
/// On targets with atomic swap it is an `AtomicBool`; on targets without
/// compare-and-swap (thumbv6m) it uses a `critical_section` (provide an
/// implementation, e.g. `cortex-m`'s `critical-section-single-core`).
pub struct TakeOnce {
    taken: core::sync::atomic::AtomicBool,
}

impl TakeOnce {
    /// A flag not yet taken.
    pub const fn new() -> Self {
        TakeOnce { taken: core::sync::atomic::AtomicBool::new(false) }
    }

    /// `true` the first time it is called, `false` ever after.
    #[cfg(target_has_atomic = "8")]
    pub fn take(&self) -> bool {
        !self.taken.swap(true, core::sync::atomic::Ordering::AcqRel)
    }

    /// `true` the first time it is called, `false` ever after.
    #[cfg(not(target_has_atomic = "8"))]
    pub fn take(&self) -> bool {
        use core::sync::atomic::Ordering;
        critical_section::with(|_| {
            let was = self.taken.load(Ordering::Acquire);
            self.taken.store(true, Ordering::Release);
            !was
        })
    }
}

impl Default for TakeOnce {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::{Aligned, InRam};

    #[test]
    fn a_copy_in_ram_reads_as_the_flash_static_does() {
        static FLASH: Aligned<[u8; 8]> = Aligned([1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff]);
        let mut region = crate::Arena::<48>::new();
        let base = region.as_mut_ptr();
        // SAFETY: 8 bytes at offset 16 of the 48-byte region, 16-aligned.
        unsafe { core::ptr::copy_nonoverlapping(FLASH.0.as_ptr(), base.add(16), 8) };
        // SAFETY: the copy just written, and nothing views it mutably.
        let ram = unsafe { InRam::at(base, 16, 8) };
        assert_eq!(ram.cast::<i32>(), FLASH.cast::<i32>());
        assert_eq!(ram.cast::<i32>(), &[1, -2]);
        assert_eq!(ram.cast::<i8>().len(), 8);
    }
}
