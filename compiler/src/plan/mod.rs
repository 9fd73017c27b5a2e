//! Arena planning: place every buffer at an offset so that no two buffers
//! live at the same time share a byte, in as few bytes as possible.
//!
//! - [`plan_tflm_greedy`] is TFLM's `GreedyMemoryPlanner`, reproduced
//!   faithfully (size-descending with its tie-break, first fit over the
//!   offset-sorted buffers live at the same time): the baseline.
//! - [`plan`] tries several orderings with first- and best-fit, keeps the
//!   best, then improves the order by local search until it reaches the
//!   lower bound or its budget; the TFLM order is one of its candidates, so
//!   it is never worse than the baseline.
//! - [`lower_bound`] is the largest sum of aligned live sizes at any time.
//! - [`check`] verifies the invariants of a plan; every plan is checked
//!   before code is emitted.

pub mod choose;

use crate::schedule::Request;

/// Alignment of every offset and of every buffer's footprint, as in TFLM.
pub use tinyaot_common::ARENA_ALIGN as ALIGN;

/// Rounds up to [`ALIGN`].
pub use tinyaot_common::arena_align as align;

impl Request {
    fn footprint(&self) -> usize {
        align(self.size)
    }
}

/// The result of planning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// One offset per request (multiples of [`ALIGN`]).
    pub offsets: Vec<usize>,
    /// Bytes of arena the plan needs.
    pub arena_size: usize,
    /// Which strategy produced it.
    pub strategy: &'static str,
}

/// The arena size a set of offsets needs.
pub fn extent(reqs: &[Request], offsets: &[usize]) -> usize {
    reqs.iter().zip(offsets).map(|(r, &o)| o + r.footprint()).max().unwrap_or(0)
}

/// The largest sum of aligned sizes live at one time step, less the bytes
/// in-place pairs can share at that step, and that step. Without overlaps
/// this is the classic bound no plan can beat.
pub fn lower_bound(reqs: &[Request]) -> (usize, usize) {
    let horizon = reqs.iter().map(|r| r.life.last).max().unwrap_or(0);
    let mut best = (0, 0);
    for t in 0..=horizon {
        let need = lower_bound_at(reqs, t);
        if need > best.0 {
            best = (need, t);
        }
    }
    best
}

/// The bytes needed at time step `t`: aligned sizes live there, less what
/// in-place pairs can share.
pub fn lower_bound_at(reqs: &[Request], t: usize) -> usize {
    let live = |r: &Request| r.life.first <= t && t <= r.life.last;
    let sum: usize = reqs.iter().filter(|r| live(r)).map(Request::footprint).sum();
    let shared: usize = reqs
        .iter()
        .filter(|r| live(r))
        .filter_map(|r| r.overlap.filter(|&(i, _)| live(&reqs[i])).map(|(i, slack)| max_shared(r, &reqs[i], slack)))
        .sum();
    sum - shared.min(sum)
}

/// The most footprint bytes an output can share with its input when it
/// starts at most `slack` bytes after it (at an aligned offset).
fn max_shared(out: &Request, input: &Request, slack: i64) -> usize {
    let d = slack.min(0).div_euclid(ALIGN as i64) * ALIGN as i64;
    let shared = (out.footprint() as i64 + d).min(input.footprint() as i64);
    shared.max(0) as usize
}

/// The open interval of start offsets `x` at which request `r` would
/// conflict with request `p` already placed at `at`.
fn forbidden(reqs: &[Request], r: usize, p: usize, at: usize) -> (i64, i64) {
    let (fr, fp, o) = (reqs[r].footprint() as i64, reqs[p].footprint() as i64, at as i64);
    match (reqs[r].overlap, reqs[p].overlap) {
        // r writes over p: fine up to `slack` bytes after p's start.
        (Some((input, slack)), _) if input == p => ((o + slack).max(o - fr), o + fp),
        // p (placed) writes over r: r must start at or after `at - slack`.
        (_, Some((input, slack))) if input == r => (o - fr, (o - slack).min(o + fp)),
        _ => (o - fr, o + fp),
    }
}

fn align_up(x: i64) -> usize {
    (x.max(0) as usize).div_ceil(ALIGN) * ALIGN
}

fn align_down(x: i64) -> Option<usize> {
    (x >= 0).then(|| x as usize / ALIGN * ALIGN)
}

