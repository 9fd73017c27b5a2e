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
/// tiled stages, which only the orders that run each chain contiguously
/// take):
/// every order is scheduled, the three most promising by lower bound are
/// planned, the smallest arena wins (the model's own order on ties).
pub fn plan_orders(
    graph: &Graph<'_>,
    ops: &[Box<dyn Operator>],
    orders: &[Vec<usize>],
    choice: &[Variant],
    opts: &Options,
    tilings: &[Tiling],
) -> Result<Planned, Error> {
    let mut scheduled = Vec::new();
    for order in orders {
        let mut s = schedule::schedule(graph, ops, order, choice, opts.inputs())?;
        if tilings.iter().any(|t| t.apply(graph, order, &mut s).is_none()) {
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
    /// The tiled stages, in execution order, when the budget needs them.
    pub tilings: Vec<Tiling>,
    /// With tiled stages: the arena of the best plan without them.
    pub untiled_arena: Option<usize>,
    /// Over the budget even tiled: the smallest arena a tiled plan reached
    /// (with scratch-free kernels), and its stages.
    pub tiled_floor: Option<(usize, Vec<Tiling>)>,
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

/// What every step of the search plans over: the graph, its ops, the
/// candidate orders, each op's kernel variants and the options.
#[derive(Clone, Copy)]
struct Search<'a, 'g> {
    graph: &'a Graph<'g>,
    ops: &'a [Box<dyn Operator>],
    orders: &'a [Vec<usize>],
    variants: &'a [Vec<Variant>],
    opts: &'a Options,
}

/// The fastest variant of every op, then the scratch at the peak given up,
/// largest first, until the plan fits `budget` (or nothing is left to give).
fn fit(search: &Search<'_, '_>, budget: usize, tilings: &[Tiling]) -> Result<(Vec<Variant>, Planned), Error> {
    let Search { graph, ops, orders, variants, opts } = *search;
    let direct = plainest(variants);
    // The cheapest by estimate, the first listed on ties.
    let mut choice: Vec<Variant> = variants
        .iter()
        .zip(&direct)
        .map(|(v, &d)| v.iter().enumerate().min_by_key(|&(i, x)| (x.cost, i)).map_or(d, |(_, &x)| x))
        .collect();
    let mut planned = plan_orders(graph, ops, orders, &choice, opts, tilings)?;
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
                let plain = plan_orders(graph, ops, orders, &direct, opts, tilings)?;
                if plain.plan.arena_size < planned.plan.arena_size {
                    (choice, planned) = (direct, plain);
                }
            }
            break;
        };
        let n = planned.order[pos];
        choice[n] = direct[n];
        planned = plan_orders(graph, ops, orders, &choice, opts, tilings)?;
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
/// orders that run the stage contiguously, and the bound over the stage's
/// own steps in that order. Tiling changes only the stage's own time steps,
/// so only those are counted again.
fn tiled_bound(graph: &Graph<'_>, bases: &[Base<'_>], tiling: &Tiling, opts: &Options) -> Option<(usize, usize)> {
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
            Some((inside.max(outside), inside))
        })
        .min()
}

/// Most tiled stages one plan takes.
const MAX_STAGES: usize = 12;

/// Which stage the descent takes while none fits alone.
#[derive(Clone, Copy)]
enum Pick {
    /// The one that gives the smallest arena (on ties the lowest bound
    /// over its own ops).
    SmallestArena,
    /// One whose own ops fit the budget with the fewest recomputed MACs,
    /// else the one with the lowest bound over its own ops, so that it is
    /// not the next peak (then the smallest arena).
    LowestStage,
}

/// Where a descent ends.
enum Descent {
    /// A plan within the budget: kernels, plan, stages.
    Fits(Vec<Variant>, Box<Planned>, Vec<Tiling>),
    /// None: the smallest arena it reached with scratch-free kernels, and
    /// its stages.
    Floor(Option<(usize, Vec<Tiling>)>),
}

