//! The plan policy: which kernel each op runs with and which op order,
//! within the RAM budget. The fastest kernel of every op first; over the
//! budget (`arena_limit`, or else TFLM's arena for the same model, so fast
//! kernels never cost RAM TFLM would not take), the scratch at the peak is
//! given up, largest first, until the plan fits.

use crate::Options;
use crate::diag::Error;
use crate::graph::Graph;
use crate::lowering::operator::Operator;
use crate::lowering::variant::Variant;
use crate::schedule::{self, Schedule};
use crate::tiling::{self, Tiling};

use super::Plan;

/// A planned schedule: order, buffers and offsets.
pub struct Planned {
    /// Execution order: `order[p]` is the node run at position `p`.
    pub order: Vec<usize>,
    /// Arena buffers and their lifetimes.
    pub schedule: Schedule,
    /// Our plan of them.
    pub plan: Plan,
}

/// Plans the candidate orders for one choice of kernel variants (and
/// tiling, which only the orders that run its chain contiguously take):
/// every order is scheduled, the three most promising by lower bound are
/// planned, the smallest arena wins (the model's own order on ties).
pub fn plan_orders(
    graph: &Graph<'_>,
    ops: &[Box<dyn Operator>],
    orders: &[Vec<usize>],
    choice: &[Variant],
    opts: &Options,
    tiling: Option<&Tiling>,
) -> Result<Planned, Error> {
    let mut scheduled = Vec::new();
    for order in orders {
        let mut s = schedule::schedule(graph, ops, order, choice, opts.inputs())?;
        if let Some(t) = tiling
            && t.apply(graph, order, &mut s).is_none()
        {
            continue;
        }
        if !opts.in_place {
            s.overlaps.clear();
        }
        let bound = super::lower_bound(&s.requests()).0;
        scheduled.push((bound, order.clone(), s));
    }
    // Stable: equal bounds keep the model's order first.
    scheduled.sort_by_key(|c| c.0);
    let mut best: Option<Planned> = None;
    for (_, order, schedule) in scheduled.into_iter().take(3) {
        let plan = super::plan(&schedule.requests());
        let own = order.iter().enumerate().all(|(i, &n)| i == n);
        if best
            .as_ref()
            .is_none_or(|b| plan.arena_size < b.plan.arena_size || (plan.arena_size == b.plan.arena_size && own))
        {
            best = Some(Planned { order, schedule, plan });
        }
    }
    best.ok_or_else(|| Error::model("internal error: no execution order"))
}

/// What the policy settled on.
pub struct Choice {
    /// The variant each node runs with.
    pub choice: Vec<Variant>,
    /// The plan with those kernels.
    pub planned: Planned,
    /// The tiled stage, when the budget needs one.
    pub tiling: Option<Tiling>,
    /// With a tiled stage: the arena of the best plan without it.
    pub untiled_arena: Option<usize>,
    /// Over the budget even tiled: the smallest arena a tiled plan reached
    /// (with scratch-free kernels), and that tiling.
    pub tiled_floor: Option<(usize, Tiling)>,
    /// The arena with scratch-free kernels only, when faster ones were chosen.
    pub direct_arena: Option<usize>,
    /// With `keep_inputs`: the arena the same kernels need without it.
    pub arena_without_kept_inputs: Option<usize>,
}

/// Most tilings fully planned (after the lower-bound filter) per model.
const MAX_TILED_PLANS: usize = 48;

/// Tilings with the lowest bounds planned for the smallest tiled arena.
const FLOOR_PLANS: usize = 16;

/// Fitting tilings compared by estimated cost before one is taken.
const TILINGS_COMPARED: usize = 8;