/// Places `order` one by one; each buffer goes at the lowest free offset
/// (first fit) or into the smallest free segment that holds it (best fit),
/// given the buffers already placed that are live at the same time.
fn place(reqs: &[Request], order: &[usize], best_fit: bool) -> Vec<usize> {
    let mut offsets = vec![usize::MAX; reqs.len()];
    let mut placed: Vec<usize> = Vec::with_capacity(reqs.len());
    let mut intervals: Vec<(i64, i64)> = Vec::new();
    for &i in order {
        let r = &reqs[i];
        intervals.clear();
        intervals.extend(
            placed.iter().filter(|&&p| reqs[p].life.overlaps(&r.life)).map(|&p| forbidden(reqs, i, p, offsets[p])),
        );
        intervals.retain(|&(lo, hi)| lo + 1 < hi);
        intervals.sort_unstable();
        // Free segments [a, b] of allowed starts, in order; b = None: unbounded.
        let mut x = 0usize;
        let mut chosen: Option<(usize, usize)> = None; // (segment length, start)
        let mut first = None;
        for &(lo, hi) in &intervals {
            if (x as i64) < hi {
                if (x as i64) <= lo {
                    // [x, floor(lo)] is free.
                    if let Some(b) = align_down(lo).filter(|&b| b >= x) {
                        first.get_or_insert(x);
                        if !best_fit {
                            break;
                        }
                        if chosen.is_none_or(|(len, _)| b - x < len) {
                            chosen = Some((b - x, x));
                        }
                    }
                }
                x = x.max(align_up(hi));
            }
        }
        let offset = match (best_fit, chosen, first) {
            (true, Some((_, start)), _) => start,
            (false, _, Some(start)) => start,
            _ => x,
        };
        offsets[i] = offset;
        placed.push(i);
    }
    offsets
}

/// TFLM's order: requests added in index order, read back from the tail,
/// then bubble-sorted by size, largest first (a stable sort, so equal sizes
/// keep the reversed index order).
fn tflm_order(reqs: &[Request]) -> Vec<usize> {
    let mut ids: Vec<usize> = (0..reqs.len()).rev().collect();
    ids.sort_by(|&a, &b| reqs[b].size.cmp(&reqs[a].size));
    ids
}

/// TFLM's greedy planner (`GreedyMemoryPlanner`), for comparison.
pub fn plan_tflm_greedy(reqs: &[Request]) -> Plan {
    // TFLM sorts by the aligned size it was given.
    let aligned: Vec<Request> =
        reqs.iter().map(|r| Request { size: r.footprint(), life: r.life, overlap: None }).collect();
    let offsets = place(&aligned, &tflm_order(&aligned), false);
    let arena_size = extent(reqs, &offsets);
    Plan { offsets, arena_size, strategy: "tflm-greedy" }
}

/// A small deterministic PRNG (xorshift64*) for the local search.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

/// A placement and how it was made.
struct Candidate {
    size: usize,
    offsets: Vec<usize>,
    order: Vec<usize>,
    strategy: &'static str,
    best_fit: bool,
}

