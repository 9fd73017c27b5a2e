//! # tinyaot
//!
//! TensorFlow Lite models compiled ahead of time into plain `no_std` Rust.
//!
//! ```ignore
//! tinyaot::include_model!(pub Kws = "models/kws.tflite", arena_limit = 48 * 1024);
//!
//! let mut kws = Kws::take().unwrap();      // the one static arena, handed out once
//! kws.input_mut().copy_from_slice(&features);
//! kws.invoke();                            // straight-line calls, no interpreter
//! let scores: &[i8; 12] = kws.output();
//! ```
//!
//! At `cargo build`, [`include_model!`] reads the `.tflite` file, checks every
//! operator, plans the tensor arena and emits a type with:
//!
//! - `ARENA_SIZE: usize`, the planned bytes of activation memory, and
//!   `PLAN: MemoryPlan`, every planned buffer (name, offset, size, lifetime);
//! - `take() -> Option<Self>`: the model on its generated `static mut` arena,
//!   handed out once (a second call gives `None`); sound under edition 2024
//!   and on targets without compare-and-swap (thumbv6m, through the
//!   [`critical-section`](https://docs.rs/critical-section) crate there);
//! - `new(&mut Arena<{ ARENA_SIZE }>)`: the model on an arena you place
//!   yourself (a linker section, the stack); with `regions = [dtcm(".dtcm",
//!   32K), sram(".sram2", 256K)]` the arena is split over those memories
//!   (the hottest buffers in the first), each region its own static in its
//!   link section, `DTCM_SIZE`, `SRAM_SIZE` their sizes, and `new(&mut dtcm,
//!   &mut sram)` takes one arena per region ([`MemoryPlan::regions`]);
//! - `input_mut()`, `input()`, `output()` for tensor 0 as `&[T; N]` with the
//!   model's element type (`bool` for bool tensors), `input1_mut()`,
//!   `output1()`, ... for the others, and `write_input(i, bytes)`,
//!   `input_bytes_mut(i)` (not for bool inputs, whose bytes must stay 0 or
//!   1) and `output_bytes(i)` for generic code;
//! - `INPUT_SHAPE`, `INPUT_QUANT`, `OUTPUT_SHAPE`, `OUTPUT_QUANT` (and
//!   `INPUT1_...` for further tensors), `INPUTS` and `OUTPUTS` tables;
//! - `invoke()`, which returns nothing: everything that can fail failed at
//!   compile time. As in TFLM, an input's bytes are reused once its last
//!   reader has run, so write the input before every `invoke()`, or compile
//!   with `keep_inputs = true` to keep it intact. With `borrowed_inputs =
//!   true`, `invoke(&input, ...)` takes the inputs by reference instead and
//!   the arena holds none of their bytes (no `input_mut()` then);
//! - `CYCLES_M4`: the compiler's estimate of one invoke in Cortex-M4
//!   cycles (each op's in `PLAN.ops`), held to `cycle_limit` or
//!   `latency_limit` at compile time;
//! - `invoke_with(&mut hook)`: the same run with a [`Hook`] called before
//!   and after every op (a per-op [`Profile`] on `DwtCycles` (Cortex-M3 and up) or any
//!   [`Clock`]); `invoke()` is this with [`NoHook`], compiled away;
//! - `invoke_step() -> Step`: the invoke one part (op, band, IF, WHILE) at
//!   a time, and `invoke_async()` ([`invoke_stepwise`]), a future that
//!   yields to a cooperative executor between them; `OPS` and `STEPS`
//!   count the ops and the parts.
//!
//! Weights stay in flash as `static`s; quantization constants are folded at
//! compile time; the device never parses the flatbuffer.
//!
//! Features: `std` (`InstantClock`, a host clock for [`Profile`]); `helium`
//! (Cortex-M55/M85 with `-C target-cpu=cortex-m55` or `cortex-m85`: the int8
//! dot products on the Helium vector unit; rustc shows no `mve` target
//! feature to `cfg`, so the feature is your word that the core has it).
#![no_std]
#![deny(missing_docs)]

use tinyaot_common::fixedpoint;
#[cfg(feature = "std")]
extern crate std;

