//! Memory regions: the arena split over several RAMs (a small fast DTCM
//! beside a big slow SRAM or PSRAM), each with its own budget and link
//! section, listed fastest first.
//!
//! Every arena buffer (scratch included) goes to one region. The hottest
//! bytes go to the fastest region: a buffer's heat is the bytes its ops
//! move through it per invoke over its own bytes ([`heat`]), and the
//! regions are filled in order, hottest buffers first, each while its
//! peak of live bytes stays under the budget. Each region is then planned
//! on its own ([`crate::plan::plan`]) and checked; a plan over its budget
//! shrinks the budget the fill aims at by the excess and tries again, so
//! the colder buffers at its peak move on to the next region. The last
//! region takes everything left; over its budget is the compile error.

use crate::diag::Error;
use crate::graph::Graph;
use crate::lowering::emit::CopyWeights;
use crate::plan::{self, Plan, align};
use crate::schedule::{Request, Schedule};

/// A region the user names: `dtcm(".dtcm", 32K)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The user's name for it (an identifier: `dtcm`).
    pub name: String,
    /// The link section its static goes in (`None`: the default, `.bss`).
    pub section: Option<String>,
    /// Bytes the region may hold.
    pub budget: usize,
}

/// The arena split over the regions.
#[derive(Clone, Debug)]
pub struct RegionPlan {
    /// The regions as given, fastest first.
    pub regions: Vec<Region>,
    /// Each region's plan of its buffers (offsets by [`RegionPlan::members`]).
    pub plans: Vec<Plan>,
    /// Each region's buffers (schedule indices), in buffer order.
    pub members: Vec<Vec<usize>>,
    /// For each buffer: (region, byte offset in that region).
    pub places: Vec<(usize, usize)>,
    /// For each buffer: bytes moved through it per invoke, per byte of it.
    pub heat: Vec<f64>,
}

impl RegionPlan {
    /// Bytes each region's arena needs.
    pub fn sizes(&self) -> Vec<usize> {
        self.plans.iter().map(|p| p.arena_size).collect()
    }

    /// Bytes moved through each region per invoke (the heat the fill
    /// sorted by, summed over its buffers).
    pub fn traffic(&self, requests: &[Request]) -> Vec<u64> {
        let mut bytes = vec![0u64; self.regions.len()];
        for (b, &(r, _)) in self.places.iter().enumerate() {
            bytes[r] += (self.heat[b] * requests[b].size as f64) as u64;
        }
        bytes
    }
}

/// `copy_weights`: the ops whose weights are read the most times per invoke per byte
/// (multiply-accumulates over constant bytes: a convolution's weights
/// once per output pixel, a fully connected layer's once), while their
/// constants fit `budget` bytes (their flash layouts may differ a
/// little: what does not fit when the code is emitted stays in flash).
pub fn choose_weight_copy(
    graph: &Graph<'_>,
    order: &[usize],
    macs: &[u64],
    region: usize,
    offset: usize,
    budget: usize,
) -> CopyWeights {
    let constant_bytes = |n: usize| -> usize {
        graph.nodes[n]
            .inputs
            .iter()
            .flatten()
            .filter_map(|&t| graph.tensors[t].data.as_ref())
            .map(|d| align(d.len()))
            .sum()
    };
    let mut by_reads: Vec<(usize, usize, f64)> = order
        .iter()
        .enumerate()
        .filter_map(|(pos, &n)| {
            let bytes = constant_bytes(n);
            (bytes > 0 && macs[n] > 0).then(|| (pos, bytes, macs[n] as f64 / bytes as f64))
        })
        .collect();
    by_reads.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
    let mut left = budget;
    let mut ops = Vec::new();
    for (pos, bytes, _) in by_reads {
        if bytes <= left {
            left -= bytes;
            ops.push(pos);
        }
    }
    CopyWeights { region, offset: align(offset), budget, ops }
}

/// Bytes each op moves through each buffer per invoke, over the buffer's
/// bytes: every activation input read once per multiply-accumulate of its
/// op (at least once whole), every output written once, a scratch buffer
/// read once per multiply-accumulate (an im2col patch is).
pub fn heat(graph: &Graph<'_>, order: &[usize], macs: &[u64], schedule: &Schedule) -> Vec<f64> {
    let mut moved = vec![0f64; schedule.buffers.len()];
    for (pos, &n) in order.iter().enumerate() {
        let node = &graph.nodes[n];
        let m = macs[n] as f64;
        let mut touch = |t: usize, per_element: f64| {
            if let Some(b) = schedule.buffer_of.get(t).copied().flatten() {
                let tensor = &graph.tensors[t];
                let element = tensor.dtype.size().unwrap_or(1) as f64;
                moved[b] += element * per_element.max(tensor.elements as f64);
            }
        };
        for &t in node.inputs.iter().flatten() {
            touch(t, m);
        }
        for &t in &node.outputs {
            touch(t, 0.0);
        }
        if let Some(b) = schedule.buffers.iter().position(|b| b.scratch == Some(pos)) {
            moved[b] += m.max(schedule.buffers[b].size as f64);
        }
    }
    moved.iter().zip(&schedule.buffers).map(|(&m, b)| m / align(b.size.max(1)) as f64).collect()
}

