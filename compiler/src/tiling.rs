//! Tiled execution: a stage of ops that compute rows of one image from
//! rows of their inputs (conv, depthwise, pool, elementwise ops such as a
//! residual ADD) run one band of output rows at a time, each band computed
//! from the input rows it needs (its halo included) through every op of the
//! stage, into the full output map of the stage's last op.
//!
//! The arithmetic of every output value is unchanged (each band is the
//! same kernel over fewer rows, with the band's own top padding; rows
//! below a band are simply not there), so outputs stay bit-exact. What
//! changes is memory: the maps inside the stage never exist whole, only the
//! rows one band needs, at the price of recomputing the rows where bands'
//! windows overlap. Bands span the full width, so every band of every map
//! is a run of whole rows: contiguous, read and written in place at const
//! offsets, with no copies.
//!
//! A tiling either recomputes the rows where bands' windows overlap, or
//! keeps them (the halo cache of StreamNet): each map inside then holds
//! its band buffer through the whole stage, and at the start of a band the
//! rows the previous band computed and this one reads again are moved to
//! the front of the buffer, so each row is computed once. Keeping costs the
//! buffers' lifetimes (they no longer share memory with each other) and a
//! copy of the kept rows per band; recomputing costs multiply-accumulates.
//!
//! The planner (`plan::choose`) tries tilings only when an explicit
//! `arena_limit` cannot be met otherwise, and takes the fitting one with
//! the fewest estimated cycles.

use crate::graph::Graph;
use crate::lowering::operator::{Operator, WindowOp};
use crate::lowering::window::Geometry;
use crate::schedule::{Lifetime, Overlap, Schedule};
use std::collections::HashMap;
use std::ops::Range;

/// One op of the stage over one band.
#[derive(Clone, Debug)]
pub struct BandOp {
    /// Rows of its inputs it reads (the same rows of each).
    pub input_rows: Range<usize>,
    /// Rows of its output map it writes.
    pub output_rows: Range<usize>,
    /// The geometry its kernel runs with: those rows, the band's top padding.
    pub geo: Geometry,
}

/// One band: each op over its rows, and the rows each map inside the stage
/// holds.
#[derive(Clone, Debug)]
pub struct Band {
    /// `ops[i]`: op `i` of the stage.
    pub ops: Vec<BandOp>,
    /// `held[j]`: the rows of map `Stage::inside[j]` this band holds (what
    /// its readers need): the first `kept[j]` kept from the previous band,
    /// the rest written by its writer in this band.
    pub held: Vec<Range<usize>>,
    /// `kept[j]`: rows of `held[j]` the previous band computed, moved to
    /// the front of the band buffer before this band's ops (0 unless the
    /// tiling keeps its halo).
    pub kept: Vec<usize>,
}

impl Band {
    /// The rows of map `Stage::inside[j]` this band's writer computes.
    pub fn computed(&self, j: usize) -> Range<usize> {
        self.held[j].start + self.kept[j]..self.held[j].end
    }
}

/// Ops that may run tiled together: a contiguous run of the execution order
/// whose maps, but the last op's output, are read only inside it.
#[derive(Clone, Debug)]
pub struct Stage {
    /// The nodes, in execution order.
    pub nodes: Vec<usize>,
    /// Their windows over the whole image.
    pub windows: Vec<WindowOp>,
    /// Maps read by the stage and written before it (whole, in the arena).
    pub inputs: Vec<usize>,
    /// Maps written and read only inside the stage (one band at a time).
    pub inside: Vec<usize>,
    /// The last op's output (whole, in the arena).
    pub output: usize,
}

/// A stage run band by band.
#[derive(Clone, Debug)]
pub struct Tiling {
    /// The ops and maps.
    pub stage: Stage,
    /// Output rows of the last op per band (the last band may be shorter).
    pub band_rows: usize,
    /// The bands, top to bottom.
    pub bands: Vec<Band>,
    /// Multiply-accumulates computed more than once (rows shared by bands).
    pub extra_macs: u64,
    /// Per op of the stage: output rows computed more than once.
    pub extra_rows: Vec<usize>,
    /// Whether rows shared by bands are kept between bands (moved to the
    /// front of their band buffers) rather than recomputed.
    pub keep_halo: bool,
    /// Bytes of kept rows moved per invoke.
    pub moved_bytes: u64,
    /// Whether the bands are driven by the first op (`band_rows` of its
    /// output rows per band, each later op over every row its inputs then
    /// allow: a row pipeline whose maps hold only the rows still to be
    /// read) rather than by the last op's output rows.
    pub streamed: bool,
}

/// Most ops in one stage (the search stays small on deep models; the
/// high-resolution stages worth tiling are a handful of blocks).
const MAX_STAGE_OPS: usize = 32;

/// Estimated Cortex-M4 cycles of one kernel call beyond its loops
/// (arguments, prologue, the per-call setup of its rows), charged per op
/// per band.
const CALL_COST: u64 = 100;

