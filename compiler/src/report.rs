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
                let q = t
                    .quant
                    .as_ref()
                    .map(|q| format!(", scale {} zero point {}", q.scale(), q.zero_point()))
                    .unwrap_or_default();
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
    let _ = writeln!(s, "{:<width$}  {:>8}  {:>8}  {:<8}  tensor", "buffer", "offset", "bytes", "  ops");
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
    let _ = writeln!(
        s,
        "lower bound  {} bytes (live at op {peak_op}, {})",
        a.lower_bound,
        a.graph.nodes.get(peak_op).map_or("-", |n| n.name.as_str())
    );
    let _ = writeln!(s, "TFLM greedy  {} bytes", a.tflm_greedy.arena_size);
    s
}

/// The compile error for a plan over `limit` bytes: the peak, what is live
/// there, and what would help.
pub fn over_budget(a: &Analysis<'_>, limit: usize) -> String {
    let mut s = String::new();
    let need = a.plan.arena_size;
    let _ =
        writeln!(s, "model needs a {need}-byte arena, over the arena_limit of {limit} bytes by {} bytes", need - limit);
    let peak_op = a.op_of_step(a.peak_step);
    let node = &a.graph.nodes[peak_op.min(a.graph.nodes.len().saturating_sub(1))];
    let out = node.outputs.first().map(|&t| a.graph.tensors[t].name.as_str()).unwrap_or("-");
    let _ = writeln!(s, "peak: op {peak_op} ({}) writing '{out}'; live there:", node.name);
    let mut live: Vec<_> =
        a.schedule.buffers.iter().filter(|b| b.life.first <= a.peak_step && a.peak_step <= b.life.last).collect();
    live.sort_by_key(|b| std::cmp::Reverse(b.size));
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
        let _ = writeln!(
            s,
            "help: even a perfect plan needs {} bytes: the model itself must shrink at op {peak_op}",
            a.lower_bound
        );
    }
    if a.graph.tensors.iter().any(|t| t.dtype == crate::graph::DType::F32 && t.data.is_none()) {
        let _ = writeln!(s, "help: this is a float32 model; int8 quantization needs about 4x fewer activation bytes");
    }
    s
}

/// A water-level chart of the plan as SVG: x is the op index, y the arena
/// offset; one rectangle per buffer over the ops where it is live; the peak
/// op is marked.
pub fn water_level_svg(a: &Analysis<'_>) -> String {
    let ops = a.graph.nodes.len().max(1);
    let arena = a.plan.arena_size.max(1) as f64;
    let (w, h, left, top, bottom) = (900.0, 520.0, 70.0, 30.0, 40.0);
    let col = (w - left - 20.0) / ops as f64;
    let y_of = |bytes: f64| top + (h - top - bottom) * (1.0 - bytes / arena);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="monospace" font-size="11">"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="18">arena {} B (lower bound {}, TFLM greedy {})</text>"#,
        a.plan.arena_size, a.lower_bound, a.tflm_greedy.arena_size
    );
    let peak = a.op_of_step(a.peak_step);
    let px = left + col * peak as f64;
    let _ =
        writeln!(s, r##"<rect x="{px:.1}" y="{top}" width="{col:.1}" height="{:.1}" fill="#fdd"/>"##, h - top - bottom);
    let palette = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"];
    for r in a.placements() {
        let x = left + col * r.first_op as f64;
        let width = col * (r.last_op - r.first_op + 1) as f64;
        let y1 = y_of((r.offset + align(r.size)) as f64);
        let y0 = y_of(r.offset as f64);
        let name: String = r.name.chars().take(40).collect();
        let name = name.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
        let _ = writeln!(
            s,
            r##"<rect x="{x:.1}" y="{y1:.1}" width="{width:.1}" height="{:.1}" fill="{}" fill-opacity="0.75" stroke="#333"><title>{name}: {} B at {}, ops {}..{}</title></rect>"##,
            (y0 - y1).max(1.0),
            palette[r.buffer % palette.len()],
            r.size,
            r.offset,
            r.first_op,
            r.last_op
        );
        if y0 - y1 > 12.0 && width > 60.0 {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" fill="white">{}</text>"#,
                x + 3.0,
                y1 + 12.0,
                name.chars().take((width / 7.0) as usize).collect::<String>()
            );
        }
    }
    let _ = writeln!(
        s,
        r##"<line x1="{left}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#000"/>"##,
        h - bottom,
        w - 20.0,
        h - bottom
    );
    let _ = writeln!(s, r##"<line x1="{left}" y1="{top}" x2="{left}" y2="{:.1}" stroke="#000"/>"##, h - bottom);
    for i in 0..ops {
        if ops <= 40 || i % (ops / 20).max(1) == 0 {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}">{i}</text>"#,
                left + col * (i as f64 + 0.3),
                h - bottom + 14.0
            );
        }
    }
    let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}">op index (peak at op {peak})</text>"#, left + 200.0, h - 8.0);
    for k in 0..=4 {
        let b = a.plan.arena_size * k / 4;
        let _ = writeln!(s, r#"<text x="4" y="{:.1}">{b}</text>"#, y_of(b as f64) + 4.0);
    }
    s.push_str("</svg>\n");
    s
}
