//! Human-readable plan reports: the table the CLI prints, the rustdoc of
//! the generated type, and the over-budget compile error.

use crate::Analysis;
use crate::plan::align;
use std::fmt::Write;

impl Analysis<'_> {
    /// Markdown documentation for the generated type: I/O and the plan.
    pub fn rustdoc(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "A TFLite model compiled by `tinyaot::include_model!`.\n");
        let _ = writeln!(
            s,
            "Arena: **{} bytes** (lower bound {}, TFLM's greedy planner {}). {} ops, {} MACs per invoke.\n",
            self.plan.arena_size,
            self.lower_bound,
            self.tflm_greedy.arena_size,
            self.graph.nodes.len(),
            self.macs()
        );
        for (role, list) in [("Input", &self.graph.inputs), ("Output", &self.graph.outputs)] {
            for (i, &t) in list.iter().enumerate() {
                let t = &self.graph.tensors[t];
                let q = t.quant.as_ref().map(|q| format!(", scale {} zero point {}", q.scale(), q.zero_point())).unwrap_or_default();
                let _ = writeln!(s, "- {role} {i}: `{}` {}{q}", t.name, t.describe());
            }
        }
        let _ = writeln!(s, "\n| buffer | offset | bytes | ops |\n|---|---:|---:|---|");
        for p in self.placements() {
            let _ = writeln!(s, "| `{}` | {} | {} | {}..={} |", p.name, p.offset, p.size, p.first_op, p.last_op);
        }
        s
    }
}

/// The plan as a fixed-width table with the headline figures.
pub fn plan_table(a: &Analysis<'_>) -> String {
    let mut s = String::new();
    let rows = a.placements();
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(6).clamp(6, 48);
    let _ = writeln!(s, "{:<width$}  {:>8}  {:>8}  {:>7}  {:<16}", "buffer", "offset", "bytes", "ops", "tensor");
    for r in &rows {
        let b = &a.schedule.buffers[r.buffer];
        let t = &a.graph.tensors[b.tensors[0]];
        let name: String = r.name.chars().take(width).collect();
        let _ = writeln!(
            s,
            "{:<width$}  {:>8}  {:>8}  {:>3}..{:<3}  {}",
            name,
            r.offset,
            r.size,
            r.first_op,
            r.last_op,
            t.describe()
        );
    }
    let peak_op = a.op_of_step(a.peak_step);
    let _ = writeln!(s, "ARENA_SIZE   {} bytes ({})", a.plan.arena_size, a.plan.strategy);
    let _ = writeln!(s, "lower bound  {} bytes (live at op {peak_op}, {})", a.lower_bound, a.graph.nodes.get(peak_op).map_or("-", |n| n.name.as_str()));
    let _ = writeln!(s, "TFLM greedy  {} bytes", a.tflm_greedy.arena_size);
    s
}

/// The compile error for a plan over `limit` bytes: the peak, what is live
/// there, and what would help.
pub fn over_budget(a: &Analysis<'_>, limit: usize) -> String {
    let mut s = String::new();
    let need = a.plan.arena_size;
    let _ = writeln!(s, "model needs a {need}-byte arena, over the arena_limit of {limit} bytes by {} bytes", need - limit);
    let peak_op = a.op_of_step(a.peak_step);
    let node = &a.graph.nodes[peak_op.min(a.graph.nodes.len().saturating_sub(1))];
    let out = node.outputs.first().map(|&t| a.graph.tensors[t].name.as_str()).unwrap_or("-");
    let _ = writeln!(s, "peak: op {peak_op} ({}) writing '{out}'; live there:", node.name);
    let mut live: Vec<_> = a
        .schedule
        .buffers
        .iter()
        .filter(|b| b.life.first <= a.peak_step && a.peak_step <= b.life.last)
        .collect();
    live.sort_by(|x, y| y.size.cmp(&x.size));
    for b in live.iter().take(12) {
        let t = &a.graph.tensors[b.tensors[0]];
        let _ = writeln!(
            s,
            "  {:<32} {:<24} {:>8} B  ops {}..{}",
            b.name.chars().take(32).collect::<String>(),
            t.describe(),
            align(b.size),
            a.op_of_step(b.life.first),
            a.op_of_step(b.life.last)
        );
    }
    let _ = writeln!(s, "lower bound for these buffers: {} bytes", a.lower_bound);
    if a.lower_bound > limit {
        let _ = writeln!(s, "help: even a perfect plan needs {} bytes: the model itself must shrink at op {peak_op}", a.lower_bound);
    }
    if a.graph.tensors.iter().any(|t| t.dtype == crate::graph::DType::F32 && t.data.is_none()) {
        let _ = writeln!(s, "help: this is a float32 model; int8 quantization needs about 4x fewer activation bytes");
    }
    s
}