/// Splits the buffers over `regions` (fastest first): see the module doc.
/// A last region over its budget is the error `explain` words.
pub fn assign(
    requests: &[Request],
    heat: &[f64],
    regions: &[Region],
    explain: &dyn Fn(&OverBudget) -> String,
) -> Result<RegionPlan, Error> {
    let n = requests.len();
    let horizon = requests.iter().map(|r| r.life.last + 1).max().unwrap_or(0);
    let mut hottest: Vec<usize> = (0..n).collect();
    hottest.sort_by(|&a, &b| heat[b].total_cmp(&heat[a]).then(requests[a].size.cmp(&requests[b].size)));
    let mut places = vec![(usize::MAX, 0); n];
    let (mut plans, mut members) = (Vec::new(), Vec::new());
    for (k, region) in regions.iter().enumerate() {
        let last = k + 1 == regions.len();
        let mut aim = region.budget;
        let (chosen, sub, planned) = loop {
            let mut load = vec![0usize; horizon];
            let mut chosen = Vec::new();
            for &b in hottest.iter().filter(|&&b| places[b].0 == usize::MAX) {
                let life = requests[b].life.first..=requests[b].life.last;
                let size = align(requests[b].size);
                if last || load[life.clone()].iter().all(|&l| l + size <= aim) {
                    load[life].iter_mut().for_each(|l| *l += size);
                    chosen.push(b);
                }
            }
            chosen.sort_unstable();
            let sub = subset(requests, &chosen);
            let planned = plan::plan(&sub);
            if last || planned.arena_size <= region.budget || aim == 0 {
                break (chosen, sub, planned);
            }
            aim = aim.saturating_sub((planned.arena_size - region.budget).max(plan::ALIGN));
        };
        plan::check(&sub, &planned)
            .map_err(|e| Error::model(format!("internal error: invalid plan of region `{}`: {e}", region.name)))?;
        if planned.arena_size > region.budget {
            return Err(Error::arena_limit(explain(&over_budget(region, &sub, &planned, &chosen))));
        }
        for (i, &b) in chosen.iter().enumerate() {
            places[b] = (k, planned.offsets[i]);
        }
        plans.push(planned);
        members.push(chosen);
    }
    Ok(RegionPlan { regions: regions.to_vec(), plans, members, places, heat: heat.to_vec() })
}

/// The requests of `chosen` (buffer indices, ascending), an in-place
/// overlap kept where its input is among them too.
pub fn subset(requests: &[Request], chosen: &[usize]) -> Vec<Request> {
    chosen
        .iter()
        .map(|&b| {
            let r = &requests[b];
            let overlap = r.overlap.and_then(|(input, slack)| Some((chosen.binary_search(&input).ok()?, slack)));
            Request { overlap, ..r.clone() }
        })
        .collect()
}

/// A last region over its budget: what the error says
/// (`report::over_region_budget` words it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverBudget {
    /// The region, as given.
    pub region: Region,
    /// Bytes its plan needs.
    pub need: usize,
    /// The op (execution position) where its live bytes peak.
    pub peak_op: usize,
    /// The buffers live there, biggest first.
    pub live: Vec<usize>,
}

/// The last region's buffers (`chosen`, their requests `sub`) over its
/// budget: where they peak and what is live there.
fn over_budget(region: &Region, sub: &[Request], planned: &Plan, chosen: &[usize]) -> OverBudget {
    let (_, peak) = plan::lower_bound(sub);
    let mut live: Vec<usize> =
        (0..sub.len()).filter(|&i| sub[i].life.first <= peak && peak <= sub[i].life.last).collect();
    live.sort_by_key(|&i| std::cmp::Reverse(sub[i].size));
    OverBudget {
        region: region.clone(),
        need: planned.arena_size,
        peak_op: peak.saturating_sub(1),
        live: live.into_iter().map(|i| chosen[i]).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::Lifetime;

    fn req(size: usize, first: usize, last: usize) -> Request {
        Request { size, life: Lifetime { first, last }, overlap: None }
    }

    fn region(name: &str, budget: usize) -> Region {
        Region { name: name.into(), section: None, budget }
    }

    #[test]
    fn hottest_buffers_fill_the_fast_region_first() {
        let reqs = vec![req(1000, 0, 1), req(1000, 1, 2), req(64, 2, 3), req(4000, 0, 3)];
        let heat = vec![1.0, 50.0, 9.0, 2.0];
        let p = assign(&reqs, &heat, &[region("fast", 1100), region("slow", 1 << 20)], &|_| String::new()).unwrap();
        // Buffer 1 (hottest) and 2 fit the fast region together; 0 overlaps 1 in time and would not fit.
        assert_eq!(p.members, vec![vec![1, 2], vec![0, 3]]);
        assert!(p.plans[0].arena_size <= 1100);
        for (k, m) in p.members.iter().enumerate() {
            let sub = subset(&reqs, m);
            plan::check(&sub, &p.plans[k]).unwrap();
        }
    }

    #[test]
    fn the_last_region_over_budget_is_an_error_naming_it() {
        let reqs = vec![req(1000, 0, 1), req(1000, 1, 2)];
        let explain = |o: &OverBudget| format!("{} {} {} {:?}", o.region.name, o.need, o.peak_op, o.live);
        let e = assign(&reqs, &[1.0, 1.0], &[region("fast", 100), region("slow", 1500)], &explain).unwrap_err();
        assert_eq!(e.message, "slow 2016 0 [0, 1]");
    }

    #[test]
    fn an_overlap_survives_only_inside_one_region() {
        let mut reqs = vec![req(512, 0, 1), req(512, 1, 2)];
        reqs[1].overlap = Some((0, 0));
        assert_eq!(subset(&reqs, &[0, 1])[1].overlap, Some((0, 0)));
        assert_eq!(subset(&reqs, &[1])[0].overlap, None);
    }
}
