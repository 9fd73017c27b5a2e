#!/usr/bin/env python3
"""Fits `compiler/src/lowering/cost.rs`'s PER_OP table on the per-op rows
`cycle-estimates --csv FILE` writes: for each operator and arithmetic of
the ops with one kernel, non-negative cycles per multiply-accumulate, per
output element, per activation input element and fixed, by least squares
on the relative error (floored at 2,000 cycles, so that large ops count
most). Prints the table's rows.

    python3 tests/tools/fit_costs.py FILE.csv
"""
import collections
import csv
import sys

import numpy as np


def nnls(a, b, iterations=200):
    """Lawson-Hanson non-negative least squares (small problems)."""
    n = a.shape[1]
    passive = np.zeros(n, dtype=bool)
    x = np.zeros(n)
    for _ in range(iterations):
        w = a.T @ (b - a @ x)
        free = ~passive & (w > 1e-9)
        if not free.any():
            break
        passive[np.argmax(np.where(free, w, -np.inf))] = True
        while True:
            z = np.zeros(n)
            z[passive] = np.linalg.lstsq(a[:, passive], b, rcond=None)[0]
            if (z[passive] > 0).all():
                x = z
                break
            neg = passive & (z <= 0)
            alpha = np.min(x[neg] / (x[neg] - z[neg]))
            x = x + alpha * (z - x)
            passive &= x > 1e-12
    return x


def main(path):
    rows = [r for r in csv.DictReader(open(path)) if r["variants"] == "1"]
    groups = collections.defaultdict(list)
    for r in rows:
        groups[(r["op"], r["arithmetic"])].append(r)
    for (op, arithmetic), rs in sorted(groups.items()):
        y = np.array([float(r["measured"]) for r in rs])
        feats = np.array([[float(r["macs"]), float(r["outputs"]), float(r["inputs"]), 1.0] for r in rs])
        # Few rows: one size (MACs where the op has them, else outputs)
        # and no fixed part, so the fit does not just interpolate.
        if len(rs) < 4:
            keep = [0] if feats[:, 0].any() else [1]
        else:
            keep = [k for k in range(4) if feats[:, k].any()]
        w = 1.0 / np.maximum(y, 2000.0)
        coef = np.zeros(4)
        coef[keep] = nnls(feats[:, keep] * w[:, None], y * w)
        tenths = [int(round(c * 10)) for c in coef[:3]]
        fixed = int(round(coef[3]))
        print(f'    ("{op}", "{arithmetic}", {tenths[0]}, {tenths[1]}, {tenths[2]}, {fixed}),')


if __name__ == "__main__":
    main(sys.argv[1])