/// Tiled stages down to `budget`: a stage over the peak that fits (the
/// fastest of the first that do), else the stage `pick` prefers (its own
/// ops within `pick_budget`, for [`Pick::LowestStage`]) and on to the next
/// peak, at most [`MAX_STAGES`].
fn descend(search: &Search<'_, '_>, budget: usize, (pick, pick_budget): (Pick, usize)) -> Result<Descent, Error> {
    let Search { graph, ops, orders, variants, opts } = *search;
    let direct = plainest(variants);
    // The stages taken on the way down, and the smallest arena so far.
    let mut chosen: Vec<Tiling> = Vec::new();
    let mut floor: Option<(usize, Vec<Tiling>)> = None;
    for _ in 0..MAX_STAGES {
        let mut bases = Vec::new();
        for order in orders {
            let mut s = schedule::schedule(graph, ops, order, &direct, opts.inputs())?;
            if chosen.iter().all(|t| t.apply(graph, order, &mut s).is_some()) {
                bases.push(Base::new(order, s, opts));
            }
        }
        let Some(first) = bases.first() else { break };
        // A stage that leaves the peak out leaves the peak as it is.
        let peak = first.steps.iter().enumerate().max_by_key(|&(t, &v)| (v, std::cmp::Reverse(t))).map(|(t, _)| t);
        let taken = |t: &Tiling| chosen.iter().any(|c| c.stage.nodes.iter().any(|n| t.stage.nodes.contains(n)));
        let mut bounded = Vec::new();
        for t in tiling::candidates(graph, ops, first.order, peak.and_then(|t| t.checked_sub(1))) {
            if !taken(&t)
                && let Some((bound, inside)) = tiled_bound(graph, &bases, &t, opts)
            {
                bounded.push((bound, inside, t));
            }
        }
        let with = |t: &Tiling| chosen.iter().chain([t]).cloned().collect::<Vec<_>>();
        // Among the first that fit (fewest recomputed MACs first, their
        // bound within the budget), the fastest by estimate: the kernels
        // the budget leaves them, the recomputed rows, the extra calls.
        let estimate = |choice: &[Variant], stages: &[Tiling]| {
            let cost = |n: usize| choice[n].cost;
            (0..ops.len()).map(cost).sum::<u64>() + stages.iter().map(|t| t.extra_cost(cost)).sum::<u64>()
        };
        let mut best: Option<(u64, Vec<Variant>, Planned, Vec<Tiling>)> = None;
        let mut fitting = 0;
        // Then the lowest bounds, as the smallest tiled arena is measured
        // (a budget near it may fit only those).
        let mut lowest: Vec<&(usize, usize, Tiling)> = bounded.iter().filter(|(bound, ..)| *bound <= budget).collect();
        lowest.sort_by_key(|(bound, inside, t)| (*bound, *inside, t.extra_macs));
        let by_cost = bounded.iter().filter(|(bound, ..)| *bound <= budget).take(MAX_TILED_PLANS);
        for (.., t) in by_cost.chain(lowest.into_iter().take(FLOOR_PLANS)) {
            let stages = with(t);
            let (c, p) = fit(search, budget, &stages)?;
            if p.plan.arena_size <= budget {
                let cost = estimate(&c, &stages);
                if best.as_ref().is_none_or(|b| cost < b.0) {
                    best = Some((cost, c, p, stages));
                }
                fitting += 1;
                if fitting == TILINGS_COMPARED {
                    break;
                }
            }
        }
        if let Some((_, c, p, stages)) = best {
            return Ok(Descent::Fits(c, Box::new(p), stages));
        }
        // None fits: the stage `pick` prefers (planned among the lowest
        // bounds), if it lowers the arena, and on.
        bounded.sort_by_key(|(bound, inside, t)| match pick {
            Pick::SmallestArena => (*bound, *inside as u64, t.extra_macs),
            Pick::LowestStage => ((*inside).max(pick_budget), t.extra_macs, *bound as u64),
        });
        let mut step: Option<(usize, usize, Vec<Tiling>)> = None;
        for (_, inside, t) in bounded.into_iter().take(FLOOR_PLANS) {
            let stages = with(&t);
            let arena = plan_orders(graph, ops, orders, &direct, opts, &stages)?.plan.arena_size;
            let macs = t.extra_macs;
            let better = |(best, best_inside, best_macs): (usize, usize, u64)| match pick {
                Pick::SmallestArena => (arena, inside) < (best, best_inside),
                Pick::LowestStage => {
                    (inside.max(pick_budget), macs, arena) < (best_inside.max(pick_budget), best_macs, best)
                }
            };
            if step.as_ref().is_none_or(|(best, best_inside, stages)| {
                better((*best, *best_inside, stages.last().map_or(0, |t| t.extra_macs)))
            }) {
                step = Some((arena, inside, stages));
            }
        }
        match step {
            Some((arena, _, stages)) if floor.as_ref().is_none_or(|(best, _)| arena <= *best) => {
                chosen.clone_from(&stages);
                floor = Some((arena, stages));
            }
            _ => break,
        }
    }
    Ok(Descent::Floor(floor))
}

