//! What every operator's lowering produces: the checked [`Operator`], the
//! kernel variants it offers the planner (`lowering::variant`), and the
//! in-place slack it allows.

use crate::diag::Error;
use crate::lowering::emit::Emit;
use crate::lowering::variant::{Kernel, PairKernel, Variant};
use crate::lowering::window::Geometry;
use proc_macro2::TokenStream;

/// A checked operator, ready to emit. `Debug` shows the constants it
/// computed (tests read them without generating code).
pub trait Operator: core::fmt::Debug {
    /// Emits the statement(s) that run this op (nothing for aliases).
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error>;

    /// `Some((input, output))` when the output is a view of the input's
    /// bytes (RESHAPE): the planner gives both one buffer, no copy is made.
    fn alias(&self) -> Option<(usize, usize)> {
        None
    }

    /// Multiply-accumulates per invoke (for reports).
    fn macs(&self) -> u64 {
        0
    }

    /// Bytes of state the op keeps between invokes apart from any tensor
    /// (TFLM's persistent buffers: the signal library's noise estimates),
    /// zero until the first invoke and after `reset()`.
    fn state_bytes(&self) -> usize {
        0
    }

    /// Whether `reset()` leaves the op's state as it is (CALL_ONCE's
    /// "has run" flag, which TFLM's `Reset()` does not clear).
    fn state_kept_on_reset(&self) -> bool {
        false
    }

    /// Whether the output may overlap the main input, and by how much.
    fn in_place(&self) -> Option<InPlace> {
        None
    }

    /// Whether the op works on its tensors' bytes ([`Emit::io_bytes`]), so
    /// that [`Operator::in_place`] holds across dtypes of one size.
    fn in_place_bytes(&self) -> bool {
        false
    }

    /// For an op that computes rows of one image from rows of its inputs
    /// (conv, depthwise, pool; elementwise ops as a 1x1 window): its
    /// activation inputs, output and geometry, so the planner may run it
    /// over bands of output rows (`crate::tiling`).
    fn window(&self) -> Option<WindowOp> {
        None
    }

    /// Emits the op over a band: the same kernel and constants with `geo`
    /// (fewer rows, the band's top padding) over the views `cx` gives its
    /// input and output. Only called when [`Operator::window`] is `Some`.
    fn emit_window(&self, _cx: &mut Emit<'_>, _geo: &Geometry) -> Result<TokenStream, Error> {
        Err(Error::model("internal error: a band of an op without a window"))
    }

    /// The shared fused pixel-pair kernel (`kernels::dot::dots_pair_down`,
    /// one instance per depth and row layout) this op calls when it runs
    /// with `kernel`, and whether it needs the rounding nudge of negative
    /// sums: ops on one instance share one copy, nudging where any of them
    /// needs it (`Emit::pair_nudge`).
    fn pair_kernel(&self, _kernel: Kernel) -> Option<PairKernel> {
        None
    }

    /// The kernels this op can run with. Variant 0 is [`Kernel::Direct`]
    /// and needs no scratch; others trade scratch bytes for speed.
    /// `Emit::kernel` tells `emit` which one the planner chose. A cost of 0
    /// says the op has no estimate of its own: the lowering puts in
    /// `lowering::cost::by_tensors`'s, from its tensors' sizes.
    fn variants(&self) -> Vec<Variant> {
        vec![Variant::DIRECT]
    }

    /// On a plan for Helium (`Options::helium`), the variant of the op's
    /// vector kernel where it has one whose scratch or cost differ from
    /// its scalar variants': it then replaces the variants beside
    /// [`Kernel::Direct`] (`lowering::cost::variants`).
    fn vector_variant(&self) -> Option<Variant> {
        None
    }
}

/// A window op's tensors and geometry (see [`Operator::window`]).
#[derive(Clone, Debug)]
pub struct WindowOp {
    /// The activation inputs, all read through the same window (one for
    /// conv, depthwise and pool; both operands of an elementwise op).
    pub inputs: Vec<usize>,
    /// The output tensor.
    pub output: usize,
    /// Its geometry over the whole image.
    pub geo: Geometry,
}

/// An op that may write its output over its (dying) input: the output may
/// start at most `slack` bytes after the input's start (negative: before),
/// and overlap it from there on. Computed per kernel from the order in
/// which it reads and writes (see `window_slack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InPlace {
    /// The input tensor whose bytes may be overwritten.
    pub input: usize,
    /// The output tensor.
    pub output: usize,
    /// Largest allowed `output offset - input offset`, in bytes.
    pub slack: i64,
}
