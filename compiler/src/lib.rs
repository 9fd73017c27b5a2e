//! # tinyaot-compiler
//!
//! The ahead-of-time compiler behind `tinyaot::include_model!`, as a plain
//! library (the proc macro, the CLI and the tests all call it):
//!
//! ```text
//! bytes --tflite::read--> verified flatbuffer --Graph::read--> Graph
//!       --ops::lower--> checked operators --schedule--> buffers + lifetimes
//!       --plan--> offsets --codegen--> Rust tokens
//! ```
//!
//! [`analyze`] runs everything up to the plan; [`compile`] also emits code.

pub mod codegen;
pub mod diag;
pub mod graph;
pub mod ops;
pub mod order;
pub mod plan;
pub mod quant;
pub mod report;
pub mod schedule;
pub mod tflite;

pub use codegen::model::Target;
pub use diag::{Error, Site};

use graph::Graph;
use ops::Operator;
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
    /// Arena buffers and their lifetimes.
    pub schedule: Schedule,
    /// Our plan (checked).
    pub plan: Plan,
    /// TFLM's greedy planner on TFLM's buffers (every tensor its own
    /// buffer, the model's op order).
    pub tflm_greedy: Plan,
    /// The buffers TFLM plans (for checking `tflm_greedy`).
    pub tflm_requests: Vec<plan::Request>,
    /// Largest sum of aligned live sizes at one time step.
    pub lower_bound: usize,
    /// The TFLM time step at which that sum is reached.
    pub peak_step: usize,
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
}

impl<'a> Analysis<'a> {
    /// Arena offset of tensor `t`, if it lives in the arena.
    pub fn tensor_offset(&self, t: usize) -> Option<usize> {
        self.schedule.buffer_of.get(t).copied().flatten().map(|b| self.plan.offsets[b])
    }

    /// Execution position of a TFLM time step (step 0, before the first
    /// op, is position 0).
    pub fn op_of_step(&self, step: usize) -> usize {
        step.saturating_sub(1).min(self.graph.nodes.len().saturating_sub(1))
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
                name: b.tensors.iter().map(|&t| self.graph.tensors[t].name.as_str()).collect::<Vec<_>>().join(" = "),
                offset: self.plan.offsets[i],
                size: b.size,
                first_op: self.op_of_step(b.life.first),
                last_op: self.op_of_step(b.life.last),
                buffer: i,
            })
            .collect()
    }

    /// Multiply-accumulates per invoke.
    pub fn macs(&self) -> u64 {
        self.ops.iter().fold(0u64, |acc, o| acc.saturating_add(o.macs()))
    }
}

/// Reads, checks and plans a model (in-place overlaps allowed).
pub fn analyze(bytes: &[u8]) -> Result<Analysis<'_>, Error> {
    analyze_with(bytes, true)
}

/// Reads, checks and plans a model; `in_place = false` plans every buffer
/// disjoint from every other live one (the classic problem).
pub fn analyze_with(bytes: &[u8], in_place: bool) -> Result<Analysis<'_>, Error> {
    let model = tflite::read(bytes)?;
    let graph = Graph::read(&model)?;
    let ops = graph.nodes.iter().map(|n| ops::lower(&graph, n)).collect::<Result<Vec<_>, _>>()?;
    // Every candidate order is scheduled; the most promising by lower bound
    // are planned; the smallest arena wins (the model's order on ties).
    let mut scheduled = Vec::new();
    let mut tflm_requests = Vec::new();
    for (k, order) in order::candidates(&graph).into_iter().enumerate() {
        let mut s = schedule::schedule(&graph, &ops, &order)?;
        if k == 0 {
            // TFLM runs the model's own order: its figure comes from that.
            tflm_requests = s.tflm_requests.clone();
        }
        if !in_place {
            s.overlaps.clear();
        }
        let bound = plan::lower_bound(&s.requests()).0;
        scheduled.push((bound, order, s));
    }
    // Stable: equal bounds keep the model's order first.
    scheduled.sort_by_key(|c| c.0);
    let mut best: Option<(Plan, Vec<usize>, Schedule)> = None;
    for (_, order, s) in scheduled.into_iter().take(3) {
        let p = plan::plan(&s.requests());
        let own = order.iter().enumerate().all(|(i, &n)| i == n);
        let better =
            best.as_ref().is_none_or(|(b, _, _)| p.arena_size < b.arena_size || (p.arena_size == b.arena_size && own));
        if better {
            best = Some((p, order, s));
        }
    }
    let Some((plan, order, schedule)) = best else {
        return Err(Error::model("internal error: no execution order"));
    };
    let requests = schedule.requests();
    plan::check(&requests, &plan).map_err(|e| Error::model(format!("internal error: invalid arena plan: {e}")))?;
    let tflm_greedy = plan::plan_tflm_greedy(&tflm_requests);
    let (lower_bound, peak_step) = plan::lower_bound(&requests);
    Ok(Analysis { graph, ops, order, schedule, plan, tflm_greedy, tflm_requests, lower_bound, peak_step })
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

/// Compiles a model into Rust items, checking the arena against `arena_limit`.
pub fn compile(bytes: &[u8], target: &Target, arena_limit: Option<usize>) -> Result<Compiled, Error> {
    let a = analyze_with(bytes, target.in_place)?;
    if let Some(limit) = arena_limit
        && a.plan.arena_size > limit
    {
        return Err(Error::arena_limit(report::over_budget(&a, limit)));
    }
    let offsets = (0..a.graph.tensors.len()).map(|t| a.tensor_offset(t)).collect();
    let mut emit = codegen::Emit::new(&a.graph, offsets);
    let mut calls = Vec::new();
    for &n in &a.order {
        let call = a.ops[n].emit(&mut emit)?;
        if !call.is_empty() {
            calls.push(quote::quote! { { #call } });
        }
    }
    let weight_bytes = emit.flash_bytes;
    let statics = emit.into_statics();
    let tokens = codegen::model::emit(&a, target, calls, statics, weight_bytes)?;
    Ok(Compiled {
        tokens,
        arena_size: a.plan.arena_size,
        report: format!("{}{}", report::plan_table(&a), report::peak_analysis(&a, arena_limit)),
        weight_bytes,
        macs: a.macs(),
    })
}