/// Estimated Cortex-M4 cycles per byte of kept rows moved to the front of
/// a band buffer (a word copy's load, store and loop share).
const MOVE_COST_PER_4_BYTES: u64 = 4;

/// Where a map's rows are while a band runs: the whole map, or the band's
/// rows at the start of the map's band buffer.
pub enum Rows {
    /// A stage input or the output: row `r` at `r * row_bytes`.
    Whole,
    /// A map inside the stage: row `r` at `(r - first) * row_bytes`.
    Band {
        /// The first row the band holds.
        first: usize,
    },
}

/// Bytes of one row of map `t` (an NHWC tensor of one image).
pub fn row_bytes(graph: &Graph<'_>, t: usize) -> usize {
    let tensor = &graph.tensors[t];
    tensor.bytes / tensor.shape.get(1).copied().unwrap_or(1).max(1)
}

impl Tiling {
    /// Where map `t`'s rows are in band `b`.
    pub fn rows_of(&self, b: usize, t: usize) -> Rows {
        match self.stage.inside.iter().position(|&u| u == t) {
            Some(j) => Rows::Band { first: self.bands[b].held[j].start },
            None => Rows::Whole,
        }
    }

    /// Bytes of the band buffer of map `stage.inside[j]`: its most rows in
    /// any band.
    pub fn band_bytes(&self, graph: &Graph<'_>, j: usize) -> usize {
        let rows = self.bands.iter().map(|band| band.held[j].len()).max().unwrap_or(0);
        rows * row_bytes(graph, self.stage.inside[j])
    }

    /// Execution positions of the stage in `order`, if it runs there as
    /// one contiguous run.
    pub fn positions(&self, order: &[usize]) -> Option<Range<usize>> {
        let nodes = &self.stage.nodes;
        let first = order.iter().position(|&n| n == nodes[0])?;
        let contiguous = nodes.iter().enumerate().all(|(i, &n)| order.get(first + i) == Some(&n));
        contiguous.then(|| first..first + nodes.len())
    }

    /// Makes `schedule` (for `order`) run the stage tiled: maps inside
    /// shrink to their band buffers, each live from its writer to its last
    /// reader as before (every band runs the ops in the same order and
    /// recomputes what it needs from the stage's inputs, so one band's
    /// buffers are dead before the next band writes them), or through the
    /// whole stage when the tiling keeps its halo; the stage's
    /// inputs live through the whole stage and its output from the stage's
    /// start; no op of the stage runs in place, but the output may overlap
    /// a dying input as far as the bands allow. `None` if the stage is not
    /// contiguous in `order`.
    pub fn apply(&self, graph: &Graph<'_>, order: &[usize], schedule: &mut Schedule) -> Option<()> {
        let at = self.positions(order)?;
        let stage = Lifetime { first: at.start + 1, last: at.end };
        // (A borrowed input has no buffer: it is in the caller's memory.)
        for &t in &self.stage.inputs {
            if let Some(b) = schedule.buffer_of[t] {
                let buffer = &mut schedule.buffers[b];
                buffer.life.last = buffer.life.last.max(stage.last);
            }
        }
        for (j, &t) in self.stage.inside.iter().enumerate() {
            let size = self.band_bytes(graph, j);
            let buffer = &mut schedule.buffers[schedule.buffer_of[t]?];
            buffer.size = size;
            // Kept rows must survive from one band to the next.
            if self.keep_halo {
                buffer.life.first = buffer.life.first.min(stage.first);
                buffer.life.last = buffer.life.last.max(stage.last);
            }
        }
        let output = schedule.buffer_of[self.stage.output]?;
        let born = &mut schedule.buffers[output].life;
        born.first = born.first.min(stage.first);
        schedule.overlaps.retain(|o| !at.contains(&o.op));
        // The stage's output over its one dying input: each band writes its
        // output rows after every op of the band ran, so only the input rows
        // later bands read must be intact.
        if let [t] = self.stage.inputs[..]
            && let Some(input) = schedule.buffer_of[t]
        {
            let dying = schedule.buffers[input].life.last == stage.last
                && !schedule.buffers[input].tensors.iter().any(|u| graph.outputs.contains(u));
            if dying && input != output && schedule.buffers[output].life.first == stage.first {
                let slack = self.output_slack(graph, t);
                schedule.overlaps.push(Overlap { op: at.end - 1, output, input, slack });
            }
        }
        Some(())
    }

