#!/usr/bin/python3
"""Oracle for analyses.MultiObjective (Chia et al. 2023, §4.2).

Brute force, independent of the Go code: non-dominated sorting by peeling
the points no remaining point dominates; the Pareto set of each pair
(base, objective) by checking every pair of points, keeping the first of
duplicates (paretoset's distinct=True, as Chia et al. 2023 used); the trade-off
line by numpy.polyfit(m, base, 1); the EvalRS 2022 score by its formula.
Point sets are drawn on coarse grids so that ties and duplicates are
common. Run: /usr/bin/python3 gen.py > cases.json
"""
import json
import sys

import numpy as np


def dominates(a, b):
    return all(x >= y for x, y in zip(a, b)) and any(x > y for x, y in zip(a, b))


def fronts(pts):
    left = set(range(len(pts)))
    out = [0] * len(pts)
    f = 0
    while left:
        f += 1
        cur = [i for i in left if not any(dominates(pts[j], pts[i]) for j in left if j != i)]
        for i in cur:
            out[i] = f
        left -= set(cur)
    return out


def pareto_distinct(pts):
    keep = []
    for i, p in enumerate(pts):
        if any(dominates(q, p) for q in pts):
            continue
        if any(list(pts[j]) == list(p) for j in range(i)):
            continue
        keep.append(i)
    return keep


