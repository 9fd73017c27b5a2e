//! # tinyaot-compiler
//!
//! The ahead-of-time compiler behind `tinyaot::include_model!`, as a plain
//! library (the proc macro, the CLI and the tests all call it):
//!
//! ```text
//! bytes --tflite::read--> bounds-checked flatbuffer views --Graph::read--> Graph
//!       --lowering::registry::lower--> checked operators --schedule--> buffers + lifetimes
//!       --plan--> offsets --codegen--> Rust tokens
//! ```
//!
//! [`analyze`] runs everything up to the plan; [`compile`] also emits code.

pub mod codegen;
pub mod diag;
// TFLite's fixed-point rules and the weight layouts: the one copy, shared
// with the runtime (`tinyaot-common`), used here for compile-time tables.
pub use tinyaot_common::{fixedpoint, layout};
pub mod graph;
pub mod lowering;
pub mod ops;
pub mod order;
pub mod plan;
pub mod quant;
pub mod regions;
pub mod report;
mod resources;
pub mod schedule;
pub mod tflite;
pub mod tiling;

pub use codegen::model::Target;
pub use diag::{Error, Site};

use graph::Graph;
use lowering::operator::Operator;
use lowering::variant::Variant;
use plan::Plan;
use proc_macro2::TokenStream;
use schedule::Schedule;

/// A checked and planned model.
pub struct Analysis<'a> {
    /// Subgraph 0.
    pub graph: Graph<'a>,
    /// One checked operator per node (in the model's order).
    pub ops: Vec<Box<dyn Operator>>,
    /// Execution order: `order[p]` is the node run at position `p`. The
    /// model's own order unless another valid order needs less arena.
    pub order: Vec<usize>,
    /// The kernel variant each node runs with (one of its `variants`).
    pub choice: Vec<Variant>,
    /// The kernel variants each node offers.
    pub variants: Vec<Vec<Variant>>,
    /// The arena with scratch-free kernels only, when faster ones were chosen.
    pub direct_arena: Option<usize>,
    /// With `keep_inputs`: the arena the same kernels need without it.
    pub arena_without_kept_inputs: Option<usize>,
    /// The graph inputs stay in the caller's memory (`Options::borrowed_inputs`).
    pub borrowed_inputs: bool,
    /// The chains of window ops run band by band (in execution order), when
    /// the budget needs them.
    pub tilings: Vec<tiling::Tiling>,
    /// With tiled stages: the arena of the best plan without them.
    pub untiled_arena: Option<usize>,
    /// Over an explicit limit even tiled: the smallest arena a tiled plan
    /// reached, and its stages.
    pub tiled_floor: Option<(usize, Vec<tiling::Tiling>)>,
    /// Arena buffers and their lifetimes.
    pub schedule: Schedule,
    /// Our plan (checked).
    pub plan: Plan,
    /// TFLM's greedy planner on TFLM's buffers (every tensor its own
    /// buffer, the model's op order).
    pub tflm_greedy: Plan,
    /// The buffers TFLM plans (for checking `tflm_greedy`).
    pub tflm_requests: Vec<schedule::Request>,
    /// Largest sum of aligned live sizes at one time step.
    pub lower_bound: usize,
    /// The TFLM time step at which that sum is reached.
    pub peak_step: usize,
    /// Offset of each variable tensor in the model's state memory (kept
    /// between invocations, outside the arena).
    pub state_offsets: Vec<Option<usize>>,
    /// (offset, bytes) of each op's own state in the state memory, after
    /// the variables (`Operator::state_bytes`), by node index.
    pub op_states: Vec<Option<(usize, usize)>>,
    /// Bytes of state memory (each variable and op state 16-aligned).
    pub state_size: usize,
    /// With `Options::regions`: the buffers split over the regions, each
    /// planned on its own. `None`: one arena, `plan`.
    pub regions: Option<regions::RegionPlan>,
    /// With `Options::copy_weights`: the ops whose weights are copied into
    /// a region, and where.
    pub weight_copy: Option<lowering::emit::CopyWeights>,
}

/// One row of the plan table.
#[derive(Clone, Debug)]
pub struct PlacementRow {
    /// Tensor name (aliases joined with " = ").
    pub name: String,
    /// Byte offset.
    pub offset: usize,
    /// Bytes.
    pub size: usize,
    /// First op index at which it is live.
    pub first_op: usize,
    /// Last op index at which it is live.
    pub last_op: usize,
    /// Buffer index in the schedule.
    pub buffer: usize,
    /// The memory region it is in (0 without regions).
    pub region: usize,
}