    /// Largest `output offset - input offset` (bytes) at which the stage's
    /// output may overlap its input `input`: what band `b` writes must end
    /// before the first row of `input` a later band reads.
    pub fn output_slack(&self, graph: &Graph<'_>, input: usize) -> i64 {
        let last = self.stage.nodes.len() - 1;
        let (row_in, row_out) = (row_bytes(graph, input) as i64, row_bytes(graph, self.stage.output) as i64);
        let first_read = |band: &Band| {
            self.stage
                .windows
                .iter()
                .zip(&band.ops)
                .filter(|(w, op)| w.inputs.contains(&input) && !op.output_rows.is_empty())
                .map(|(_, op)| op.input_rows.start)
                .min()
                .unwrap_or(usize::MAX)
        };
        let mut slack = i64::MAX;
        for (b, band) in self.bands.iter().enumerate() {
            let later = self.bands[b + 1..].iter().map(first_read).min().unwrap_or(usize::MAX);
            if later != usize::MAX {
                slack = slack.min(later as i64 * row_in - band.ops[last].output_rows.end as i64 * row_out);
            }
        }
        if slack == i64::MAX { 0 } else { slack }
    }

    /// What running tiled adds to the estimated cost of the ops: each
    /// recomputed row at its op's cost per row (`cost[i]`: op `i`'s
    /// estimated cost with its chosen kernel), a call per op per band it
    /// computes rows in, and the moves of kept rows.
    pub fn extra_cost(&self, cost: impl Fn(usize) -> u64) -> u64 {
        (0..self.stage.nodes.len()).map(|i| self.op_extra_cost(i, &cost)).sum()
    }

    /// [`Tiling::extra_cost`]'s share of the stage's op `i` (the moves are
    /// the first op's).
    pub fn op_extra_cost(&self, i: usize, cost: impl Fn(usize) -> u64) -> u64 {
        let (w, extra) = (&self.stage.windows[i], self.extra_rows[i]);
        let calls = self.bands.iter().filter(|band| !band.ops[i].output_rows.is_empty()).count() as u64;
        let moves = if i == 0 { self.moved_bytes.div_ceil(4) * MOVE_COST_PER_4_BYTES } else { 0 };
        calls * CALL_COST + moves + cost(self.stage.nodes[i]) / w.geo.output[1].max(1) as u64 * extra as u64
    }

    /// The kept rows band `b` moves before its ops: per map inside
    /// (`Stage::inside[j]`) with rows to move, `(j, from, bytes)`: `bytes`
    /// bytes at `from` bytes into its band buffer go to its start
    /// (`row_bytes(t)`: the bytes of a row of map `t`).
    pub fn moves(&self, b: usize, row_bytes: impl Fn(usize) -> usize) -> Vec<(usize, usize, usize)> {
        let Some(prev) = b.checked_sub(1).map(|p| &self.bands[p]) else { return Vec::new() };
        let band = &self.bands[b];
        (0..self.stage.inside.len())
            .filter_map(|j| {
                let row = row_bytes(self.stage.inside[j]);
                let from = band.held[j].start.checked_sub(prev.held[j].start)? * row;
                (band.kept[j] > 0 && from > 0).then_some((j, from, band.kept[j] * row))
            })
            .collect()
    }

    /// One line for reports: which ops, how many bands, the halo, the band
    /// buffers and the recomputation.
    pub fn describe(&self, graph: &Graph<'_>, order: &[usize], macs: u64) -> String {
        let at = self.positions(order).unwrap_or(0..0);
        let (first, last) = (self.stage.nodes[0], self.stage.nodes[self.stage.nodes.len() - 1]);
        let height = graph.tensors[self.stage.output].shape.get(1).copied().unwrap_or(1);
        let buffers: Vec<String> =
            (0..self.stage.inside.len()).map(|j| self.band_bytes(graph, j).to_string()).collect();
        let reads: Vec<String> = self
            .stage
            .inputs
            .iter()
            .map(|&t| {
                let most = (0..self.bands.len())
                    .map(|b| {
                        let rows = self.stage.windows.iter().zip(&self.bands[b].ops);
                        let read = rows
                            .filter(|(w, op)| w.inputs.contains(&t) && !op.output_rows.is_empty())
                            .map(|(_, op)| op.input_rows.clone());
                        read.fold(None, |acc: Option<Range<usize>>, r| Some(hull(acc, &r))).map_or(0, |r| r.len())
                    })
                    .max()
                    .unwrap_or(0);
                let name = &graph.tensors[t].name;
                let name = if name.chars().count() > 40 {
                    format!("{}…", name.chars().take(39).collect::<String>())
                } else {
                    name.clone()
                };
                format!("{most} of the {} rows of '{name}'", graph.tensors[t].shape.get(1).copied().unwrap_or(1))
            })
            .collect();
        let percent = self.extra_macs as f64 * 100.0 / macs.max(1) as f64;
        let kept = if self.keep_halo {
            format!("; halo rows kept between bands ({} bytes moved)", self.moved_bytes)
        } else {
            String::new()
        };
        let bands = if self.streamed {
            let first_height = self.stage.windows[0].geo.output[1];
            format!(
                "streamed in {} bands of {} of the first op's {first_height} output rows (each later op over the rows its inputs allow)",
                self.bands.len(),
                self.band_rows
            )
        } else {
            format!("in {} bands of {} of the {height} output rows", self.bands.len(), self.band_rows)
        };
        format!(
            "ops {}..={} ({} .. {}) {bands}; a band reads at most {} (halo included); band buffers {} bytes{kept}; {} MACs recomputed (+{percent:.1}%)",
            at.start,
            at.end.saturating_sub(1),
            graph.nodes[first].name,
            graph.nodes[last].name,
            reads.join(", "),
            if buffers.is_empty() { "none".to_string() } else { buffers.join(" + ") },
            self.extra_macs,
        )
    }
}