/// Our planner: never worse than TFLM's greedy planner, equal to the lower
/// bound whenever one of its searches reaches it.
pub fn plan(reqs: &[Request]) -> Plan {
    let (bound, _) = lower_bound(reqs);
    let n = reqs.len();
    let by = |key: &dyn Fn(&Request) -> (usize, usize)| {
        let mut ids: Vec<usize> = (0..n).collect();
        ids.sort_by_key(|&i| std::cmp::Reverse(key(&reqs[i])));
        ids
    };
    let orders: Vec<(&'static str, Vec<usize>)> = vec![
        ("tflm-greedy", tflm_order(reqs)),
        ("size", by(&|r| (r.footprint(), r.life.last - r.life.first))),
        ("area", by(&|r| (r.footprint() * (r.life.last - r.life.first + 1), r.footprint()))),
        ("lifetime", by(&|r| (r.life.last - r.life.first, r.footprint()))),
        ("first-use", by(&|r| (usize::MAX - r.life.first, r.footprint()))),
    ];
    let mut best: Option<Candidate>;
    // TFLM's plan of these buffers (no overlaps) is always a candidate, so
    // overlaps can only help.
    let plain: Vec<Request> = reqs.iter().map(|r| Request { overlap: None, ..r.clone() }).collect();
    let tflm = tflm_order(reqs);
    let offsets = place(&plain, &tflm, false);
    best = Some(Candidate {
        size: extent(reqs, &offsets),
        offsets,
        order: tflm,
        strategy: "tflm-greedy",
        best_fit: false,
    });
    // Every starting order, placed both ways: the best is where the local
    // search starts first.
    let mut starts: Vec<Candidate> = Vec::new();
    for (strategy, order) in orders {
        for best_fit in [false, true] {
            let offsets = place(reqs, &order, best_fit);
            let size = extent(reqs, &offsets);
            if best.as_ref().is_none_or(|b| size < b.size) {
                best = Some(Candidate { size, offsets: offsets.clone(), order: order.clone(), strategy, best_fit });
            }
            starts.push(Candidate { size, offsets, order: order.clone(), strategy, best_fit });
        }
    }
    let Some(first) = best else {
        return Plan { offsets: vec![], arena_size: 0, strategy: "empty" };
    };
    starts.sort_by_key(|c| c.size);
    let mut plan = local_search(reqs, bound, first);
    // Where the search from the best start stops above the lower bound, it
    // starts again from the next best orders (another start often finds
    // what swaps from the first could not: a search is cheap beside the
    // build).
    for start in starts.into_iter().skip(1).take(3) {
        if plan.arena_size == bound {
            break;
        }
        let other = local_search(reqs, bound, start);
        if other.arena_size < plan.arena_size {
            plan = other;
        }
    }
    plan
}

/// The local search of [`plan`] from one start: swap two buffers in the
/// placement order, keep the swap when the arena does not grow.
fn local_search(reqs: &[Request], bound: usize, start: Candidate) -> Plan {
    let n = reqs.len();
    let Candidate { mut size, mut offsets, mut order, mut strategy, best_fit } = start;
    // Budget scales down with graph size so a 100-op model plans in well
    // under a second.
    if n >= 2 && size > bound {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let budget = (400_000 / (n * n)).clamp(50, 3000);
        // Stop early after a long run without a strict improvement.
        let mut since_improvement = 0;
        for _ in 0..budget {
            if since_improvement > 400 {
                break;
            }
            since_improvement += 1;
            let (a, b) = (rng.below(n), rng.below(n));
            if a == b {
                continue;
            }
            order.swap(a, b);
            let candidate = place(reqs, &order, best_fit);
            let s = extent(reqs, &candidate);
            if s <= size {
                if s < size {
                    strategy = "local-search";
                    since_improvement = 0;
                }
                size = s;
                offsets = candidate;
                if size == bound {
                    break;
                }
            } else {
                order.swap(a, b);
            }
        }
    }
    Plan { offsets, arena_size: size, strategy }
}

