#!/usr/bin/python3
"""Oracle for offline_metrics' run comparison: writes cases.json.

* Fisher's randomization test (ranx's fisher_randomization_test; Smucker,
  Allan & Carterette 2007): p = share of sign vectors s with
  |sum(s*d)| >= |sum(d)|. Exact enumeration of all 2^n vectors (numpy) for
  n <= 20; for n = 200 a Monte Carlo estimate with 100,000 random vectors
  (numpy's PCG64, seed 7), which the Go side must match within 0.01.
* Paired Student t: scipy.stats.ttest_rel(a, b).pvalue.
* Holm and Bonferroni: statsmodels.stats.multitest.multipletests.

Run: /usr/bin/python3 gen.py
"""
import json, os, sys
import numpy as np
import scipy, scipy.stats
import statsmodels
from statsmodels.stats.multitest import multipletests

rng = np.random.default_rng(20261123)


def fisher_exact(d):
    n = len(d)
    obs = abs(d.sum())
    count = 0
    tol = 1e-9 * np.abs(d).sum()
    chunk = 1 << 16
    for start in range(0, 1 << n, chunk):
        masks = np.arange(start, min(start + chunk, 1 << n), dtype=np.int64)
        signs = 1 - 2 * ((masks[:, None] >> np.arange(n)) & 1)
        s = np.abs(signs @ d)
        count += int((s >= obs - tol).sum())
    return count / (1 << n)


def fisher_mc(d, perms):
    g = np.random.default_rng(7)
    obs = abs(d.sum())
    tol = 1e-9 * np.abs(d).sum()
    count = 0
    for _ in range(perms // 10000):
        signs = g.choice([-1.0, 1.0], size=(10000, len(d)))
        count += int((np.abs(signs @ d) >= obs - tol).sum())
    return count / perms


def metric_values(n, shift):
    a = rng.integers(0, 11, n) / 10.0  # AP-like values on a grid: ties and zero differences
    b = np.clip(a + rng.normal(shift, 0.15, n).round(1), 0, 1)
    return a, b


cases = {"fisher": [], "student": [], "adjust": []}
for n, shift in [(5, 0.1), (8, 0.0), (12, 0.05), (12, 0.2), (20, 0.05), (200, 0.02), (200, 0.0)]:
    a, b = metric_values(n, shift)
    d = a - b
    if n <= 20:
        cases["fisher"].append({"a": a.tolist(), "b": b.tolist(), "p": fisher_exact(d), "exact": True})
    else:
        cases["fisher"].append({"a": a.tolist(), "b": b.tolist(), "p": fisher_mc(d, 100000), "exact": False})
for n, shift in [(3, 0.1), (10, 0.05), (50, 0.02), (500, 0.01)]:
    a, b = metric_values(n, shift)
    a = a + rng.normal(0, 0.01, n)
    cases["student"].append({"a": a.tolist(), "b": b.tolist(), "p": float(scipy.stats.ttest_rel(a, b).pvalue)})
for m in [1, 3, 6, 10]:
    p = rng.uniform(0, 0.1, m).tolist()
    cases["adjust"].append({"p": p,
                            "holm": multipletests(p, method="holm")[1].tolist(),
                            "bonferroni": multipletests(p, method="bonferroni")[1].tolist()})
meta = {"python": sys.version.split()[0], "numpy": np.__version__, "scipy": scipy.__version__,
        "statsmodels": statsmodels.__version__}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases.json"), "w") as f:
    json.dump({"meta": meta, **cases}, f, indent=1)
    f.write("\n")