/// The smallest range holding `acc` and `r`.
fn hull(acc: Option<Range<usize>>, r: &Range<usize>) -> Range<usize> {
    match acc {
        Some(a) => a.start.min(r.start)..a.end.max(r.end),
        None => r.clone(),
    }
}

/// Every stage of `order`: each contiguous run of two or more window ops
/// (single images, top-level) in which every map an op writes, but the
/// last op's output, is read only inside the run and is no graph output.
pub fn stages(graph: &Graph<'_>, ops: &[Box<dyn Operator>], order: &[usize]) -> Vec<Stage> {
    let in_arena = |t: usize| {
        let tensor = &graph.tensors[t];
        tensor.data.is_none() && !tensor.is_variable
    };
    let window = |n: usize| {
        ops[n].window().filter(|w| {
            w.geo.input[0] == 1
                && graph.nodes[n].scopes.is_empty()
                && w.inputs.iter().all(|&t| in_arena(t))
                && in_arena(w.output)
        })
    };
    let windows: Vec<Option<WindowOp>> = order.iter().map(|&n| window(n)).collect();
    let mut readers: HashMap<usize, Vec<usize>> = HashMap::new();
    for (n, node) in graph.nodes.iter().enumerate() {
        for &t in node.inputs.iter().flatten() {
            readers.entry(t).or_default().push(n);
        }
    }
    let mut stages = Vec::new();
    for start in 0..order.len() {
        if windows[start].is_none() {
            continue;
        }
        for end in start + 2..=order.len().min(start + MAX_STAGE_OPS) {
            if windows[end - 1].is_none() {
                break;
            }
            let nodes = &order[start..end];
            let ws: Vec<WindowOp> = windows[start..end].iter().flatten().cloned().collect();
            let output = ws[ws.len() - 1].output;
            let written: Vec<usize> = ws.iter().map(|w| w.output).collect();
            let closed = written.iter().filter(|&&t| t != output).all(|t| {
                !graph.outputs.contains(t) && readers.get(t).is_none_or(|r| r.iter().all(|n| nodes.contains(n)))
            });
            if !closed {
                continue;
            }
            let mut inputs: Vec<usize> = Vec::new();
            for w in &ws {
                for &t in &w.inputs {
                    if !written.contains(&t) && !inputs.contains(&t) {
                        inputs.push(t);
                    }
                }
            }
            let inside = written.into_iter().filter(|&t| t != output).collect();
            stages.push(Stage { nodes: nodes.to_vec(), windows: ws, inputs, inside, output });
        }
    }
    stages
}

/// The input rows the output rows `rows` of a window op read (every tap
/// inside the input; with dilation the first and last rows may come from
/// different outputs), and the top padding that puts the first output
/// row's window origin where it is in the whole image.
fn input_rows(geo: &Geometry, rows: &Range<usize>) -> Option<(Range<usize>, usize)> {
    let (stride, pad, dilation) = (geo.stride[0] as i64, geo.pad[0] as i64, geo.dilation[0] as i64);
    let height = geo.input[1] as i64;
    let taps = |y: usize| {
        let origin = y as i64 * stride - pad;
        (0..geo.kernel[0] as i64).map(move |k| origin + k * dilation).filter(|&r| (0..height).contains(&r))
    };
    let from = rows.clone().filter_map(|y| taps(y).next()).min()?;
    let to = rows.clone().filter_map(|y| taps(y).next_back()).max()? + 1;
    let origin = rows.start as i64 * stride - pad;
    (from >= origin).then(|| (from as usize..to as usize, (from - origin) as usize))
}

