#!/usr/bin/python3
"""Oracle fixtures for analyses.Aggregate (Shevchenko et al. 2024, §3.4).

Ranks and means come from scipy (rankdata, gmean, hmean); the voting rules
(Copeland, Minimax, Borda, Plurality, Dowdall) and the Dolan–Moré rules are
written here independently of the Go code, straight from the rules' written
definitions (Shevchenko et al. 2024; Rofin et al. 2023).
Matrices are random with deliberate ties (values drawn from a small grid)
and include zeros for the means' zero rule.

Run: /usr/bin/python3 gen.py > cases.json
"""
import json
import sys

import numpy as np
import scipy
from scipy.stats import gmean, hmean, rankdata


def per_dataset_ranks(q, higher):
    # 1 = best, ties averaged
    return np.array([rankdata(-row if higher else row, method="average") for row in q])


def better(a, b, higher):
    return a > b if higher else a < b


def voting(q, higher):
    d, m = q.shape
    s = np.zeros((m, m), dtype=int)  # s[a][b]: datasets where a is better than b
    for row in q:
        for a in range(m):
            for b in range(m):
                if better(row[a], row[b], higher):
                    s[a][b] += 1
    copeland = []
    minimax = []
    for a in range(m):
        wins = sum(1 for b in range(m) if b != a and s[a][b] > s[b][a])
        losses = sum(1 for b in range(m) if b != a and s[b][a] > s[a][b])
        copeland.append(float(wins - losses))
        beaters = [s[b][a] for b in range(m) if b != a and s[b][a] > s[a][b]]
        minimax.append(-float(max(beaters)) if beaters else 0.0)
    r = per_dataset_ranks(q, higher)
    borda = [float(np.sum(m - r[:, j])) for j in range(m)]
    dowdall = [float(np.sum(1.0 / r[:, j])) for j in range(m)]
    plurality = [0.0] * m
    for row in r:
        best = row.min()
        winners = [j for j in range(m) if row[j] == best]
        for j in winners:
            plurality[j] += 1.0 / len(winners)
    return copeland, minimax, borda, plurality, dowdall


def grid(beta_max):
    n = int(np.floor((beta_max - 1) * 10 + 1e-9))
    g = [1 + i / 10 for i in range(n + 1)]
    if beta_max - g[-1] > 1e-9:
        g.append(beta_max)
    return g


def dm_areas(q, higher, beta_max):
    d, m = q.shape
    betas = grid(beta_max)
    areas = []
    for j in range(m):
        rho = []
        for b in betas:
            c = 0
            for row in q:
                best = row.max() if higher else row.min()
                v = row[j]
                if v == best:
                    r = 1.0
                elif higher:
                    r = np.inf if v == 0 else best / v
                else:
                    r = np.inf if best == 0 else v / best
                if r <= b * (1 + 1e-12):
                    c += 1
            rho.append(c / d)
        area = sum((betas[i] - betas[i - 1]) * (rho[i] + rho[i - 1]) / 2 for i in range(1, len(betas)))
        areas.append(area)
    return np.array(areas)


def dm_auc(q, higher, beta_max):
    a = dm_areas(q, higher, beta_max)
    return list(a / a.sum()) if a.sum() > 0 else [1 / len(a)] * len(a)


def dm_lbo(q, higher, beta_max):
    m = q.shape[1]
    left = list(range(m))
    rank = [0.0] * m
    nxt = 1
    while left:
        a = dm_areas(q[:, left], higher, beta_max)
        best = a.max()
        win = [left[i] for i in range(len(left)) if a[i] >= best - 1e-12 * max(1, abs(best))]
        for w in win:
            rank[w] = nxt + (len(win) - 1) / 2
        nxt += len(win)
        left = [x for x in left if x not in win]
    return rank


def main():
    rng = np.random.default_rng(20241121)
    cases = []
    for c in range(40):
        d = int(rng.integers(2, 12))
        m = int(rng.integers(2, 9))
        higher = bool(c % 3 != 2)
        # a coarse grid makes ties common; some cases allow zeros
        step = [0.01, 0.05, 0.1][c % 3]
        lo = 0.0 if c % 4 == 0 else step
        q = np.round(rng.uniform(lo, 1.0, size=(d, m)) / step) * step
        if c % 4 == 0:
            q[0, 0] = 0.0
        beta_max = [3.0, 1.5, 2.25, 10.0][c % 4]
        r = per_dataset_ranks(q, higher)
        copeland, minimax, borda, plurality, dowdall = voting(q, higher)
        cases.append({
            "name": f"case{c}",
            "higher_is_better": higher,
            "beta_max": beta_max,
            "q": q.tolist(),
            "expected": {
                "mean_rank": list(r.mean(axis=0)),
                "mean": list(q.mean(axis=0)),
                "geometric_mean": [0.0 if np.any(q[:, j] == 0) else float(gmean(q[:, j])) for j in range(m)],
                "harmonic_mean": [0.0 if np.any(q[:, j] == 0) else float(hmean(q[:, j])) for j in range(m)],
                "copeland": copeland,
                "minimax": minimax,
                "borda": borda,
                "plurality": plurality,
                "dowdall": dowdall,
                "dm_auc": [float(x) for x in dm_auc(q, higher, beta_max)],
                "dm_lbo": dm_lbo(q, higher, beta_max),
            },
        })
    json.dump({"generator": "gen.py", "numpy": np.__version__, "scipy": scipy.__version__,
               "python": sys.version.split()[0], "cases": cases}, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