/// The fastest variant of every op, then the scratch at the peak given up,
/// largest first, until the plan fits `budget` (or nothing is left to give).
fn fit(
    graph: &Graph<'_>,
    ops: &[Box<dyn Operator>],
    orders: &[Vec<usize>],
    variants: &[Vec<Variant>],
    budget: usize,
    opts: &Options,
    tiling: Option<&Tiling>,
) -> Result<(Vec<Variant>, Planned), Error> {
    let direct = plainest(variants);
    // The cheapest by estimate, the first listed on ties.
    let mut choice: Vec<Variant> = variants
        .iter()
        .zip(&direct)
        .map(|(v, &d)| v.iter().enumerate().min_by_key(|&(i, x)| (x.cost, i)).map_or(d, |(_, &x)| x))
        .collect();
    let mut planned = plan_orders(graph, ops, orders, &choice, opts, tiling)?;
    loop {
        if planned.plan.arena_size <= budget {
            break;
        }
        let (_, peak) = super::lower_bound(&planned.schedule.requests());
        // Scratch of a faster variant only: an op whose variant 0 needs
        // scratch (its only kernel) has nothing to give back.
        let scratch_at = |b: &schedule::Buffer| {
            b.scratch
                .filter(|&pos| choice[planned.order[pos]] != direct[planned.order[pos]])
                .map(|pos| (b.life.first <= peak && peak <= b.life.last, b.size, pos))
        };
        let Some((_, _, pos)) = planned.schedule.buffers.iter().filter_map(scratch_at).max() else {
            // Nothing left to give at the peak: the scratch-free kernels
            // everywhere, if that is smaller.
            if choice != direct {
                let plain = plan_orders(graph, ops, orders, &direct, opts, tiling)?;
                if plain.plan.arena_size < planned.plan.arena_size {
                    (choice, planned) = (direct, plain);
                }
            }
            break;
        };
        let n = planned.order[pos];
        choice[n] = direct[n];
        planned = plan_orders(graph, ops, orders, &choice, opts, tiling)?;
    }
    Ok((choice, planned))
}

/// One order's schedule with scratch-free kernels, made once for the
/// tiling search, and its bound at every time step.
struct Base<'o> {
    order: &'o [usize],
    schedule: Schedule,
    steps: Vec<usize>,
}

impl<'o> Base<'o> {
    fn new(order: &'o [usize], mut schedule: Schedule, opts: &Options) -> Base<'o> {
        if !opts.in_place {
            schedule.overlaps.clear();
        }
        let reqs = schedule.requests();
        let horizon = reqs.iter().map(|r| r.life.last).max().unwrap_or(0);
        let steps = (0..=horizon).map(|t| super::lower_bound_at(&reqs, t)).collect();
        Base { order, schedule, steps }
    }
}

/// The lowest bound of a tiled schedule with scratch-free kernels over the
/// orders that run the stage contiguously. Tiling changes only the stage's
/// own time steps, so only those are counted again.
fn tiled_bound(graph: &Graph<'_>, bases: &[Base<'_>], tiling: &Tiling, opts: &Options) -> Option<usize> {
    bases
        .iter()
        .filter_map(|b| {
            let at = tiling.positions(b.order)?;
            let mut s = b.schedule.clone();
            tiling.apply(graph, b.order, &mut s)?;
            if !opts.in_place {
                s.overlaps.clear();
            }
            let reqs = s.requests();
            let stage = at.start + 1..=at.end;
            let inside = stage.clone().map(|t| super::lower_bound_at(&reqs, t)).max().unwrap_or(0);
            let outside =
                b.steps.iter().enumerate().filter(|(t, _)| !stage.contains(t)).map(|(_, &v)| v).max().unwrap_or(0);
            Some(inside.max(outside))
        })
        .min()
}

