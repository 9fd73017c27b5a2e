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
            self.arena_total(),
            self.lower_bound,
            self.tflm_greedy.arena_size,
            self.graph.nodes.len(),
            self.macs()
        );
        if self.state_size > 0 {
            let _ = writeln!(
                s,
                "State: **{} bytes** kept between invocations, apart from the arena ({}); `reset()` clears it.\n",
                self.state_size,
                self.state_names().join(", ")
            );
        }
        for note in self.control_flow_notes() {
            let _ = writeln!(s, "Subgraphs: {note}; the ops columns below count their operators.\n");
        }
        if self.borrowed_inputs {
            let _ = writeln!(
                s,
                "Inputs are borrowed: `invoke` takes them by reference and reads them in place; they take no arena bytes.\n"
            );
        }
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
        for line in self.region_lines() {
            let _ = writeln!(s, "- Region {line}");
        }
        let names = self.region_names();
        let _ = writeln!(s, "\n| buffer | offset | bytes | ops |\n|---|---:|---:|---|");
        for p in self.placements() {
            let at = if names.len() > 1 { format!("{} +{}", names[p.region], p.offset) } else { p.offset.to_string() };
            let _ = writeln!(s, "| `{}` | {at} | {} | {}..={} |", p.name, p.size, p.first_op, p.last_op);
        }
        s
    }

    /// The regions' names (`arena` without regions).
    pub fn region_names(&self) -> Vec<String> {
        self.regions
            .as_ref()
            .map_or_else(|| vec!["arena".into()], |r| r.regions.iter().map(|r| r.name.clone()).collect())
    }

    /// One line per memory region (none without regions): its section,
    /// bytes of its budget, buffers, and the share of the bytes moved per
    /// invoke that go through it.
    pub fn region_lines(&self) -> Vec<String> {
        let Some(r) = &self.regions else { return Vec::new() };
        let traffic = r.traffic(&self.schedule.requests());
        let total: u64 = traffic.iter().sum::<u64>().max(1);
        r.regions
            .iter()
            .enumerate()
            .map(|(k, region)| {
                let section = region.section.as_deref().map(|s| format!(" ({s})")).unwrap_or_default();
                format!(
                    "`{}`{section}: {} of {} bytes, {} buffers, {}% of the bytes moved per invoke",
                    region.name,
                    r.plans[k].arena_size,
                    region.budget,
                    r.members[k].len(),
                    traffic[k] * 100 / total
                )
            })
            .collect()
    }
}

