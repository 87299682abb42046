#!/usr/bin/python3
"""Oracle for analyses/correlation.go (Shevchenko et al. 2024, §4.1).

Writes cases.json:
  pairs:  x, y and scipy.stats spearmanr / pearsonr / kendalltau (tau-b)
          coefficients, ties included; null where scipy returns nan.
  studies: per-dataset metric values (null = missing) and the expected
          metric_correlation matrix: per dataset, the coefficient across the
          methods where both metrics are present, averaged over datasets
          where it is defined, with the count of those datasets.
Run: /usr/bin/python3 gen.py  (from this directory)
"""
import json
import math
import warnings

import numpy as np
import scipy
import scipy.stats as st

warnings.simplefilter("ignore")  # constant-input warnings: nan is the answer
rng = np.random.default_rng(20241121)


def coef(method, x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 2:
        return math.nan
    if method == "spearman":
        return float(st.spearmanr(x, y)[0])
    if method == "pearson":
        if np.all(x == x[0]) or np.all(y == y[0]):
            return math.nan
        return float(st.pearsonr(x, y)[0])
    return float(st.kendalltau(x, y, variant="b")[0])


def num(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else v


pairs = []
def add_pair(x, y, note):
    x = [float(v) for v in x]
    y = [float(v) for v in y]
    pairs.append({"note": note, "x": x, "y": y,
                  **{m: num(coef(m, x, y)) for m in ("spearman", "pearson", "kendall")}})

for n in (2, 3, 5, 8, 11, 30, 200):
    add_pair(rng.normal(size=n), rng.normal(size=n), f"continuous n={n}")
    add_pair(rng.integers(0, 4, size=n), rng.integers(0, 3, size=n), f"heavy ties n={n}")
    x = rng.normal(size=n)
    add_pair(x, 2 * x + rng.normal(scale=0.3, size=n), f"correlated n={n}")
    add_pair(np.round(x, 1), -np.round(x, 1) + rng.integers(0, 2, size=n), f"ties on both sides n={n}")
add_pair([1, 2, 3, 4], [4, 3, 2, 1], "perfect negative")
add_pair([1, 1, 1, 1], [1, 2, 3, 4], "constant x")
add_pair([1, 2, 3, 4], [5, 5, 5, 5], "constant y")
add_pair([1, 1, 2, 2], [1, 2, 1, 2], "tied both, zero")
add_pair([1e-9, 2e-9, 3e-9, 3e-9, 5e-9], [1e9, 3e9, 2e9, 2e9, 4e9], "tiny and huge scales")


def study(name, metrics, better, D, M, missing=0.1, constant=None):
    vals = {}
    base = rng.normal(size=(D, M))
    for k, m in enumerate(metrics):
        noise = rng.normal(scale=0.3 + 0.4 * k, size=(D, M))
        v = base * (1 if k % 3 else -1) + noise
        if k == 1:
            v = np.round(v, 1)  # ties
        mask = rng.random(size=(D, M)) < missing
        v = np.where(mask, np.nan, v)
        vals[m] = v
    if constant:
        m, d = constant
        vals[m][d, :] = 0.5
    out = {"name": name, "metrics": metrics, "better": better,
           "datasets": [f"d{d}" for d in range(D)], "methods": [f"m{j}" for j in range(M)],
           "values": {m: [[num(float(v)) for v in row] for row in vals[m]] for m in metrics},
           "expected": {}}
    for method in ("spearman", "pearson", "kendall"):
        for raw in (False, True):
            rho, cnt = [], []
            for a in metrics:
                ra, ca = [], []
                for b in metrics:
                    s, c = 0.0, 0
                    for d in range(D):
                        xa, xb = vals[a][d], vals[b][d]
                        ok = ~np.isnan(xa) & ~np.isnan(xb)
                        x, y = xa[ok], xb[ok]
                        if not raw:
                            x = -x if better[a] == "lower" else x
                            y = -y if better[b] == "lower" else y
                        r = coef(method, x, y)
                        if math.isnan(r):
                            continue
                        s += 1.0 if a == b else r
                        c += 1
                    ra.append(s / c if c else None)
                    ca.append(c)
                rho.append(ra)
                cnt.append(ca)
            out["expected"][f"{method}{'-raw' if raw else ''}"] = {"rho": rho, "datasets": cnt}
    return out


studies = [
    study("small", ["ndcg", "recall", "rmse"], {"ndcg": "higher", "recall": "higher", "rmse": "lower"}, 5, 6),
    study("seedlike", ["ndcg@10", "precision@10", "recall@10", "map@10", "mrr@10", "coverage@10"],
          {m: "higher" for m in ["ndcg@10", "precision@10", "recall@10", "map@10", "mrr@10", "coverage@10"]},
          30, 11, missing=0.05, constant=("coverage@10", 3)),
]

with open("cases.json", "w") as f:
    json.dump({"generator": "gen.py", "numpy": np.__version__, "scipy": scipy.__version__,
               "pairs": pairs, "studies": studies}, f, indent=1)
    f.write("\n")