mod arch;
mod hook;
mod kernels;
mod support;

pub use hook::*;

pub use tinyaot_macros::include_model;

/// What the code `include_model!` generates calls: kernels, arena views,
/// weight storage, the take-once flag. Not public API: it changes with
/// every release of the macro, which is pinned to this crate's version.
#[doc(hidden)]
pub mod __private {
    /// One kernel call per target family (`arch`'s selection point).
    pub use crate::__tinyaot_by_family as by_family;
    /// Helium's kernel call or the other (`arch`'s selection point).
    pub use crate::__tinyaot_helium_or as helium_or;
    /// The target's weight layout of a pixel-pair layer (`arch`'s selection point).
    pub use crate::__tinyaot_pair_rows as pair_rows;
    /// The rows in the vector layout where the target reads them (Helium).
    pub use crate::__tinyaot_vector_rows as vector_rows;
    /// The target's weight layout of a widened-rows layer (`arch`'s selection point).
    pub use crate::__tinyaot_widened_rows as widened_rows;
    pub use crate::support::arena::{view, view_mut};
    pub use crate::support::{Aligned, InRam, Pod, TakeOnce};
    pub use tinyaot_common::fixedpoint;
    /// The kernels, one module per family.
    pub mod kernels {
        pub use crate::kernels::*;
    }
}

#[cfg(target_endian = "big")]
compile_error!("tinyaot stores weights little-endian, as TFLite does; big-endian targets are not supported");

/// The activation arena of a model: `N` bytes aligned to 16, the alignment
/// of every planned offset.
#[repr(C, align(16))]
pub struct Arena<const N: usize>(pub [u8; N]);

impl<const N: usize> Arena<N> {
    /// A zeroed arena, usable in a `static` or on the stack.
    pub const fn new() -> Self {
        Arena([0; N])
    }

    /// Base pointer for the generated code's offset arithmetic.
    #[inline(always)]
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.0.as_mut_ptr()
    }
}

impl<const N: usize> Default for Arena<N> {
    fn default() -> Self {
        Self::new()
    }
}

/// What one `invoke()` of a streaming model did (a model with TFLM's
/// CIRCULAR_BUFFER ops, whose `invoke()` returns this; other models'
/// return `()`, which converts to `Completed`, so generic code can write
/// `Invoked::from(model.invoke())`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invoked {
    /// Every op ran: the outputs are this invoke's.
    Completed,
    /// A CIRCULAR_BUFFER took the input into its rows and stopped the
    /// invoke there (TFLM's `kTfLiteAbort`: its stride was not reached);
    /// the ops after it did not run, the outputs are not this invoke's.
    Stopped,
}

impl From<()> for Invoked {
    fn from((): ()) -> Self {
        Invoked::Completed
    }
}

/// Element type of a tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DType {
    /// 32-bit float.
    F32,
    /// Signed 8-bit integer.
    I8,
    /// Unsigned 8-bit integer.
    U8,
    /// Signed 16-bit integer.
    I16,
    /// Signed 32-bit integer.
    I32,
    /// Signed 64-bit integer (ARG_MAX indices).
    I64,
    /// Boolean (one byte, 0 or 1: comparisons, masks).
    Bool,
    /// Unsigned 32-bit integer (signal-library spectra).
    U32,
    /// Unsigned 64-bit integer (signal-library filter-bank sums).
    U64,
}

/// Affine quantization of a tensor: `real = scale * (q - zero_point)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quant {
    /// Scale.
    pub scale: f32,
    /// Zero point.
    pub zero_point: i32,
}

/// A graph input or output as the generated type exposes it.
#[derive(Clone, Copy, Debug)]
pub struct TensorInfo {
    /// Tensor name from the model.
    pub name: &'static str,
    /// Element type.
    pub dtype: DType,
    /// Shape.
    pub shape: &'static [usize],
    /// Quantization, if the tensor is quantized.
    pub quant: Option<Quant>,
    /// The memory region it is in (`MemoryPlan::regions`; 0, the one
    /// arena, for a model without regions).
    pub region: usize,
    /// Byte offset in that region's arena (`usize::MAX` for an input of a
    /// model compiled with `borrowed_inputs = true`: it stays in the
    /// caller's memory).
    pub offset: usize,
    /// Size in bytes.
    pub bytes: usize,
}