/// The plan as a fixed-width table with the headline figures.
pub fn plan_table(a: &Analysis<'_>) -> String {
    let mut s = String::new();
    let rows = a.placements();
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(6).clamp(6, 48);
    let names = a.region_names();
    let regions = names.len() > 1;
    let region_width = if regions { names.iter().map(String::len).max().unwrap_or(0).max(6) + 2 } else { 0 };
    let region_head = if regions { format!("{:<region_width$}", "region") } else { String::new() };
    let _ = writeln!(s, "{:<width$}  {region_head}{:>8}  {:>8}  {:<8}  tensor", "buffer", "offset", "bytes", "  ops");
    for r in &rows {
        let (dtype, shape) = a.describe_buffer(&a.schedule.buffers[r.buffer]);
        let name: String = r.name.chars().take(width).collect();
        let region = if regions { format!("{:<region_width$}", names[r.region]) } else { String::new() };
        let _ = writeln!(
            s,
            "{:<width$}  {region}{:>8}  {:>8}  {:>3}..{:<3}  {dtype}{shape}",
            name, r.offset, r.size, r.first_op, r.last_op,
        );
    }
    let peak_op = a.op_of_step(a.peak_step);
    if a.regions.is_some() {
        let _ = writeln!(
            s,
            "{:<12} {} bytes over {} (one arena would need {}, {})",
            // With copied weights ARENA_SIZE adds them (the `copy_weights` line).
            if a.weight_copy.is_some() { "activations" } else { "ARENA_SIZE" },
            a.arena_total(),
            if names.len() == 1 { "one region".to_string() } else { format!("{} regions", names.len()) },
            a.plan.arena_size,
            a.plan.strategy
        );
        for line in a.region_lines() {
            let _ = writeln!(s, "region       {}", line.replace('`', ""));
        }
    } else {
        let _ = writeln!(s, "ARENA_SIZE   {} bytes ({})", a.plan.arena_size, a.plan.strategy);
    }
    let _ = writeln!(
        s,
        "lower bound  {} bytes (live at op {peak_op}, {})",
        a.lower_bound,
        a.node_at(peak_op).map_or("-", |n| n.name.as_str())
    );
    let _ = writeln!(s, "TFLM greedy  {} bytes", a.tflm_greedy.arena_size);
    if a.state_size > 0 {
        let _ = writeln!(s, "STATE_SIZE   {} bytes ({})", a.state_size, a.state_names().join(", "));
    }
    for note in a.control_flow_notes() {
        let _ = writeln!(s, "subgraphs    {note}");
    }
    let fast: Vec<String> = a
        .order
        .iter()
        .enumerate()
        .filter(|&(_, &n)| Some(&a.choice[n]) != a.variants[n].first())
        .map(|(pos, &n)| {
            let v = &a.choice[n];
            format!("op {pos} {} ({} B scratch)", v.kernel.name(), v.scratch)
        })
        .collect();
    if let Some(direct) = a.direct_arena {
        let _ = writeln!(
            s,
            "kernels      {}; they cost {} bytes of arena over direct kernels ({direct})",
            fast.join(", "),
            a.plan.arena_size.saturating_sub(direct)
        );
    }
    if let Some(without) = a.arena_without_kept_inputs {
        let _ = writeln!(
            s,
            "keep_inputs  the inputs stay intact through invoke(): {} bytes of arena over reusing them ({without})",
            a.plan.arena_size.saturating_sub(without)
        );
    }
    if a.borrowed_inputs {
        let bytes: usize = a.graph.inputs.iter().map(|&t| a.graph.tensors[t].bytes).sum();
        let _ =
            writeln!(s, "inputs       borrowed: invoke() reads the caller's {bytes} bytes in place (not in the arena)");
    }
    for t in &a.tilings {
        let _ = writeln!(s, "tiled        {}", t.describe(&a.graph, &a.order, a.macs()));
    }
    if let Some(untiled) = a.untiled_arena.filter(|_| !a.tilings.is_empty()) {
        let stages = if a.tilings.len() == 1 { "the tiled stage" } else { "the tiled stages" };
        let _ = writeln!(s, "untiled      {untiled} bytes of arena without {stages}");
    }
    if a.reordered() {
        let _ = writeln!(s, "op order     {:?} (model op indices; the model's own order needs more arena)", a.order);
    }
    let _ = writeln!(s, "CYCLES_M4    {} estimated Cortex-M4 cycles per invoke ({})", a.cycles(), slowest(a, 3));
    s
}