/// Chooses kernels, op order and, over an explicit `arena_limit` the plain
/// plan cannot meet, a tiled stage, within `budget` bytes.
pub fn choose(
    graph: &Graph<'_>,
    ops: &[Box<dyn Operator>],
    orders: &[Vec<usize>],
    variants: &[Vec<Variant>],
    budget: usize,
    opts: &Options,
) -> Result<Choice, Error> {
    let (mut choice, mut planned) = fit(graph, ops, orders, variants, budget, opts, None)?;
    let (mut tiling, mut untiled_arena, mut tiled_floor) = (None, None, None);
    if planned.plan.arena_size > budget && opts.arena_limit.is_some() {
        let direct = plainest(variants);
        let mut bases = Vec::new();
        for order in orders {
            bases.push(Base::new(order, schedule::schedule(graph, ops, order, &direct, opts.inputs())?, opts));
        }
        // A stage that leaves the peak out leaves the peak as it is.
        let peak = bases[0].steps.iter().enumerate().max_by_key(|&(t, &v)| (v, std::cmp::Reverse(t))).map(|(t, _)| t);
        let mut bounded = Vec::new();
        for t in tiling::candidates(graph, ops, &orders[0], peak.and_then(|t| t.checked_sub(1))) {
            if let Some(bound) = tiled_bound(graph, &bases, &t, opts) {
                bounded.push((bound, t));
            }
        }
        // Among the first that fit (fewest recomputed MACs first, their
        // bound within the budget), the fastest by estimate: the kernels
        // the budget leaves them, the recomputed rows, the extra calls.
        let estimate = |choice: &[Variant], t: &Tiling| {
            let cost = |n: usize| choice[n].cost;
            (0..ops.len()).map(cost).sum::<u64>() + t.extra_cost(cost)
        };
        let mut best: Option<(u64, Vec<Variant>, Planned, &Tiling)> = None;
        let mut fitting = 0;
        // Then the lowest bounds, as the smallest tiled arena is measured
        // (a budget near it may fit only those).
        let mut lowest: Vec<&(usize, Tiling)> = bounded.iter().filter(|(bound, _)| *bound <= budget).collect();
        lowest.sort_by_key(|(bound, t)| (*bound, t.extra_macs));
        let by_cost = bounded.iter().filter(|(bound, _)| *bound <= budget).take(MAX_TILED_PLANS);
        for (_, t) in by_cost.chain(lowest.into_iter().take(FLOOR_PLANS)) {
            let (c, p) = fit(graph, ops, orders, variants, budget, opts, Some(t))?;
            if p.plan.arena_size <= budget {
                let cost = estimate(&c, t);
                if best.as_ref().is_none_or(|b| cost < b.0) {
                    best = Some((cost, c, p, t));
                }
                fitting += 1;
                if fitting == TILINGS_COMPARED {
                    break;
                }
            }
        }
        if let Some((_, c, p, t)) = best {
            untiled_arena = Some(planned.plan.arena_size);
            (choice, planned, tiling) = (c, p, Some(t.clone()));
        }
        if tiling.is_none() {
            // The smallest budget tiling reaches: plan the lowest bounds.
            bounded.sort_by_key(|(bound, t)| (*bound, t.extra_macs));
            for (_, t) in bounded.into_iter().take(FLOOR_PLANS) {
                let arena = plan_orders(graph, ops, orders, &direct, opts, Some(&t))?.plan.arena_size;
                if tiled_floor.as_ref().is_none_or(|(best, _)| arena < *best) {
                    tiled_floor = Some((arena, t));
                }
            }
        }
    }
    // What the fast kernels cost: the arena with direct kernels only.
    let direct = plainest(variants);
    let direct_arena = if choice != direct {
        Some(plan_orders(graph, ops, orders, &direct, opts, tiling.as_ref())?.plan.arena_size)
    } else {
        None
    };
    // What keeping the inputs costs: the same kernels without it.
    let arena_without_kept_inputs = if opts.inputs() == schedule::Inputs::Kept {
        let free = Options { keep_inputs: false, ..opts.clone() };
        Some(plan_orders(graph, ops, orders, &choice, &free, tiling.as_ref())?.plan.arena_size)
    } else {
        None
    };
    Ok(Choice { choice, planned, tiling, untiled_arena, tiled_floor, direct_arena, arena_without_kept_inputs })
}

/// Each op's plainest variant, the first it lists (its direct kernel, or
/// the one kernel it has): what TFLM runs, and what the budget falls back to.
pub fn plainest(variants: &[Vec<Variant>]) -> Vec<Variant> {
    variants.iter().map(|v| v.first().copied().unwrap_or(Variant::DIRECT)).collect()
}