/// `stage` run in bands of `band_rows` output rows of its last op, its
/// halo kept between bands or recomputed; `None` if that is no tiling (one
/// band) or a band would read no rows.
pub fn tile(stage: &Stage, ops: &[Box<dyn Operator>], band_rows: usize, keep_halo: bool) -> Option<Tiling> {
    let height = stage.windows.last()?.geo.output[1];
    if band_rows == 0 || band_rows >= height {
        return None;
    }
    let mut bands: Vec<Band> = Vec::new();
    for start in (0..height).step_by(band_rows) {
        let prev = bands.last();
        // Back from the output: each op writes the rows its readers need,
        // less those the previous band left in the map's buffer.
        let mut need: HashMap<usize, Range<usize>> = HashMap::new();
        need.insert(stage.output, start..(start + band_rows).min(height));
        let mut kept = vec![0; stage.inside.len()];
        let mut held = vec![0..0; stage.inside.len()];
        let mut band_ops = Vec::with_capacity(stage.windows.len());
        for w in stage.windows.iter().rev() {
            let inside = stage.inside.iter().position(|&t| t == w.output);
            let rows = match (inside, prev) {
                (Some(j), Some(prev)) if keep_halo => {
                    let before = &prev.held[j];
                    // A map no op reads in this band keeps what it holds.
                    let now = need.get(&w.output).cloned().unwrap_or_else(|| before.clone());
                    if now.start < before.start {
                        return None;
                    }
                    // Rows held before and still at or after the band's
                    // first stay held, needed now or later.
                    kept[j] = before.end.saturating_sub(now.start);
                    held[j] = now.start..now.end.max(before.end);
                    now.start + kept[j]..held[j].end
                }
                (Some(j), _) => {
                    held[j] = need.get(&w.output)?.clone();
                    held[j].clone()
                }
                (None, _) => need.get(&w.output)?.clone(),
            };
            if rows.is_empty() {
                band_ops.push(BandOp { input_rows: 0..0, output_rows: rows, geo: w.geo });
                continue;
            }
            let (input_rows, pad_top) = input_rows(&w.geo, &rows)?;
            for &t in &w.inputs {
                let needed = hull(need.get(&t).cloned(), &input_rows);
                need.insert(t, needed);
            }
            let mut geo = w.geo;
            geo.input[1] = input_rows.len();
            geo.output[1] = rows.len();
            geo.pad[0] = pad_top;
            band_ops.push(BandOp { input_rows, output_rows: rows, geo });
        }
        band_ops.reverse();
        bands.push(Band { ops: band_ops, held, kept });
    }
    let extra_rows: Vec<usize> = (0..stage.windows.len())
        .map(|i| {
            let computed: usize = bands.iter().map(|band| band.ops[i].output_rows.len()).sum();
            computed.saturating_sub(stage.windows[i].geo.output[1])
        })
        .collect();
    let extra_macs = stage
        .windows
        .iter()
        .zip(&extra_rows)
        .enumerate()
        .map(|(i, (w, &extra))| ops[stage.nodes[i]].macs() / w.geo.output[1].max(1) as u64 * extra as u64)
        .sum();
    // Keeping nothing is recomputing nothing: the plain tiling.
    if keep_halo && bands.iter().all(|band| band.kept.iter().all(|&k| k == 0)) {
        return None;
    }
    Some(Tiling {
        stage: stage.clone(),
        band_rows,
        bands,
        extra_macs,
        extra_rows,
        keep_halo,
        moved_bytes: 0,
        streamed: false,
    })
}

/// `stage` streamed in bands of `step` output rows of its first op: in
/// each band every later op computes every row its inputs then allow (none
/// twice), and each map inside holds the rows its readers still need, kept
/// from band to band: a row pipeline whose maps are a few rows each. `None`
/// if that is one band or the pipeline stalls.
pub fn stream(stage: &Stage, step: usize) -> Option<Tiling> {
    let n = stage.windows.len();
    let heights: Vec<usize> = stage.windows.iter().map(|w| w.geo.output[1]).collect();
    if step == 0 || step >= heights[0] {
        return None;
    }
    let writer =
        |t: usize| stage.inside.contains(&t).then(|| stage.windows.iter().position(|w| w.output == t)).flatten();
    // An op reading stage inputs only advances with the first.
    let paced: Vec<bool> = stage.windows.iter().map(|w| w.inputs.iter().all(|&t| writer(t).is_none())).collect();
    // The end of the input rows output rows `rows` read (0: padding only).
    let reads_to = |i: usize, rows: Range<usize>| input_rows(&stage.windows[i].geo, &rows).map_or(0, |(r, _)| r.end);
    let mut done = vec![0usize; n];
    let mut bands: Vec<Band> = Vec::new();
    let most_bands = heights.iter().sum::<usize>() + 1;
    while done[n - 1] < heights[n - 1] {
        if bands.len() > most_bands {
            return None;
        }
        let b = bands.len();
        let before = done.clone();
        let mut band_ops = Vec::with_capacity(n);
        for (i, w) in stage.windows.iter().enumerate() {
            let h = heights[i];
            // At the first op's pace: rows at the end come one band at a
            // time, not in a burst that would hold them all at once.
            let rate = (step * h).div_ceil(heights[0]).max(1);
            let mut end = if paced[i] { ((b + 1) * step * h).div_ceil(heights[0]) } else { done[i] + rate }.min(h);
            // Rows of top padding only come with the first row that reads.
            while end < h && input_rows(&w.geo, &(done[i]..end)).is_none() {
                end += 1;
            }
            for &t in &w.inputs {
                if let Some(k) = writer(t) {
                    while end > done[i] && reads_to(i, done[i]..end) > done[k] {
                        end -= 1;
                    }
                }
            }
            // Rows below that read padding only come with the last rows
            // that read something; rows above, with the first.
            if end > done[i] && end < h && input_rows(&w.geo, &(end..h)).is_none() {
                end = h;
            }
            let rows = done[i]..end;
            match (!rows.is_empty()).then(|| input_rows(&w.geo, &rows)).flatten() {
                Some((input_rows, pad_top)) => {
                    let mut geo = w.geo;
                    geo.input[1] = input_rows.len();
                    geo.output[1] = rows.len();
                    geo.pad[0] = pad_top;
                    band_ops.push(BandOp { input_rows, output_rows: rows, geo });
                    done[i] = end;
                }
                None => band_ops.push(BandOp { input_rows: 0..0, output_rows: done[i]..done[i], geo: w.geo }),
            }
        }
        if done == before {
            return None;
        }
        // Each map holds, from the first row a reader reads in this band or
        // later (with dilation a later row may read an earlier one), to its
        // writer's last row.
        let mut held = Vec::with_capacity(stage.inside.len());
        let mut kept = Vec::with_capacity(stage.inside.len());
        for &t in &stage.inside {
            let k = writer(t)?;
            let first = stage
                .windows
                .iter()
                .enumerate()
                .filter(|(_, w)| w.inputs.contains(&t))
                .filter_map(|(i, w)| input_rows(&w.geo, &(before[i]..heights[i])).map(|(r, _)| r.start))
                .min()
                .unwrap_or(done[k]);
            let start = first.min(before[k]);
            held.push(start..done[k]);
            kept.push(before[k] - start);
        }
        bands.push(Band { ops: band_ops, held, kept });
    }
    let extra_rows = vec![0; n];
    Some(Tiling {
        stage: stage.clone(),
        band_rows: step,
        bands,
        extra_macs: 0,
        extra_rows,
        keep_halo: true,
        moved_bytes: 0,
        streamed: true,
    })
}

