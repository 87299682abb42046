#!/usr/bin/python3
"""Oracle for the `stability` analysis (Shevchenko et al. 2024, §4.2.3, App. B).

Writes cases.json next to this script:

* "spearman": vector pairs with ties and scipy.stats.spearmanr's rho (NaN
  written as null, for a constant vector).
* "stability": small matrices (6 datasets x 5 methods) and every point of
  every curve, the summary areas and the Pareto-efficacy counts, computed by
  brute force: every subset is enumerated with itertools, every rule is
  re-implemented here from its written definition (Shevchenko et al. 2024,
  §3.4; not translated from the Go code), scores and similarity use
  numpy/scipy.

Run: /usr/bin/python3 analyses/testdata/oracle/stability/gen.py
"""
import itertools
import json
import math
import os
import sys
import warnings

import numpy as np
import scipy
import scipy.stats as ss

warnings.simplefilter("ignore")  # spearmanr warns on constant input (nan)

RULES = ["dm_auc", "dm_lbo", "mean_rank", "mean", "geometric_mean", "harmonic_mean",
         "copeland", "minimax", "borda", "plurality", "dowdall"]


# ---- the aggregation rules ----------------------------------------------

def oriented(q, higher):
    q = np.asarray(q, dtype=float)
    return q if higher else -q


def per_dataset_ranks(q, higher):
    # 1 = best, average ties
    return np.array([ss.rankdata(-row) for row in oriented(q, higher)])


def beta_grid(beta_max):
    n = int(math.floor((beta_max - 1) * 10 + 1e-9))
    g = [1 + i / 10 for i in range(n + 1)]
    if beta_max - g[-1] > 1e-9:
        g.append(beta_max)
    return g


def dm_areas(q, higher, beta_max):
    q = np.asarray(q, dtype=float)
    nd, nm = q.shape
    grid = beta_grid(beta_max)
    areas = []
    for m in range(nm):
        ratios = []
        for d in range(nd):
            row = q[d]
            best = row.max() if higher else row.min()
            v = row[m]
            if v == best:
                r = 1.0
            elif higher:
                r = best / v if v != 0 else math.inf
            else:
                r = v / best if best != 0 else math.inf
            ratios.append(r)
        rho = [sum(1 for r in ratios if r <= b * (1 + 1e-12)) / nd for b in grid]
        a = 0.0
        for i in range(1, len(grid)):
            a += (grid[i] - grid[i - 1]) * (rho[i] + rho[i - 1]) / 2
        areas.append(a)
    return areas


def dm_auc(q, higher, beta_max):
    a = dm_areas(q, higher, beta_max)
    t = sum(a)
    if t > 0:
        return [x / t for x in a]
    return [1 / len(a)] * len(a)


def dm_lbo(q, higher, beta_max):
    q = np.asarray(q, dtype=float)
    nm = q.shape[1]
    left = list(range(nm))
    rank = [0.0] * nm
    nxt = 1
    while left:
        a = dm_areas(q[:, left], higher, beta_max)
        best = max(a)
        win = [m for m, x in zip(left, a) if x >= best - 1e-12 * max(1, abs(best))]
        for m in win:
            rank[m] = nxt + (len(win) - 1) / 2
        nxt += len(win)
        left = [m for m in left if m not in win]
    return rank


def wins(q, higher):
    o = oriented(q, higher)
    nm = o.shape[1]
    return [[int(np.sum(o[:, a] > o[:, b])) for b in range(nm)] for a in range(nm)]


def copeland(q, higher):
    w = wins(q, higher)
    nm = len(w)
    return [float(sum((w[a][b] > w[b][a]) - (w[b][a] > w[a][b]) for b in range(nm) if b != a)) for a in range(nm)]


def minimax(q, higher):
    w = wins(q, higher)
    nm = len(w)
    out = []
    for a in range(nm):
        beaters = [w[b][a] for b in range(nm) if b != a and w[b][a] > w[a][b]]
        out.append(-float(max(beaters)) if beaters else 0.0)
    return out