/// Checks a plan: offsets aligned, every buffer inside the arena, and no
/// byte shared by two buffers live at the same time.
pub fn check(reqs: &[Request], plan: &Plan) -> Result<(), String> {
    if plan.offsets.len() != reqs.len() {
        return Err(format!("{} offsets for {} buffers", plan.offsets.len(), reqs.len()));
    }
    for (i, (r, &o)) in reqs.iter().zip(&plan.offsets).enumerate() {
        if o % ALIGN != 0 {
            return Err(format!("buffer {i} at offset {o} is not {ALIGN}-aligned"));
        }
        if o + r.size > plan.arena_size {
            return Err(format!("buffer {i} ends at {} beyond the arena of {}", o + r.size, plan.arena_size));
        }
        for (j, (s, &p)) in reqs.iter().zip(&plan.offsets).enumerate().skip(i + 1) {
            if r.life.overlaps(&s.life) && o < p + s.size && p < o + r.size && r.size > 0 && s.size > 0 {
                // Only a declared in-place pair may share bytes, and only
                // with the output starting at most `slack` after the input.
                let allowed = match (r.overlap, s.overlap) {
                    (Some((input, slack)), _) if input == j => o as i64 - p as i64 <= slack,
                    (_, Some((input, slack))) if input == i => p as i64 - o as i64 <= slack,
                    _ => false,
                };
                if !allowed {
                    return Err(format!("buffers {i} and {j} are live together and overlap"));
                }
            }
        }
    }
    if plan.arena_size < extent(reqs, &plan.offsets) {
        return Err(format!("arena of {} is smaller than its aligned buffers need", plan.arena_size));
    }
    let (bound, _) = lower_bound(reqs);
    if plan.arena_size < bound {
        return Err(format!("arena of {} is below the lower bound {bound}", plan.arena_size));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::Lifetime;

    fn req(size: usize, first: usize, last: usize) -> Request {
        Request { size, life: Lifetime { first, last }, overlap: None }
    }

    #[test]
    fn chain_reuses_memory() {
        // a -> b -> c: a and c can share.
        let reqs = vec![req(100, 0, 1), req(50, 1, 2), req(100, 2, 2)];
        let p = plan(&reqs);
        check(&reqs, &p).unwrap();
        assert_eq!(p.arena_size, 112 + 64);
        assert_eq!(lower_bound(&reqs).0, 176);
    }

    #[test]
    fn tflm_greedy_places_largest_first() {
        let reqs = vec![req(10, 0, 1), req(30, 1, 2), req(20, 2, 3)];
        let p = plan_tflm_greedy(&reqs);
        check(&reqs, &p).unwrap();
        // Aligned sizes 16, 32, 32: the tie goes to the higher index (TFLM
        // reads its list from the tail), so 20 B at 0, 30 B above it at 32,
        // and 10 B (live with the 30 B only) back at 0.
        assert_eq!(p.offsets, vec![0, 32, 0]);
    }

    #[test]
    fn in_place_pairs_share_bytes_only_within_their_slack() {
        // Chain a -> b -> c where each op may write over its input.
        let mut reqs = vec![req(256, 0, 1), req(256, 1, 2), req(256, 2, 3)];
        reqs[1].overlap = Some((0, -32));
        reqs[2].overlap = Some((1, 0));
        let p = plan(&reqs);
        check(&reqs, &p).unwrap();
        assert!(p.arena_size <= 256 + 32, "arena {}", p.arena_size);
        // Without the declaration, the same offsets are rejected.
        let plain: Vec<Request> = reqs.iter().map(|r| Request { overlap: None, ..r.clone() }).collect();
        assert!(check(&plain, &p).is_err());
        // And an output placed beyond its slack is rejected.
        let bad = Plan { offsets: vec![0, 16, 512], arena_size: 768, strategy: "test" };
        assert!(check(&reqs, &bad).is_err());
    }

    #[test]
    fn random_graphs_with_overlaps_plan_validly() {
        let mut rng = Rng(777);
        for _ in 0..300 {
            let n = 2 + rng.below(25);
            let mut reqs: Vec<Request> = (0..n)
                .map(|_| {
                    let first = rng.below(20);
                    let len = rng.below(6);
                    req(1 + rng.below(5000), first, first + len)
                })
                .collect();
            // Declare some overlaps where an input dies as an output is born.
            for o in 0..n {
                if rng.below(2) == 0 {
                    continue;
                }
                let t = reqs[o].life.first;
                if let Some(i) = (0..n).find(|&i| i != o && reqs[i].life.last == t && reqs[i].overlap.is_none()) {
                    reqs[o].overlap = Some((i, -(rng.below(300) as i64)));
                }
            }
            let ours = plan(&reqs);
            check(&reqs, &ours).unwrap();
            assert!(ours.arena_size >= lower_bound(&reqs).0);
            let plain: Vec<Request> = reqs.iter().map(|r| Request { overlap: None, ..r.clone() }).collect();
            assert!(ours.arena_size <= plan_tflm_greedy(&plain).arena_size);
        }
    }

    #[test]
    fn random_graphs_plan_validly_and_never_lose_to_tflm() {
        let mut rng = Rng(12345);
        for _ in 0..300 {
            let n = 1 + rng.below(30);
            let reqs: Vec<Request> = (0..n)
                .map(|_| {
                    let first = rng.below(20);
                    let len = rng.below(6);
                    req(1 + rng.below(5000), first, first + len)
                })
                .collect();
            let ours = plan(&reqs);
            let tflm = plan_tflm_greedy(&reqs);
            check(&reqs, &ours).unwrap();
            check(&reqs, &tflm).unwrap();
            assert!(ours.arena_size <= tflm.arena_size);
            assert!(ours.arena_size >= lower_bound(&reqs).0);
        }
    }
}