impl<'a> Analysis<'a> {
    /// (region, byte offset in that region) of tensor `t`, if it lives in
    /// the arena (region 0, the one arena, without regions).
    pub fn tensor_place(&self, t: usize) -> Option<(usize, usize)> {
        self.schedule.buffer_of.get(t).copied().flatten().map(|b| self.buffer_place(b))
    }

    /// (region, byte offset in that region) of buffer `b`.
    pub fn buffer_place(&self, b: usize) -> (usize, usize) {
        match &self.regions {
            Some(r) => r.places[b],
            None => (0, self.plan.offsets[b]),
        }
    }

    /// Bytes of each region's arena (one entry, the arena, without regions).
    pub fn region_sizes(&self) -> Vec<usize> {
        self.regions.as_ref().map_or_else(|| vec![self.plan.arena_size], regions::RegionPlan::sizes)
    }

    /// Bytes of activation memory over all regions: the arena without them.
    pub fn arena_total(&self) -> usize {
        self.region_sizes().iter().sum()
    }

    /// Execution position of a TFLM time step (step 0, before the first
    /// op, is position 0).
    pub fn op_of_step(&self, step: usize) -> usize {
        op_of_step(&self.graph, step)
    }

    /// The node run at execution position `pos`.
    pub fn node_at(&self, pos: usize) -> Option<&graph::Node<'a>> {
        self.order.get(pos).map(|&n| &self.graph.nodes[n])
    }

    /// Whether the ops run in another order than the model's.
    pub fn reordered(&self) -> bool {
        self.order.iter().enumerate().any(|(p, &n)| p != n)
    }

    /// The plan as rows, in buffer order.
    pub fn placements(&self) -> Vec<PlacementRow> {
        self.schedule
            .buffers
            .iter()
            .enumerate()
            .map(|(i, b)| PlacementRow {
                name: if b.tensors.is_empty() {
                    b.name.clone()
                } else {
                    b.tensors.iter().map(|&t| self.graph.tensors[t].name.as_str()).collect::<Vec<_>>().join(" = ")
                },
                offset: self.buffer_place(i).1,
                size: b.size,
                first_op: self.op_of_step(b.life.first),
                last_op: self.op_of_step(b.life.last),
                buffer: i,
                region: self.buffer_place(i).0,
            })
            .collect()
    }

    /// (dtype, shape) of a buffer for tables; scratch buffers say so.
    pub fn describe_buffer(&self, b: &schedule::Buffer) -> (String, String) {
        describe_buffer(&self.graph, b)
    }

    /// The variable tensors and op states in the state memory, with their
    /// sizes.
    pub fn state_names(&self) -> Vec<String> {
        let variables = self.state_offsets.iter().enumerate().filter(|(_, o)| o.is_some()).map(|(t, _)| {
            let resource = self.graph.resources.iter().any(|r| r.tensor == t);
            let t = &self.graph.tensors[t];
            format!("{}'{}' {}", if resource { "resource variable " } else { "" }, t.name, t.describe())
        });
        let ops = self.op_states.iter().enumerate().filter_map(|(n, s)| {
            let node = &self.graph.nodes[n];
            let what = if node.code == graph::codes::CALL_ONCE { "has-run flag" } else { "state" };
            s.map(|(_, bytes)| format!("{} {what}, {bytes} bytes", node.label()))
        });
        variables.chain(ops).collect()
    }

    /// One line per control-flow op (CALL_ONCE, IF, WHILE): the subgraphs
    /// it runs and at which execution positions their operators sit.
    pub fn control_flow_notes(&self) -> Vec<String> {
        use graph::codes;
        let mut notes = Vec::new();
        for (pos, &n) in self.order.iter().enumerate() {
            let node = &self.graph.nodes[n];
            let (kind, parts): (&str, &[&str]) = match node.code {
                codes::CALL_ONCE => ("runs", &["on the first invoke only"]),
                codes::IF => ("runs", &["if the condition holds", "otherwise"]),
                codes::WHILE => ("loops over", &["(condition)", "(body)"]),
                _ => continue,
            };
            let described: Vec<String> = parts
                .iter()
                .enumerate()
                .map(|(part, what)| {
                    let at: Vec<usize> = (0..self.order.len())
                        .filter(|&p| self.graph.nodes[self.order[p]].scopes.contains(&(n, part)))
                        .collect();
                    let sub = at.first().map_or(String::from("an empty subgraph"), |&p| {
                        format!("subgraph {}", self.graph.nodes[self.order[p]].subgraph)
                    });
                    match (at.first(), at.last()) {
                        (Some(first), Some(last)) => format!("{sub} (ops {first}..={last}) {what}"),
                        _ => format!("{sub} {what}"),
                    }
                })
                .collect();
            notes.push(format!("op {pos} ({}) {kind} {}", node.name, described.join(", ")));
        }
        notes
    }

    /// Multiply-accumulates per invoke.
    pub fn macs(&self) -> u64 {
        self.ops.iter().fold(0u64, |acc, o| acc.saturating_add(o.macs()))
    }

    /// Estimated Cortex-M4 cycles of each op per invoke, in execution order
    /// (`PLAN.ops`): its chosen variant's cost, and in a tiled stage what
    /// its recomputed rows and per-band calls add (`lowering::cost`).
    pub fn op_cycles(&self) -> Vec<u64> {
        let stages = self.tiled_stages();
        self.order
            .iter()
            .enumerate()
            .map(|(pos, &n)| {
                let extra = match stages.iter().find(|(_, at)| at.contains(&pos)) {
                    Some((t, at)) => t.op_extra_cost(pos - at.start, |m| self.choice[m].cost),
                    None => 0,
                };
                self.choice[n].cost + extra
            })
            .collect()
    }

    /// Each tiled stage with its execution positions.
    pub fn tiled_stages(&self) -> Vec<(&tiling::Tiling, std::ops::Range<usize>)> {
        self.tilings.iter().filter_map(|t| Some((t, t.positions(&self.order)?))).collect()
    }

    /// Estimated Cortex-M4 cycles per invoke: the sum of [`Analysis::op_cycles`].
    pub fn cycles(&self) -> u64 {
        self.op_cycles().iter().sum()
    }
}