def scores(rule, q, higher, beta_max):
    q = np.asarray(q, dtype=float)
    nm = q.shape[1]
    if rule == "mean_rank":
        return list(per_dataset_ranks(q, higher).mean(axis=0))
    if rule == "mean":
        return list(q.mean(axis=0))
    if rule == "geometric_mean":
        return list(ss.gmean(q, axis=0))
    if rule == "harmonic_mean":
        return list(ss.hmean(q, axis=0))
    if rule == "dm_auc":
        return dm_auc(q, higher, beta_max)
    if rule == "dm_lbo":
        return dm_lbo(q, higher, beta_max)
    if rule == "copeland":
        return copeland(q, higher)
    if rule == "minimax":
        return minimax(q, higher)
    r = per_dataset_ranks(q, higher)
    if rule == "borda":
        return list((nm - r).sum(axis=0))
    if rule == "dowdall":
        return list((1 / r).sum(axis=0))
    if rule == "plurality":
        out = np.zeros(nm)
        for row in r:
            w = row == row.min()
            out[w] += 1 / w.sum()
        return list(out)
    raise ValueError(rule)


def score_higher_better(rule, higher):
    if rule in ("mean", "geometric_mean", "harmonic_mean"):
        return higher
    return rule not in ("mean_rank", "dm_lbo")


# ---- similarity and Pareto ------------------------------------------------

def rho(x, y):
    return float(ss.spearmanr(x, y).correlation)


def violates(q, s, rule, higher):
    """True when the rule ranks a dominated method strictly above a method
    that is at least as good on every dataset and better on one."""
    o = oriented(q, higher)
    nm = o.shape[1]
    sc = np.asarray(s) if score_higher_better(rule, higher) else -np.asarray(s)
    rank = ss.rankdata(-sc)
    for a in range(nm):
        for b in range(nm):
            if a != b and np.all(o[:, a] >= o[:, b]) and np.any(o[:, a] > o[:, b]) and rank[b] < rank[a]:
                return True
    return False


# ---- perturbations --------------------------------------------------------

def stability(q, higher, bound, opts):
    q = np.asarray(q, dtype=float)
    nd, nm = q.shape
    bm = opts["beta_max"]
    ref = {r: scores(r, q, higher, bm) for r in RULES}
    checked = {r: 0 for r in RULES}
    viol = {r: 0 for r in RULES}

    def evaluate(mat, rules, beta):
        out = {}
        for r in rules:
            s = scores(r, mat, higher, beta)
            checked[r] += 1
            if violates(mat, s, r, higher):
                viol[r] += 1
            out[r] = s
        return out

    def clamp(v):
        return np.minimum(v, bound) if bound is not None else v

    evaluate(q, RULES, bm)  # the full data
    curves = []

    def point(size, vals):
        good = [v for v in vals if not math.isnan(v)]
        return {"size": size,
                "mean_rho": float(np.mean(good)) if good else None,
                "sd_rho": float(np.std(good, ddof=1)) if len(good) > 1 else None,
                "count": len(good), "undefined": len(vals) - len(good)}

    def add(name, rules, pts):  # pts: list of (size, {rule: [rho...]})
        for r in rules:
            curves.append({"perturbation": name, "rule": r,
                           "points": [point(sz, vals[r]) for sz, vals in pts]})

    # drop_datasets
    pts = []
    for i in range(1, nd - 1):
        vals = {r: [] for r in RULES}
        for drop in itertools.combinations(range(nd), i):
            keep = [d for d in range(nd) if d not in drop]
            s = evaluate(q[keep], RULES, bm)
            for r in RULES:
                vals[r].append(rho(ref[r], s[r]))
        pts.append((i, vals))
    add("drop_datasets", RULES, pts)

    # drop_methods
    pts = []
    for i in range(1, nm - 2):
        vals = {r: [] for r in RULES}
        for drop in itertools.combinations(range(nm), i):
            keep = [m for m in range(nm) if m not in drop]
            s = evaluate(q[:, keep], RULES, bm)
            for r in RULES:
                vals[r].append(rho([ref[r][m] for m in keep], s[r]))
        pts.append((i, vals))
    add("drop_methods", RULES, pts)

    # similar_method
    pts = []
    for a in opts["alpha_similar"]:
        vals = {r: [] for r in RULES}
        for m in range(nm):
            mat = np.column_stack([q, clamp(a * q[:, m])])
            s = evaluate(mat, RULES, bm)
            for r in RULES:
                vals[r].append(rho(ref[r], s[r][:nm]))
        pts.append((a, vals))
    add("similar_method", RULES, pts)

    # best_method
    pts = []
    for a in opts["alpha_best"]:
        best = q.max(axis=1) if higher else q.min(axis=1)
        new = clamp(a * best) if higher else clamp(best / a)
        s = evaluate(np.column_stack([q, new]), RULES, bm)
        pts.append((a, {r: [rho(ref[r], s[r][:nm])] for r in RULES}))
    add("best_method", RULES, pts)

    # beta (DM rules only)
    dm = ["dm_auc", "dm_lbo"]
    pts = []
    for b in opts["betas"]:
        s = evaluate(q, dm, b)
        pts.append((b, {r: [rho(ref[r], s[r])] for r in dm}))
    add("beta", dm, pts)

    # subset_pairs: every unordered pair of disjoint subsets
    pts = []
    for size in opts["subset_sizes"]:
        vals = {r: [] for r in RULES}
        for a in itertools.combinations(range(nd), size):
            rest = [d for d in range(nd) if d not in a]
            for b in itertools.combinations(rest, size):
                if not list(a) < list(b):
                    continue
                sa = evaluate(q[list(a)], RULES, bm)
                sb = evaluate(q[list(b)], RULES, bm)
                for r in RULES:
                    vals[r].append(rho(sa[r], sb[r]))
        pts.append((size, vals))
    add("subset_pairs", RULES, pts)

    # Normalised area: trapezoid area under the defined points over their
    # x range (the curve's mean height).
    areas = []
    for c in curves:
        if c["perturbation"] == "subset_pairs":
            continue
        pts = [(p["size"], p["mean_rho"]) for p in c["points"] if p["mean_rho"] is not None]
        if not pts:
            a = None
        elif len(pts) == 1:
            a = pts[0][1]
        else:
            x, y = zip(*pts)
            a = float(np.trapz(y, x) / (x[-1] - x[0]))
        areas.append({"perturbation": c["perturbation"], "rule": c["rule"], "area": a})
    return {"reference": {r: [float(x) for x in ref[r]] for r in RULES}, "curves": curves, "areas": areas,
            "pareto": [{"rule": r, "checked": checked[r], "violations": viol[r]} for r in RULES]}