/// Chooses kernels, op order and, over an explicit `arena_limit` the plain
/// plan cannot meet, tiled stages, within `budget` bytes: a stage over the
/// peak, and while no single one fits, the stage that lowers the arena most
/// and another over the next peak.
pub fn choose(
    graph: &Graph<'_>,
    ops: &[Box<dyn Operator>],
    orders: &[Vec<usize>],
    variants: &[Vec<Variant>],
    budget: usize,
    opts: &Options,
) -> Result<Choice, Error> {
    let search = Search { graph, ops, orders, variants, opts };
    let (mut choice, mut planned) = fit(&search, budget, &[])?;
    let (mut tilings, mut untiled_arena, mut tiled_floor) = (Vec::new(), None, None);
    if planned.plan.arena_size > budget && opts.arena_limit.is_some() {
        let mut floors = Vec::new();
        // The third takes the path of the smallest tiled arena
        // (`smallest_tiled_arena`, a budget of 1), so that a limit set to
        // it is met.
        let picks = [(Pick::SmallestArena, budget), (Pick::LowestStage, budget), (Pick::LowestStage, 1)];
        for (k, pick) in picks.into_iter().enumerate() {
            if k == 2 && budget <= 1 {
                break;
            }
            match descend(&search, budget, pick)? {
                Descent::Fits(c, p, stages) => {
                    untiled_arena = Some(planned.plan.arena_size);
                    (choice, planned, tilings) = (c, *p, stages);
                    break;
                }
                Descent::Floor(floor) => floors.extend(floor),
            }
        }
        if tilings.is_empty() {
            tiled_floor = floors.into_iter().min_by_key(|(arena, stages)| (*arena, stages.len()));
        }
    }
    if planned.plan.arena_size <= budget {
        (choice, planned) = add_back(&search, budget, &tilings, (choice, planned))?;
    }
    // What the fast kernels cost: the arena with direct kernels only.
    let direct = plainest(variants);
    let direct_arena = if choice != direct {
        Some(plan_orders(graph, ops, orders, &direct, opts, &tilings)?.plan.arena_size)
    } else {
        None
    };
    // What keeping the inputs costs: the same kernels without it.
    let arena_without_kept_inputs = if opts.inputs() == schedule::Inputs::Kept {
        let free = Options { keep_inputs: false, ..opts.clone() };
        Some(plan_orders(graph, ops, orders, &choice, &free, &tilings)?.plan.arena_size)
    } else {
        None
    };
    Ok(Choice { choice, planned, tilings, untiled_arena, tiled_floor, direct_arena, arena_without_kept_inputs })
}

/// Plans tried when fast variants given up are tried again.
const ADD_BACK_TRIES: usize = 48;

/// The fast variants `fit` gave up (all of them, when it fell back to the
/// scratch-free kernels everywhere), tried back once a plan fits `budget`:
/// op by op, the largest estimated saving first, its variants faster than
/// the chosen one from the fastest, the first that still fits kept.
fn add_back(
    search: &Search<'_, '_>,
    budget: usize,
    tilings: &[Tiling],
    (mut choice, mut planned): (Vec<Variant>, Planned),
) -> Result<(Vec<Variant>, Planned), Error> {
    let Search { graph, ops, orders, variants, opts } = *search;
    let faster = |n: usize, choice: &[Variant]| {
        let mut v: Vec<Variant> = variants[n].iter().filter(|x| x.cost < choice[n].cost).copied().collect();
        v.sort_by_key(|x| x.cost);
        v
    };
    let mut ups: Vec<(u64, usize)> =
        (0..variants.len()).filter_map(|n| Some((choice[n].cost - faster(n, &choice).first()?.cost, n))).collect();
    ups.sort_by_key(|&(saving, n)| (std::cmp::Reverse(saving), n));
    let mut tries = 0;
    'ops: for (_, n) in ups {
        for variant in faster(n, &choice) {
            if tries == ADD_BACK_TRIES {
                break 'ops;
            }
            tries += 1;
            let mut tried = choice.clone();
            tried[n] = variant;
            let p = plan_orders(graph, ops, orders, &tried, opts, tilings)?;
            if p.plan.arena_size <= budget {
                (choice, planned) = (tried, p);
                continue 'ops;
            }
        }
    }
    Ok((choice, planned))
}

/// Each op's plainest variant, the first it lists (its direct kernel, or
/// the one kernel it has): what TFLM runs, and what the budget falls back to.
pub fn plainest(variants: &[Vec<Variant>]) -> Vec<Variant> {
    variants.iter().map(|v| v.first().copied().unwrap_or(Variant::DIRECT)).collect()
}