/// First-op rows per band of the streamed tilings tried per stage.
const STREAM_STEPS: [usize; 4] = [1, 2, 4, 8];

/// Band counts tried per stage: every distinct count up to 16, then a
/// coarser set (the search stays small on tall images).
fn band_heights(height: usize) -> Vec<usize> {
    let mut heights: Vec<usize> = Vec::new();
    let mut last_count = 0;
    for band_rows in (1..height).rev() {
        let count = height.div_ceil(band_rows);
        if count == last_count || (count > 16 && !count.is_power_of_two() && count % 12 != 0 && band_rows > 1) {
            continue;
        }
        last_count = count;
        heights.push(band_rows);
    }
    heights
}

/// Every tiling the planner may consider: each stage that runs the op at
/// execution position `covering` (the peak; `None`: no op can help) in bands
/// of each height of `band_heights`, fewest recomputed multiply-accumulates
/// first.
pub fn candidates(
    graph: &Graph<'_>,
    ops: &[Box<dyn Operator>],
    order: &[usize],
    covering: Option<usize>,
) -> Vec<Tiling> {
    let Some(covering) = covering else { return Vec::new() };
    let mut all = Vec::new();
    for stage in stages(graph, ops, order) {
        let first = order.iter().position(|&n| n == stage.nodes[0]).unwrap_or(usize::MAX);
        if !(first..first.saturating_add(stage.nodes.len())).contains(&covering) {
            continue;
        }
        let height = stage.windows[stage.windows.len() - 1].geo.output[1];
        for band_rows in band_heights(height) {
            all.extend([tile(&stage, ops, band_rows, false), tile(&stage, ops, band_rows, true)].into_iter().flatten());
        }
        all.extend(STREAM_STEPS.iter().filter_map(|&step| stream(&stage, step)));
    }
    for t in &mut all {
        t.moved_bytes =
            (0..t.bands.len()).flat_map(|b| t.moves(b, |u| row_bytes(graph, u))).map(|(_, _, n)| n as u64).sum();
    }
    all.sort_by_key(|t| (t.extra_macs, t.bands.len(), std::cmp::Reverse(t.stage.nodes.len())));
    all
}