/// How to plan.
#[derive(Clone, Debug)]
pub struct Options {
    /// Let ops write their output over their dying input where proven safe.
    pub in_place: bool,
    /// Keep the graph inputs' bytes intact through `invoke()` (by default,
    /// as in TFLM, an input's bytes are reused once its last reader ran).
    pub keep_inputs: bool,
    /// The RAM budget: kernel variants that need scratch are traded for
    /// slower ones without it, at the peak first, until the plan fits.
    /// `None`: TFLM's arena for the model (its greedy plan), so faster
    /// kernels never take more RAM than TFLM would; only an explicit limit
    /// the plan cannot meet is an error.
    pub arena_limit: Option<usize>,
    /// The graph inputs stay in the caller's memory: `invoke` takes them by
    /// reference and the ops read them there, so the arena holds none of
    /// their bytes (a camera frame or an audio buffer is not copied).
    pub borrowed_inputs: bool,
    /// The time budget: estimated Cortex-M4 cycles per invoke
    /// ([`Analysis::cycles`]) over it are a compile error naming the
    /// slowest ops.
    pub cycle_limit: Option<u64>,
    /// Several RAMs, fastest first, each with its budget and link section:
    /// the arena is split over them, the hottest buffers in the fastest
    /// (`regions`). Empty: one arena. The variant choice treats the sum of
    /// their budgets as `arena_limit`.
    pub regions: Vec<regions::Region>,
    /// `(region, bytes)`: copy the weights of the ops that read theirs
    /// the most times per invoke, up to `bytes` of them, from flash into
    /// that region when the model is made (`regions::WeightCopy`).
    pub copy_weights: Option<(String, usize)>,
    /// Plan for Helium (Cortex-M55/M85, the runtime's `helium` feature):
    /// ops with a vector kernel whose scratch or cost differ from their
    /// scalar kernels' take its variant ([`Operator::vector_variant`]:
    /// the depthwise layers, no ring of widened rows), so the arena is the
    /// vector kernels'. The generated code still runs on every target (the
    /// other targets take a kernel without scratch there). Those ops'
    /// estimates are then the vector kernels' Cortex-M55 cycles.
    pub helium: bool,
}

impl Options {
    /// Where the graph inputs live.
    pub fn inputs(&self) -> schedule::Inputs {
        match (self.borrowed_inputs, self.keep_inputs) {
            (true, _) => schedule::Inputs::Borrowed,
            (false, true) => schedule::Inputs::Kept,
            (false, false) => schedule::Inputs::Reused,
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            in_place: true,
            keep_inputs: false,
            arena_limit: None,
            borrowed_inputs: false,
            cycle_limit: None,
            regions: Vec::new(),
            copy_weights: None,
            helium: false,
        }
    }
}

impl Analysis<'_> {
    /// The smallest arena of the plain plan: its chosen kernels', or the
    /// scratch-free ones' where those need less.
    pub fn plain_arena(&self) -> usize {
        self.direct_arena.unwrap_or(self.plan.arena_size).min(self.plan.arena_size)
    }
}

