//! Execution order: when a graph has branches, more than one topological
//! order of its ops is valid, and they can peak at different arena sizes.
//! This module proposes orders; `analyze` plans the promising ones and
//! keeps the smallest (the model's own order wins ties).

use crate::graph::Graph;

/// Most orders enumerated exhaustively for a small graph.
const MAX_ENUMERATED: usize = 256;
/// Graphs up to this many ops are enumerated; larger ones get heuristics.
const MAX_ENUMERATED_OPS: usize = 24;

/// `deps[j]`: the ops whose outputs op `j` reads.
fn dependencies(graph: &Graph<'_>) -> Vec<Vec<usize>> {
    let mut producer = vec![None; graph.tensors.len()];
    for (i, n) in graph.nodes.iter().enumerate() {
        for &t in &n.outputs {
            producer[t].get_or_insert(i);
        }
    }
    graph
        .nodes
        .iter()
        .enumerate()
        .map(|(j, n)| {
            let mut d: Vec<usize> =
                n.inputs.iter().flatten().filter_map(|&t| producer[t]).filter(|&i| i != j).collect();
            d.sort_unstable();
            d.dedup();
            d
        })
        .collect()
}

/// Whether `order` runs every op after the ops it reads from.
pub fn is_topological(graph: &Graph<'_>, order: &[usize]) -> bool {
    let deps = dependencies(graph);
    let mut pos = vec![usize::MAX; graph.nodes.len()];
    for (p, &i) in order.iter().enumerate() {
        pos[i] = p;
    }
    order.len() == graph.nodes.len() && deps.iter().enumerate().all(|(j, d)| d.iter().all(|&i| pos[i] < pos[j]))
}

/// Candidate orders: the model's own first, then a memory-greedy list
/// schedule, then (small graphs) every topological order up to a cap.
pub fn candidates(graph: &Graph<'_>) -> Vec<Vec<usize>> {
    let n = graph.nodes.len();
    let deps = dependencies(graph);
    let mut out = vec![(0..n).collect::<Vec<_>>()];
    // The model's order is topological by TFLite's rules; if not, keep only
    // it. State passed outside the data flow (variables) also fixes it.
    if graph.order_is_fixed() || !is_topological(graph, &out[0]) {
        return out;
    }
    out.push(greedy(graph, &deps));
    if n <= MAX_ENUMERATED_OPS {
        let mut order = Vec::with_capacity(n);
        let mut done = vec![false; n];
        enumerate(&deps, &mut order, &mut done, &mut out);
    }
    out.sort();
    out.dedup();
    // Keep the model's own order first.
    let own: Vec<usize> = (0..n).collect();
    out.retain(|o| *o != own);
    out.insert(0, own);
    out
}

fn enumerate(deps: &[Vec<usize>], order: &mut Vec<usize>, done: &mut [bool], out: &mut Vec<Vec<usize>>) {
    if out.len() >= MAX_ENUMERATED {
        return;
    }
    if order.len() == deps.len() {
        out.push(order.clone());
        return;
    }
    for j in 0..deps.len() {
        if !done[j] && deps[j].iter().all(|&i| done[i]) {
            done[j] = true;
            order.push(j);
            enumerate(deps, order, done, out);
            order.pop();
            done[j] = false;
        }
    }
}

/// List scheduling: among the ready ops, run the one that grows live
/// memory least (outputs allocated minus inputs freed).
fn greedy(graph: &Graph<'_>, deps: &[Vec<usize>]) -> Vec<usize> {
    let n = graph.nodes.len();
    let mut readers = vec![0usize; graph.tensors.len()];
    for node in &graph.nodes {
        for &t in node.inputs.iter().flatten() {
            readers[t] += 1;
        }
    }
    for &t in &graph.outputs {
        readers[t] += 1; // never freed
    }
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        let best = (0..n).filter(|&j| !done[j] && deps[j].iter().all(|&i| done[i])).min_by_key(|&j| {
            let node = &graph.nodes[j];
            let alloc: i64 = node.outputs.iter().map(|&t| graph.tensors[t].bytes as i64).sum();
            let freed: i64 = node
                .inputs
                .iter()
                .flatten()
                .filter(|&&t| readers[t] == 1 && graph.tensors[t].data.is_none())
                .map(|&t| graph.tensors[t].bytes as i64)
                .sum();
            (alloc - freed, j)
        });
        let Some(j) = best else { break };
        done[j] = true;
        for &t in graph.nodes[j].inputs.iter().flatten() {
            readers[t] = readers[t].saturating_sub(1);
        }
        order.push(j);
    }
    order
}