/// Checks a tiling's invariants: the last op's bands write its output rows
/// once each, in order, all of them; in every band each op that computes
/// rows reads exactly the rows its window needs, which the map's band holds
/// (written by its writer earlier in that band or kept from the previous
/// band, or the whole map for a stage input), with a geometry of those
/// rows; each map inside is written with exactly the rows its band holds
/// less the kept ones, and kept rows are rows the previous band held (none
/// unless the tiling keeps its halo).
pub fn check(t: &Tiling) -> Result<(), String> {
    let stage = &t.stage;
    let last = stage.nodes.len() - 1;
    let height = stage.windows[last].geo.output[1];
    let mut next = 0;
    for (b, band) in t.bands.iter().enumerate() {
        if band.ops.len() != stage.nodes.len()
            || band.held.len() != stage.inside.len()
            || band.kept.len() != stage.inside.len()
        {
            return Err(format!("band {b} does not cover the stage"));
        }
        if band.ops[last].output_rows.start != next || (band.ops[last].output_rows.is_empty() && !t.streamed) {
            return Err(format!("band {b} writes rows from {}, not {next}", band.ops[last].output_rows.start));
        }
        next = band.ops[last].output_rows.end;
        for j in 0..stage.inside.len() {
            let (held, kept) = (&band.held[j], band.kept[j]);
            let writer = stage.windows.iter().position(|v| v.output == stage.inside[j]);
            if writer.is_none_or(|k| band.ops[k].output_rows != band.computed(j)) {
                return Err(format!("band {b} writes other rows of map {j} than it holds and does not keep"));
            }
            if kept == 0 {
                continue;
            }
            let prev = b.checked_sub(1).map(|p| &t.bands[p].held[j]);
            if !t.keep_halo
                || kept > held.len()
                || prev.is_none_or(|p| p.start > held.start || held.start + kept > p.end)
            {
                return Err(format!("band {b} keeps rows of map {j} the previous band did not hold"));
            }
        }
        for (i, (w, op)) in stage.windows.iter().zip(&band.ops).enumerate() {
            if op.output_rows.is_empty() {
                continue;
            }
            if input_rows(&w.geo, &op.output_rows) != Some((op.input_rows.clone(), op.geo.pad[0])) {
                return Err(format!("band {b}: op {i} reads rows {:?}, not the rows its window needs", op.input_rows));
            }
            if op.geo.input[1] != op.input_rows.len() || op.geo.output[1] != op.output_rows.len() {
                return Err(format!("band {b}: op {i}'s geometry does not match its rows"));
            }
            for &input in &w.inputs {
                if let Some(j) = stage.inside.iter().position(|&u| u == input) {
                    let held = &band.held[j];
                    if op.input_rows.start < held.start || op.input_rows.end > held.end {
                        return Err(format!("band {b}: op {i} reads rows {:?} its band does not hold", op.input_rows));
                    }
                    let writer = stage.windows.iter().position(|v| v.output == input);
                    if writer.is_none_or(|k| k >= i || (band.ops[k].output_rows != band.computed(j))) {
                        return Err(format!("band {b}: op {i} reads a map not written before it in the band"));
                    }
                }
            }
        }
    }
    if next != height {
        return Err(format!("the bands write {next} rows of the stage's {height}-row output"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Error;
    use crate::lowering::emit::Emit;
    use proc_macro2::TokenStream;

    /// An op that is only its MAC count (what `tile` asks of operators).
    #[derive(Debug)]
    struct Macs(u64);

    impl Operator for Macs {
        fn emit(&self, _: &mut Emit<'_>) -> Result<TokenStream, Error> {
            Ok(TokenStream::new())
        }
        fn macs(&self) -> u64 {
            self.0
        }
    }

    /// A window op's geometry as TFLite computes it: SAME pads half the
    /// overhang on top, VALID none.
    fn geometry(height: usize, kernel: usize, stride: usize, dilation: usize, same: bool) -> Option<Geometry> {
        let reach = (kernel - 1) * dilation + 1;
        let out = if same { height.div_ceil(stride) } else { height.checked_sub(reach)? / stride + 1 };
        let pad = if same { ((out - 1) * stride + reach).saturating_sub(height) / 2 } else { 0 };
        Some(Geometry {
            input: [1, height, 3, 2],
            output: [1, out, 3, 2],
            kernel: [kernel, 1],
            stride: [stride, 1],
            dilation: [dilation, 1],
            pad: [pad, 0],
        })
    }

    /// Every band of random chains, every band height: the invariants hold,
    /// and each band reads exactly the rows its outputs' taps touch (found
    /// by walking every tap), with a top padding that puts each window's
    /// origin where it is in the whole image.
    #[test]
    fn bands_read_exactly_the_rows_their_windows_touch() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut draw = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let (mut tilings, mut kept_tilings, mut streamed) = (0, 0, 0);
        for _ in 0..300 {
            let mut height = 5 + draw(40);
            let mut windows = Vec::new();
            let mut ops: Vec<Box<dyn Operator>> = Vec::new();
            for i in 0..2 + draw(4) {
                let (kernel, stride) = (1 + draw(5), 1 + draw(3));
                let dilation = if stride == 1 { 1 + draw(3) } else { 1 };
                let Some(geo) = geometry(height, kernel, stride, dilation, draw(3) > 0) else { break };
                windows.push(WindowOp { inputs: vec![i], output: i + 1, geo });
                ops.push(Box::new(Macs(geo.output[1] as u64 * 7)));
                height = geo.output[1];
            }
            if windows.len() < 2 {
                continue;
            }
            let n = windows.len();
            let stage =
                Stage { nodes: (0..n).collect(), windows, inputs: vec![0], inside: (1..n).collect(), output: n };
            let first_height = stage.windows[0].geo.output[1];
            let tiled = (1..height).flat_map(|r| [tile(&stage, &ops, r, false), tile(&stage, &ops, r, true)]);
            for t in tiled.chain((1..first_height).map(|step| stream(&stage, step))).flatten() {
                tilings += 1;
                streamed += usize::from(t.streamed);
                check(&t).unwrap();
                run_rows(&t);
                if t.keep_halo {
                    kept_tilings += 1;
                    assert_eq!(t.extra_macs, 0, "a tiling that keeps its halo recomputes nothing");
                }
                for band in &t.bands {
                    for (op, w) in band.ops.iter().zip(&stage.windows).filter(|(op, _)| !op.output_rows.is_empty()) {
                        let g = &w.geo;
                        let touched: Vec<usize> = op
                            .output_rows
                            .clone()
                            .flat_map(|y| (0..g.kernel[0]).map(move |k| (y * g.stride[0] + k * g.dilation[0]) as i64))
                            .map(|row| row - g.pad[0] as i64)
                            .filter(|&row| row >= 0 && row < g.input[1] as i64)
                            .map(|row| row as usize)
                            .collect();
                        let (lo, hi) = (touched.iter().min().unwrap(), touched.iter().max().unwrap());
                        assert_eq!(op.input_rows, *lo..hi + 1);
                        let origin = op.output_rows.start as i64 * g.stride[0] as i64 - g.pad[0] as i64;
                        assert_eq!(op.input_rows.start as i64 - op.geo.pad[0] as i64, origin);
                    }
                }
                // No op writes a row twice, but where bands recompute.
                assert_eq!(t.bands.iter().map(|b| b.ops[n - 1].output_rows.len()).sum::<usize>(), height);
                if t.keep_halo {
                    for (i, w) in stage.windows.iter().enumerate() {
                        let rows: usize = t.bands.iter().map(|b| b.ops[i].output_rows.len()).sum();
                        // (Rows no reader reads may be left out.)
                        assert!(rows <= w.geo.output[1], "op {i} of a tiling that keeps its halo: {rows} rows");
                    }
                }
            }
        }
        assert!(
            tilings > 1000 && kept_tilings > 500 && streamed > 300,
            "only {tilings} tilings drawn, {kept_tilings} keeping their halo, {streamed} streamed"
        );
    }

    /// Runs a tiling's bands over buffers of row numbers, as the generated
    /// code runs them over bytes: each band buffer as large as its most
    /// held rows, the kept rows moved to its front (`Tiling::moves`, one
    /// row a byte), then each op reading rows that must be there and
    /// writing its rows at their offsets; the stage's output gets each row
    /// exactly once.
    fn run_rows(t: &Tiling) {
        let stage = &t.stage;
        let capacity: Vec<usize> =
            (0..stage.inside.len()).map(|j| t.bands.iter().map(|b| b.held[j].len()).max().unwrap_or(0)).collect();
        let mut buffers: Vec<Vec<Option<usize>>> = capacity.iter().map(|&n| vec![None; n]).collect();
        let height = stage.windows[stage.windows.len() - 1].geo.output[1];
        let mut written = vec![0; height];
        for (b, band) in t.bands.iter().enumerate() {
            let mut moved = vec![false; stage.inside.len()];
            for (j, from, rows) in t.moves(b, |_| 1) {
                buffers[j].copy_within(from..from + rows, 0);
                moved[j] = true;
            }
            for (j, buffer) in buffers.iter().enumerate() {
                // What was kept is at the front, moved or already there.
                let want: Vec<Option<usize>> = (0..band.kept[j]).map(|k| Some(band.held[j].start + k)).collect();
                assert_eq!(buffer[..band.kept[j]], want[..], "band {b} map {j}: kept rows (moved: {})", moved[j]);
            }
            for (w, op) in stage.windows.iter().zip(&band.ops) {
                if op.output_rows.is_empty() {
                    continue;
                }
                for &input in &w.inputs {
                    if let Some(j) = stage.inside.iter().position(|&u| u == input) {
                        for r in op.input_rows.clone() {
                            assert_eq!(
                                buffers[j][r - band.held[j].start],
                                Some(r),
                                "band {b} reads row {r} of map {j}"
                            );
                        }
                    }
                }
                match stage.inside.iter().position(|&u| u == w.output) {
                    Some(j) => {
                        for r in op.output_rows.clone() {
                            buffers[j][r - band.held[j].start] = Some(r);
                        }
                    }
                    None => op.output_rows.clone().for_each(|r| written[r] += 1),
                }
            }
        }
        assert!(written.iter().all(|&n| n == 1), "output rows written {written:?}");
    }
}