def case(name, rng, n, k, grid, lower=(), dup=0.2, evalrs=False, importance=None, missing=0, trade=True):
    metrics = ["m%d" % j for j in range(k)]
    better = {m: ("lower" if j in lower else "higher") for j, m in enumerate(metrics)}
    if trade:  # objectives compete with the base, on a coarse grid or not
        u = rng.integers(0, grid, size=n).astype(float) if grid else rng.uniform(0, 1, size=n)
        noise = rng.integers(-1, 2, size=(n, k)).astype(float) if grid else rng.normal(scale=0.15, size=(n, k))
        hi = grid if grid else 1.0
        raw = np.column_stack([hi - u] + [u] * (k - 1)) + noise
    elif grid:
        raw = rng.integers(0, grid, size=(n, k)).astype(float)
    else:
        raw = rng.normal(size=(n, k))
    raw = raw * rng.uniform(0.01, 3, size=k)
    for j in lower:  # stored so that lower is better
        raw[:, j] = -raw[:, j]
    for i in range(1, n):  # duplicate rows
        if rng.random() < dup:
            raw[i] = raw[rng.integers(0, i)]
    miss = sorted(rng.choice(n, size=missing, replace=False).tolist()) if missing else []
    for i in miss:
        raw[i, rng.integers(0, k)] = np.nan
    models = ["model-%d" % rng.integers(0, max(2, n // 2)) for _ in range(n)]
    base, objectives = metrics[0], metrics[1:]
    lam = importance if importance is not None else [float(x) for x in rng.choice([1, 1, 2, 0.5], size=k - 1)]
    orient = np.array([-1.0 if better[m] == "lower" else 1.0 for m in metrics])
    o = raw * orient
    rows = [i for i in range(n) if not np.isnan(raw[i]).any()]
    pts = [tuple(o[i]) for i in rows]
    fr = fronts(pts)
    front = [0] * n
    for kk, i in enumerate(rows):
        front[i] = fr[kk]
    fits, delta = [], []
    for j, m in enumerate(objectives, start=1):
        pair = [(o[i, 0], o[i, j]) for i in rows]
        pr = [rows[kk] for kk in pareto_distinct(pair)]
        x = np.array([o[i, j] for i in pr])
        y = np.array([o[i, 0] for i in pr])
        fit = {"objective": m, "pareto_rows": pr, "slope": None, "intercept": None, "r2": None}
        d = [None] * n
        if len(set(x.tolist())) >= 2:
            slope, icept = np.polyfit(x, y, 1)
            res = y - (slope * x + icept)
            sst = float(((y - y.mean()) ** 2).sum())
            fit.update(slope=float(slope), intercept=float(icept), r2=(1 - float((res ** 2).sum()) / sst) if sst > 0 else None)
            for i in rows:
                d[i] = float(o[i, 0] - icept - lam[j - 1] * slope * o[i, j])
        fits.append(fit)
        delta.append(d)
    score = [None] * n
    if any(f["slope"] is not None for f in fits):
        for i in rows:
            score[i] = float(sum(delta[j][i] for j in range(len(objectives)) if fits[j]["slope"] is not None))
    c = {"name": name, "models": models, "metrics": [{"name": m, "better": better[m]} for m in metrics],
         "values": {m: [None if np.isnan(v) else float(v) for v in raw[:, j]] for j, m in enumerate(metrics)},
         "base": base, "objectives": objectives, "importance": lam}
    exp = {"front": front, "fits": fits, "delta": delta, "score": score}
    if evalrs:
        baseline = {m: float(np.nanmin(raw[:, j])) for j, m in enumerate(metrics)}
        best = {m: float(np.nanmax(raw[:, j])) for j, m in enumerate(metrics)}
        for m in metrics:
            if better[m] == "lower":
                baseline[m], best[m] = best[m], baseline[m]
        half = max(1, k // 2)
        groups = {"acc": {"weight": 1.0, "metrics": metrics[:half]}, "other": {"weight": 1.5, "metrics": metrics[half:]}}
        thr = float(np.nanquantile(raw[:, 0], 0.2))
        c["evalrs2022"] = {"baseline": baseline, "best": best, "groups": groups, "threshold": {base: thr}, "penalty": -100.0}
        total = sum(g["weight"] for g in groups.values())
        ev, pen = [], []
        for i in range(n):
            x0 = raw[i, 0]
            if np.isnan(x0):
                ev.append(None)
                pen.append(False)
                continue
            if orient[0] * x0 < orient[0] * thr:
                ev.append(-100.0)
                pen.append(True)
                continue
            pen.append(False)
            vals = {m: raw[i, j] for j, m in enumerate(metrics)}
            if any(np.isnan(vals[m]) for m in metrics):
                ev.append(None)
                continue
            s = sum(g["weight"] * np.mean([(vals[m] - baseline[m]) / (best[m] - baseline[m]) for m in g["metrics"]]) for g in groups.values())
            ev.append(float(s / total))
        exp["evalrs2022"] = ev
        exp["below_threshold"] = pen
        w = {}
        for g in groups.values():
            for m in g["metrics"]:
                w[m] = g["weight"] / len(g["metrics"]) / total
        implied = []
        for j, m in enumerate(objectives, start=1):
            kk = (w[m] / w[base]) * (orient[0] * (best[base] - baseline[base])) / (orient[j] * (best[m] - baseline[m]))
            f = fits[j - 1]
            implied.append(None if f["slope"] in (None, 0) else float(-kk / f["slope"]))
        exp["implied_importance"] = implied
    c["expected"] = exp
    return c


def main():
    rng = np.random.default_rng(20221011)
    cases = []
    for t in range(12):
        n = int(rng.integers(4, 40))
        k = int(rng.integers(2, 5))
        grid = int(rng.choice([3, 4, 6, 10]))
        lower = tuple(j for j in range(k) if rng.random() < 0.25)
        cases.append(case("grid-%d" % t, rng, n, k, grid, lower=lower, evalrs=(t % 2 == 0), missing=int(t % 3 == 1), trade=(t % 4 != 3)))
    cases.append(case("continuous-300", rng, 300, 4, 0, dup=0.05, evalrs=True))
    cases.append(case("all-equal", rng, 6, 3, 1, dup=1.0))
    cases.append(case("two-points", rng, 2, 2, 0, dup=0.0, importance=[3.0]))
    cases.append(case("random-no-trade", rng, 30, 3, 0, dup=0.1, trade=False, evalrs=True))
    meta = {"generator": "gen.py", "python": sys.version.split()[0], "numpy": np.__version__,
            "reference": "brute-force non-dominated sorting; paretoset distinct=True semantics; numpy.polyfit(m, base, 1)"}
    json.dump({"meta": meta, "cases": cases}, sys.stdout, indent=1)


main()