/// One planned buffer of the arena.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    /// Tensor name (or `scratch:<op>` for an op's scratch buffer).
    pub name: &'static str,
    /// The memory region it is in (`MemoryPlan::regions`).
    pub region: usize,
    /// Byte offset in that region's arena (a multiple of 16).
    pub offset: usize,
    /// Size in bytes (before rounding up to 16).
    pub size: usize,
    /// First op index at which the buffer is live.
    pub first_op: usize,
    /// Last op index at which the buffer is live.
    pub last_op: usize,
}

/// One memory region of a model's arena: the whole arena, or one of the
/// `regions` it was compiled with (fastest first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryRegion {
    /// The name it was given (`"arena"` for a model without regions).
    pub name: &'static str,
    /// The link section of its static arena, if one was given.
    pub section: Option<&'static str>,
    /// Bytes of the region's arena.
    pub size: usize,
    /// Bytes it was allowed (its size, without regions).
    pub budget: usize,
}

/// The memory plan of a compiled model.
#[derive(Clone, Copy, Debug)]
pub struct MemoryPlan {
    /// Planned arena bytes (over all regions).
    pub arena_size: usize,
    /// The largest sum of (16-aligned) live buffer sizes at any op: no plan
    /// without in-place reuse can be smaller.
    pub lower_bound: usize,
    /// What TFLM's greedy planner needs for the same buffers.
    pub tflm_greedy: usize,
    /// Every buffer, in tensor order.
    pub buffers: &'static [Placement],
    /// Every operator in execution order (the `first_op`/`last_op`
    /// positions of [`Placement`]): where it comes from in the model.
    pub ops: &'static [OpSite],
    /// The stages of ops run band by band to fit `arena_limit`, in
    /// execution order (none without a limit, or when the plain plan fits).
    pub tiled: &'static [TiledStage],
    /// The memory regions the arena is split over, fastest first (one,
    /// the arena, for a model compiled without `regions`).
    pub regions: &'static [MemoryRegion],
}

/// A chain of window ops (conv, depthwise, pool) the plan runs one band of
/// output rows at a time: the maps between them never exist whole, only
/// one band each; rows where bands' windows overlap are computed twice, or
/// kept from one band to the next (`keep_halo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TiledStage {
    /// First op of the chain (execution position).
    pub first_op: usize,
    /// Last op of the chain.
    pub last_op: usize,
    /// Number of bands.
    pub bands: usize,
    /// Output rows of the last op per band (the last band may have fewer),
    /// or with `streamed` of the first op.
    pub band_rows: usize,
    /// Whether the first op drives the bands: each band runs it over its
    /// next `band_rows` rows and every later op over the rows its inputs
    /// then allow (a row pipeline; the halo is kept).
    pub streamed: bool,
    /// Multiply-accumulates computed more than once per invoke.
    pub recomputed_macs: u64,
    /// Whether rows shared by bands are kept from one band to the next (the
    /// maps' band buffers live through the whole stage) instead of
    /// recomputed.
    pub keep_halo: bool,
    /// Bytes of kept rows moved to the front of their band buffers per
    /// invoke.
    pub moved_bytes: u64,
    /// The arena the best plan without the tiled stage needs.
    pub untiled_arena: usize,
}

/// Where an operator of the generated code comes from: the model's
/// subgraph 0, or a subgraph a CALL_ONCE, IF or WHILE runs (inlined).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpSite {
    /// Execution position: the index of this site in `PLAN.ops` (and of its
    /// row in a [`Profile`]).
    pub position: usize,
    /// The subgraph (0: the model itself).
    pub subgraph: usize,
    /// Index in that subgraph's operators (0 for the copies tinyaot adds
    /// into and out of a called subgraph).
    pub index: usize,
    /// Operator name (`CONV_2D`; `subgraph inputs of subgraph 2` for the
    /// added copies).
    pub name: &'static str,
    /// The compiler's estimate of the op's Cortex-M4 cycles per invoke
    /// with its chosen kernel (its share of the model's `CYCLES_M4`).
    pub cycles_m4: u64,
}
