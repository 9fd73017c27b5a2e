//! The kernel variants an op offers and the planner picks: which kernel
//! runs ([`Kernel`]), what it costs ([`Variant`]), and the fused pixel-pair
//! instances ops share ([`PairKernel`]). Plain data, read by the planner
//! and by the emitter.

/// A fused pixel-pair kernel instance an op calls (`Operator::pair_kernel`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairKernel {
    /// Values per row, a multiple of 4.
    pub depth: usize,
    /// Rows in the pair-row layout (`layout::pack_pair_rows`).
    pub lanes: bool,
    /// The op's outputs need the nudge (`Requant::nudges`).
    pub nudge: bool,
}

/// Which kernel an op runs with: offered by the op, chosen by the planner
/// (within the RAM budget, by estimated cost), matched by the op's codegen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// The op's own loop over its input, with no scratch (every op has it).
    Direct,
    /// Each window gathered into a contiguous patch in scratch first, then
    /// blocked dot products against packed weight rows (conv; depthwise
    /// with input depth 1).
    Im2col,
    /// Depthwise over input rows widened once per channel into a ring of
    /// 16-bit rows in scratch, adjacent taps as `SMLAD` pairs.
    WidenedRows,
    /// Helium's vector kernel where the plan is made for it
    /// (`Options::helium`; depthwise: 8 channels a vector, no scratch).
    /// Its call keeps a kernel without scratch for the other targets.
    Vector,
}

impl Kernel {
    /// Short name for reports and plan tables.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Direct => "direct",
            Kernel::Im2col => "im2col",
            Kernel::WidenedRows => "rows",
            Kernel::Vector => "vector",
        }
    }
}

/// One way to run an op: the planner's choice for each op is one of these,
/// carried in the plan to the emitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// The kernel.
    pub kernel: Kernel,
    /// Scratch bytes it needs during the op.
    pub scratch: usize,
    /// Estimated Cortex-M4 cycles per invoke (`lowering::cost`): what the
    /// planner compares, and the op's share of `CYCLES_M4`.
    pub cost: u64,
}

impl Variant {
    /// The direct kernel without scratch, at no estimated cost: what an op
    /// that lists no variant runs.
    pub const DIRECT: Variant = Variant { kernel: Kernel::Direct, scratch: 0, cost: 0 };
}