/// The smallest arena a tiled plan of the model reaches with `opts`' other
/// options (`Analysis::tiled_floor` under the tightest budget); `None`
/// when no stage tiles or the model does not compile.
pub fn smallest_tiled_arena(bytes: &[u8], opts: &Options) -> Option<usize> {
    let tightest = Options { arena_limit: Some(1), regions: Vec::new(), ..opts.clone() };
    analyze_with(bytes, &tightest).ok()?.tiled_floor.map(|(arena, _)| arena)
}

/// Reads, checks and plans a model with the default options.
pub fn analyze(bytes: &[u8]) -> Result<Analysis<'_>, Error> {
    analyze_with(bytes, &Options::default())
}

/// Reads, checks and plans a model: read -> lower -> schedule and plan
/// (the policy in `plan::choose`) -> state layout.
pub fn analyze_with<'a>(bytes: &'a [u8], opts: &Options) -> Result<Analysis<'a>, Error> {
    let model = tflite::read(bytes)?;
    // Constants passed into a subgraph are folded into it unless an op
    // there wants that operand in memory (then every operand is copied).
    let lower = |fold| -> Result<(Graph<'a>, Vec<Box<dyn Operator>>), Error> {
        let graph = lowering::registry::read_graph(&model, fold)?;
        let ops = graph.nodes.iter().map(|n| lowering::registry::lower(&graph, n)).collect::<Result<Vec<_>, _>>()?;
        Ok((graph, ops))
    };
    let (graph, ops) = match lower(true) {
        Ok(lowered) => lowered,
        Err(_) => lower(false)?,
    };
    let orders = order::candidates(&graph);
    let variants: Vec<Vec<Variant>> = ops
        .iter()
        .zip(&graph.nodes)
        .map(|(o, n)| lowering::cost::variants(o.as_ref(), n, &graph, opts.helium))
        .collect();

    // TFLM runs the model's own order with its reference (direct) kernels,
    // and copies constants passed into a subgraph (the graph without folding).
    let tflm_requests = if graph.folded_operands {
        let (copied, copied_ops) = lower(false)?;
        let own: Vec<usize> = (0..copied.nodes.len()).collect();
        schedule::schedule(
            &copied,
            &copied_ops,
            &own,
            &plan::choose::plainest(&copied_ops.iter().map(|o| o.variants()).collect::<Vec<_>>()),
            schedule::Inputs::Reused,
        )?
        .tflm_requests
    } else {
        schedule::schedule(&graph, &ops, &orders[0], &plan::choose::plainest(&variants), schedule::Inputs::Reused)?
            .tflm_requests
    };
    let tflm_greedy = plan::plan_tflm_greedy(&tflm_requests);
    let region_budgets = (!opts.regions.is_empty()).then(|| opts.regions.iter().map(|r| r.budget).sum());
    let budget = opts.arena_limit.or(region_budgets).unwrap_or(tflm_greedy.arena_size);
    let plan::choose::Choice {
        choice,
        planned,
        tilings,
        untiled_arena,
        tiled_floor,
        direct_arena,
        arena_without_kept_inputs,
    } = plan::choose::choose(&graph, &ops, &orders, &variants, budget, opts)?;
    let plan::choose::Planned { order, schedule, plan } = planned;
    let requests = schedule.requests();
    plan::check(&requests, &plan).map_err(|e| Error::model(format!("internal error: invalid arena plan: {e}")))?;
    for t in &tilings {
        tiling::check(t).map_err(|e| Error::model(format!("internal error: invalid tiling: {e}")))?;
    }
    let (lower_bound, peak_step) = plan::lower_bound(&requests);
    let (state_offsets, variables_size) = state_layout(&graph);
    let mut state_size = variables_size;
    let op_states = ops
        .iter()
        .map(|o| {
            let bytes = o.state_bytes();
            (bytes > 0).then(|| {
                let at = state_size;
                state_size += bytes.div_ceil(16) * 16;
                (at, bytes)
            })
        })
        .collect();
    let macs: Vec<u64> = ops.iter().map(|o| o.macs()).collect();
    let regions = if opts.regions.is_empty() {
        None
    } else {
        let heat = regions::heat(&graph, &order, &macs, &schedule);

        // The weights' bytes come off their region's budget first.
        let mut budgets = opts.regions.clone();
        if let Some((name, bytes)) = &opts.copy_weights {
            let region = budgets.iter_mut().find(|r| &r.name == name).ok_or_else(|| {
                Error::copy_weights(format!("copy_weights names region `{name}`, which is not among the regions"))
            })?;
            region.budget = region.budget.checked_sub(*bytes).ok_or_else(|| {
                Error::copy_weights(format!(
                    "copy_weights asks for {bytes} bytes of region `{name}`, whose whole budget is {}",
                    region.budget
                ))
            })?;
        }
        let explain = |o: &regions::OverBudget| report::over_region_budget(&graph, &order, &schedule, o);
        let mut split = regions::assign(&requests, &heat, &budgets, &explain)?;
        split.regions = opts.regions.clone();
        Some(split)
    };
    let weight_copy = match (&opts.copy_weights, &regions) {
        (Some((name, bytes)), Some(split)) => {
            let region = split.regions.iter().position(|r| &r.name == name).unwrap_or(0);
            Some(regions::choose_weight_copy(&graph, &order, &macs, region, split.plans[region].arena_size, *bytes))
        }
        (Some(_), None) => return Err(Error::copy_weights("copy_weights needs `regions` (the region to copy into)")),
        _ => None,
    };
    Ok(Analysis {
        graph,
        ops,
        order,
        choice,
        variants,
        direct_arena,
        arena_without_kept_inputs,
        borrowed_inputs: opts.borrowed_inputs,
        tilings,
        untiled_arena,
        tiled_floor,
        schedule,
        plan,
        tflm_greedy,
        tflm_requests,
        lower_bound,
        peak_step,
        state_offsets,
        op_states,
        state_size,
        regions,
        weight_copy,
    })
}