/// The `n` slowest ops by estimate: "op 3 CONV_2D 1234567 (40%), ...".
fn slowest(a: &Analysis<'_>, n: usize) -> String {
    let cycles = a.op_cycles();
    let total = cycles.iter().sum::<u64>().max(1);
    let mut by_cost: Vec<usize> = (0..cycles.len()).collect();
    by_cost.sort_by_key(|&p| std::cmp::Reverse(cycles[p]));
    by_cost
        .iter()
        .take(n)
        .map(|&p| {
            let node = &a.graph.nodes[a.order[p]];
            format!("op {p} {} {} ({}%)", node.name, cycles[p], cycles[p] * 100 / total)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The compile error of a model whose estimate is over `cycle_limit`: the
/// estimate, the slowest ops with their kernels, and what would help
/// (faster kernels the arena budget left out, a tiled stage's recomputed
/// rows).
pub fn over_cycle_budget(a: &Analysis<'_>, limit: u64) -> String {
    let cycles = a.op_cycles();
    let total = cycles.iter().sum::<u64>();
    let over = total - limit;
    let mut s = format!(
        "the estimated {total} Cortex-M4 cycles per invoke are over cycle_limit = {limit} by {over} ({}%); \
         the estimate is the compiler's (CYCLES_M4: zero wait states, no cache misses; docs/speed.md)\n\nslowest ops:\n",
        (over * 100).div_ceil(limit.max(1))
    );
    let mut by_cost: Vec<usize> = (0..cycles.len()).collect();
    by_cost.sort_by_key(|&p| std::cmp::Reverse(cycles[p]));
    let mut helps = Vec::new();
    for &p in by_cost.iter().take(5) {
        let n = a.order[p];
        let node = &a.graph.nodes[n];
        let chosen = a.choice[n];
        let _ = writeln!(
            s,
            "  op {p} {} ({}:{}) {} cycles ({}%), {} kernel, {} MACs",
            node.name,
            node.subgraph,
            node.index,
            cycles[p],
            cycles[p] * 100 / total.max(1),
            chosen.kernel.name(),
            a.ops[n].macs()
        );
        if let Some(faster) = a.variants[n].iter().filter(|v| v.cost < chosen.cost).min_by_key(|v| v.cost) {
            helps.push(format!(
                "op {p} {} with the {} kernel: about {} cycles fewer, for {} bytes of scratch the arena budget leaves no room for (raise arena_limit)",
                node.name,
                faster.kernel.name(),
                chosen.cost - faster.cost,
                faster.scratch
            ));
        }
    }
    for (t, at) in a.tiled_stages() {
        let extra: u64 =
            at.clone().map(|p| cycles[p]).sum::<u64>() - at.clone().map(|p| a.choice[a.order[p]].cost).sum::<u64>();
        helps.push(format!(
            "the tiled stage (ops {}..={}) adds about {extra} cycles of recomputed rows and calls ({} MACs recomputed); a larger arena_limit needs fewer bands",
            at.start,
            at.end - 1,
            t.extra_macs
        ));
    }
    if helps.is_empty() {
        s.push_str(
            "\nevery op already runs its fastest kernel: only a smaller model (or a faster core) meets the limit\n",
        );
    } else {
        s.push_str("\nwhat would help:\n");
        for h in helps {
            let _ = writeln!(s, "  {h}");
        }
    }
    s
}

/// Shortens a tensor name for a table column.
/// The error of a last memory region over its budget: by how much, the op
/// at its peak, the buffers live there (the one-arena error's table), and
/// what would help.
pub fn over_region_budget(
    graph: &crate::graph::Graph<'_>,
    order: &[usize],
    schedule: &crate::schedule::Schedule,
    o: &crate::regions::OverBudget,
) -> String {
    let (need, budget) = (o.need, o.region.budget);
    let node = order.get(o.peak_op).map_or_else(String::new, |&n| format!(" ({})", graph.nodes[n].name));
    let rows: Vec<String> = o.live.iter().map(|&b| buffer_row(graph, &schedule.buffers[b])).collect();
    format!(
        "region `{}` needs {need} bytes, over its budget of {budget} by {} bytes ({}%): the faster regions \
         before it took what fits them\n\npeak of `{}` at op {}{node}: {} buffers live\n{}\
         help: give `{}` (or a faster region) more bytes, or add a region",
        o.region.name,
        need - budget,
        ((need - budget) * 100).div_ceil(budget.max(1)),
        o.region.name,
        o.peak_op,
        rows.len(),
        live_table(&rows),
        o.region.name
    )
}

/// A buffer as a row of the table of buffers live at a peak: aligned
/// bytes, dtype, shape, ops, name.
pub fn buffer_row(graph: &crate::graph::Graph<'_>, b: &crate::schedule::Buffer) -> String {
    let (dtype, shape) = crate::describe_buffer(graph, b);
    format!(
        "  {:>8}  {:<8} {:<18} {:<9} {}",
        align(b.size),
        dtype,
        shape,
        format!("{}..{}", crate::op_of_step(graph, b.life.first), crate::op_of_step(graph, b.life.last)),
        short(&b.name, 56)
    )
}

/// The table of the buffers live at a peak (`rows` biggest first): the
/// first 12 rows under their header.
pub fn live_table(rows: &[String]) -> String {
    let mut s = format!("  {:>8}  {:<8} {:<18} {:<9} tensor\n", "bytes", "dtype", "shape", "ops");
    for row in rows.iter().take(12) {
        s.push_str(row);
        s.push('\n');
    }
    if rows.len() > 12 {
        let _ = writeln!(s, "  ... and {} smaller buffers", rows.len() - 12);
    }
    s
}

fn short(name: &str, width: usize) -> String {
    if name.chars().count() <= width {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(width.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// The bottleneck analysis an engineer would do by hand: the peak op, every
/// buffer live there (biggest first), the lower bound, and what would help.
/// `limit` adds the verdict against a budget.
pub fn peak_analysis(a: &Analysis<'_>, limit: Option<usize>) -> String {
    let mut s = String::new();
    let peak_op = a.op_of_step(a.peak_step);
    let mut live: Vec<_> =
        a.schedule.buffers.iter().filter(|b| b.life.first <= a.peak_step && a.peak_step <= b.life.last).collect();
    live.sort_by_key(|b| std::cmp::Reverse(b.size));
    let live_bytes: usize = live.iter().map(|b| align(b.size)).sum();
    match a.node_at(peak_op) {
        Some(node) => {
            let out = node.outputs.first().map(|&t| a.graph.tensors[t].name.as_str()).unwrap_or("-");
            // An inlined subgraph's op is named by its subgraph too.
            let name = if node.subgraph == 0 { node.name.clone() } else { node.label() };
            let _ = writeln!(
                s,
                "peak at op {peak_op} ({name}, writing '{}'): {} buffers live, {live_bytes} bytes",
                short(out, 60),
                live.len()
            );
        }
        None => {
            let _ = writeln!(s, "the graph has no operators; its inputs and outputs: {live_bytes} bytes");
        }
    }
    let rows: Vec<String> = live.iter().map(|b| buffer_row(&a.graph, b)).collect();
    s.push_str(&live_table(&rows));
    for o in a.schedule.overlaps.iter().filter(|o| o.op + 1 == a.peak_step) {
        let reqs = a.schedule.requests();
        let shared = live_bytes.saturating_sub(crate::plan::lower_bound_at(&reqs, a.peak_step));
        let _ = writeln!(
            s,
            "  in place: op {} writes its output over the part of its input it has read ({shared} bytes shared)",
            o.op
        );
    }
    let scratch: Vec<_> = live.iter().filter(|b| b.scratch.is_some()).collect();
    if scratch.is_empty() {
        let _ = writeln!(s, "  scratch buffers: none live here");
    } else {
        for b in scratch {
            // Scratch of variant 0 is the op's only way to run.
            let needed = b.scratch.is_some_and(|pos| Some(&a.choice[a.order[pos]]) == a.variants[a.order[pos]].first());
            let why = if needed { "the op's only kernel" } else { "a fast kernel; its direct variant needs none" };
            let _ = writeln!(s, "  help: {} bytes are scratch of {why} ({})", align(b.size), b.name);
        }
    }
    let _ = write!(s, "lower bound: {} bytes (the most bytes live at any one op)", a.lower_bound);
    match limit {
        Some(l) if a.lower_bound > l => match &a.tiled_floor {
            Some((arena, stages)) => {
                let described: Vec<String> = stages.iter().map(|t| t.describe(&a.graph, &a.order, a.macs())).collect();
                let _ = writeln!(
                    s,
                    ": no plan fits {l} bytes, tiled or not; the smallest tiled plan needs {arena} bytes (tiled {})",
                    described.join("; and tiled ")
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    ": no plan fits {l} bytes and no chain of window ops can run tiled; the model itself must shrink"
                );
            }
        },
        Some(l) => {
            let _ = writeln!(s, ": a plan of {l} bytes is not ruled out, but none was found");
        }
        None => {
            let _ = writeln!(s);
        }
    }
    // What would help, from the numbers.
    if let Some((big, &t0)) = live.iter().find_map(|b| b.tensors.first().map(|t| (b, t))) {
        let t = &a.graph.tensors[t0];
        let producer = a.graph.nodes.iter().find(|n| n.outputs.contains(&t0));
        let channels = t.shape.last().copied().unwrap_or(1);
        let by = match producer {
            Some(n) => format!("{} writes", n.label()),
            None => "the graph input is".to_string(),
        };
        let _ = writeln!(
            s,
            "help: {by} the largest live buffer, {} {:?} = {} bytes; with half its {channels} channels it would save {} bytes",
            t.dtype.name(),
            t.shape,
            align(big.size),
            align(big.size) / 2
        );
    }
    let float_bytes: usize = live
        .iter()
        .filter(|b| b.tensors.first().is_some_and(|&t| a.graph.tensors[t].dtype == crate::graph::DType::F32))
        .map(|b| align(b.size))
        .sum();
    if float_bytes > 0 {
        let _ = writeln!(
            s,
            "help: {float_bytes} of these bytes are float32; an int8-quantized model needs about a quarter ({} bytes)",
            float_bytes / 4
        );
    }
    s
}

/// The compile error for a plan over `limit` bytes.
pub fn over_budget(a: &Analysis<'_>, limit: usize) -> String {
    let need = a.plan.arena_size;
    let over = need - limit;
    let mut s = format!(
        "the arena needs {need} bytes, over arena_limit = {limit} by {over} bytes ({}%)\n\n",
        (over * 100).div_ceil(limit.max(1))
    );
    s.push_str(&peak_analysis(a, Some(limit)));
    s
}

/// A water-level chart of the plan as SVG: x is the op index, y the arena
/// offset; one rectangle per buffer over the ops where it is live; the peak
/// op is marked.
pub fn water_level_svg(a: &Analysis<'_>) -> String {
    let ops = a.graph.nodes.len().max(1);
    let arena = a.arena_total().max(1) as f64;
    // Regions are stacked, the fastest at the bottom.
    let region_base: Vec<usize> = a
        .region_sizes()
        .iter()
        .scan(0, |at, &size| {
            let base = *at;
            *at += size;
            Some(base)
        })
        .collect();
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
        a.arena_total(),
        a.lower_bound,
        a.tflm_greedy.arena_size
    );
    let peak = a.op_of_step(a.peak_step);
    let px = left + col * peak as f64;
    let _ =
        writeln!(s, r##"<rect x="{px:.1}" y="{top}" width="{col:.1}" height="{:.1}" fill="#fdd"/>"##, h - top - bottom);
    // The tiled stage: a hatched-looking band behind its ops, labelled.
    for (t, at) in a.tiled_stages() {
        let x = left + col * at.start as f64;
        let width = col * at.len() as f64;
        let _ = writeln!(
            s,
            r##"<rect x="{x:.1}" y="{top}" width="{width:.1}" height="{:.1}" fill="#e8f0ff"><title>tiled: {}</title></rect>"##,
            h - top - bottom,
            t.describe(&a.graph, &a.order, a.macs()).replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
        );
        let _ = writeln!(s, r#"<text x="{x:.1}" y="{:.1}">tiled: {} bands</text>"#, top + 12.0, t.bands.len());
    }
    let palette = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"];
    for r in a.placements() {
        let x = left + col * r.first_op as f64;
        let width = col * (r.last_op - r.first_op + 1) as f64;
        let offset = region_base[r.region] + r.offset;
        let y1 = y_of((offset + align(r.size)) as f64);
        let y0 = y_of(offset as f64);
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
    // Ops of an inlined subgraph: a band under the axis, labelled at the
    // start of each run.
    let mut previous = 0;
    for (pos, &n) in a.order.iter().enumerate() {
        let sub = a.graph.nodes[n].subgraph;
        if sub != 0 {
            let x = left + col * pos as f64;
            let _ = writeln!(
                s,
                r##"<rect x="{x:.1}" y="{:.1}" width="{col:.1}" height="4" fill="#888"><title>subgraph {sub}</title></rect>"##,
                h - bottom + 18.0
            );
            if sub != previous {
                let _ = writeln!(s, r#"<text x="{x:.1}" y="{:.1}">sg{sub}</text>"#, h - bottom + 32.0);
            }
        }
        previous = sub;
    }
    let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}">op index (peak at op {peak})</text>"#, left + 200.0, h - 8.0);
    if a.regions.is_some() {
        for (name, &base) in a.region_names().iter().zip(&region_base) {
            let y = y_of(base as f64);
            let _ = writeln!(
                s,
                r##"<line x1="{left}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#000" stroke-dasharray="4 3"/>"##,
                w - 20.0
            );
            let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}">{name}</text>"#, w - 80.0, y - 3.0);
        }
    } else {
        for k in 0..=4 {
            let b = a.plan.arena_size * k / 4;
            let _ = writeln!(s, r#"<text x="4" y="{:.1}">{b}</text>"#, y_of(b as f64) + 4.0);
        }
    }
    s.push_str("</svg>\n");
    s
}

/// The `copy_weights` line of the plan report: what went into RAM, and the
/// weight reads it moves off flash (an op reads a weight per
/// multiply-accumulate); empty without `copy_weights`.
pub fn copied_weights(a: &Analysis<'_>, copies: Option<&(usize, Vec<crate::lowering::emit::Copied>)>) -> String {
    let (Some(plan), Some((region, copies))) = (&a.weight_copy, copies) else { return String::new() };
    let name = a.region_names().get(*region).cloned().unwrap_or_default();
    let bytes: usize = copies.iter().map(|c| align(c.len)).sum();
    let mut ops: Vec<usize> = copies.iter().map(|c| c.op).collect();
    ops.sort_unstable();
    ops.dedup();
    let macs = |pos: &usize| a.order.get(*pos).map_or(0, |&n| a.ops[n].macs());
    let moved: u64 = ops.iter().map(macs).sum();
    let total = a.macs().max(1);
    let listed: Vec<String> =
        ops.iter().map(|&p| format!("op {p} {}", a.node_at(p).map_or("-", |n| n.name.as_str()))).collect();
    let activations = a.region_sizes().get(*region).copied().unwrap_or(0);
    format!(
        "copy_weights {bytes} of {} bytes into {name} (its arena: {activations} bytes of activations, then these; \
         ARENA_SIZE {} bytes in all), copied from flash when the model is made (flash keeps them): \
         the constants of {}; those ops' {moved} of the {total} MACs per invoke ({}%) read their weight from RAM \
         (up to {} 32-bit weight loads per invoke off flash: up to that many cycles saved per flash wait state)\n",
        plan.budget,
        crate::codegen::model::region_bytes(a, Some(&(*region, copies.clone()))).iter().sum::<usize>(),
        if listed.is_empty() { "no op (none fits)".to_string() } else { listed.join(", ") },
        moved * 100 / total,
        moved.div_ceil(4)
    )
}