def main():
    rng = np.random.default_rng(20240825)
    spearman = []
    for n, levels in [(5, 3), (8, 4), (12, 5), (20, 6), (7, 2)]:
        x = rng.integers(0, levels, n).astype(float)
        y = rng.integers(0, levels, n).astype(float) + rng.integers(0, 2, n) * 0.5
        spearman.append({"x": x.tolist(), "y": y.tolist(), "rho": rho(x, y)})
    x = rng.random(10)
    spearman.append({"x": x.tolist(), "y": (x ** 3 + 1).tolist(), "rho": rho(x, x ** 3 + 1)})
    spearman.append({"x": [1.0, 2.0, 3.0, 4.0], "y": [2.0, 2.0, 2.0, 2.0], "rho": None})
    spearman.append({"x": [3.0, 1.0, 2.0, 2.0, 5.0], "y": [0.1, 0.3, 0.3, 0.2, 0.0], "rho": rho([3, 1, 2, 2, 5], [0.1, 0.3, 0.3, 0.2, 0.0])})

    opts = {
        "repeats": 100,
        "alpha_similar": [(85 + i) / 100 for i in range(31)],
        "alpha_best": [(10 + i) / 10 for i in range(31)],
        "betas": [(15 + i) / 10 for i in range(86)],
        "beta_max": 3.0,
        "subset_sizes": [2, 3],
    }

    # Higher is better, bounded at 0.6 (clamping bites in similar/best);
    # values on a 0.005 grid so some datasets have ties; method 4 is a
    # degraded copy of method 0 (dominated) so the Pareto check has work.
    q1 = np.round(rng.uniform(0.05, 0.55, (6, 5)) / 0.005) * 0.005
    q1[:, 4] = np.round(q1[:, 0] * 0.8, 6)
    q1[2, 3] = q1[2, 1]
    q1[5, 2] = q1[5, 0]
    # Lower is better (an error metric), unbounded.
    q2 = np.round(rng.uniform(0.7, 1.3, (6, 5)), 3)
    q2[:, 1] = q2[:, 3] + 0.01
    q2[0, 2] = q2[0, 0]

    cases = []
    for name, q, higher, bound in [("higher_bounded", q1, True, 0.6), ("lower", q2, False, None)]:
        out = stability(q, higher, bound, opts)
        cases.append({"name": name, "q": q.tolist(), "higher_is_better": higher, "max": bound,
                      "options": opts, **out})

    doc = {"generator": "analyses/testdata/oracle/stability/gen.py",
           "python": sys.version.split()[0], "numpy": np.__version__, "scipy": scipy.__version__,
           "spearman": spearman, "stability": cases}
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "cases.json"), "w") as f:
        json.dump(doc, f, indent=1, allow_nan=False)
        f.write("\n")


if __name__ == "__main__":
    main()