/// Execution position of a TFLM time step of `graph` (step 0, before the
/// first op, is position 0).
pub fn op_of_step(graph: &Graph<'_>, step: usize) -> usize {
    step.saturating_sub(1).min(graph.nodes.len().saturating_sub(1))
}

/// (dtype, shape) of a buffer for tables; scratch buffers say so.
pub fn describe_buffer(graph: &Graph<'_>, b: &schedule::Buffer) -> (String, String) {
    match b.tensors.first() {
        Some(&t) => (graph.tensors[t].dtype.name(), format!("{:?}", graph.tensors[t].shape)),
        None => ("scratch".into(), String::new()),
    }
}

/// Lays the variable tensors that ops use out one after another, each
/// 16-aligned like the arena's buffers.
fn state_layout(graph: &Graph<'_>) -> (Vec<Option<usize>>, usize) {
    let used = |t: usize| graph.nodes.iter().any(|n| n.inputs.iter().flatten().chain(&n.outputs).any(|&u| u == t));
    let mut offsets = vec![None; graph.tensors.len()];
    let mut size = 0;
    for (t, tensor) in graph.tensors.iter().enumerate() {
        if tensor.is_variable && used(t) {
            offsets[t] = Some(size);
            size += tensor.bytes.div_ceil(16) * 16;
        }
    }
    (offsets, size)
}

/// The result of compiling a model.
pub struct Compiled {
    /// The generated items.
    pub tokens: TokenStream,
    /// Planned arena bytes.
    pub arena_size: usize,
    /// The plan report (the same text as the CLI prints).
    pub report: String,
    /// Bytes of constant data emitted to flash.
    pub weight_bytes: usize,
    /// Multiply-accumulates per invoke.
    pub macs: u64,
}

/// Compiles a model into Rust items, checking the arena against
/// `opts.arena_limit`.
pub fn compile(bytes: &[u8], target: &Target, opts: &Options) -> Result<Compiled, Error> {
    let arena_limit = opts.arena_limit;
    let a = analyze_with(bytes, opts)?;
    if let Some(limit) = arena_limit
        && opts.regions.is_empty()
        && a.plan.arena_size > limit
    {
        return Err(Error::arena_limit(report::over_budget(&a, limit)));
    }
    if let Some(limit) = opts.cycle_limit
        && a.cycles() > limit
    {
        return Err(Error::cycle_limit(report::over_cycle_budget(&a, limit)));
    }
    let ops = codegen::ops(&a)?;
    let weight_bytes = ops.weight_bytes;
    let copied = report::copied_weights(&a, ops.copies.as_ref());
    let sizes = codegen::model::region_bytes(&a, ops.copies.as_ref());
    let tokens = codegen::model::emit(&a, target, ops)?;
    Ok(Compiled {
        tokens,
        arena_size: sizes.iter().sum(),
        report: format!("{}{copied}{}", report::plan_table(&a), report::peak_analysis(&a, arena_limit)),
        weight_bytes,
        macs: a.macs(),
    })
}
