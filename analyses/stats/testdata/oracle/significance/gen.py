#!/usr/bin/python3
"""Oracle fixtures for critical_difference and paired_tests.

Run with Debian's /usr/bin/python3 (scipy 1.10, statsmodels 0.13):
    /usr/bin/python3 gen.py > cases.json
Every expected value below comes from scipy / statsmodels; the Bayesian
signed-rank reference is an independent, direct implementation of
baycomp's SignedRankTest (full (n+1)^2 matrices, numpy's Dirichlet).
"""
import json
import sys
import warnings

import numpy as np
import scipy
import statsmodels
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import TTestIndPower, TTestPower

warnings.simplefilter("ignore")
rng = np.random.default_rng(20240825)


def f(x):
    x = float(x)
    return None if not np.isfinite(x) else x


def vec(n, kind):
    if kind == "cont":
        return rng.normal(0.1, 1.0, n)
    if kind == "ties":  # rounded: tied |d| and some zeros
        return np.round(rng.normal(0.2, 1.0, n) * 2) / 2
    if kind == "ties_nozero":
        v = np.round(rng.normal(0.2, 1.0, n) * 2) / 2
        v[v == 0] = 0.5
        return v
    if kind == "zeros":
        v = rng.normal(0.3, 1.0, n)
        v[rng.choice(n, max(1, n // 5), replace=False)] = 0.0
        return v
    if kind == "allzero":
        return np.zeros(n)
    if kind == "shifted":
        return rng.normal(1.5, 1.0, n)
    raise ValueError(kind)


def auto_method(d):
    nz = np.sum(d == 0)
    a = np.abs(d[d != 0])
    ties = len(np.unique(a)) != len(a)
    return "exact" if len(d) <= 50 and nz == 0 and not ties else "approx"


wilcoxon = []
for n in [3, 4, 5, 6, 8, 10, 13, 20, 30, 50, 51, 80]:
    for kind in ["cont", "ties", "ties_nozero", "zeros", "allzero", "shifted"]:
        d = vec(n, kind)
        for zm in ["pratt", "wilcox", "zsplit"]:
            for method in ["exact", "approx", "auto"]:
                for corr in [False, True]:
                    if method != "approx" and corr:
                        continue
                    m = auto_method(d) if method == "auto" else method
                    case = {"d": [float(v) for v in d], "zero_method": zm, "method": method, "correction": corr}
                    try:
                        r = stats.wilcoxon(d, zero_method=zm, correction=corr, method=m)
                        case.update(statistic=f(r.statistic), p=f(r.pvalue), error=False)
                    except ValueError as e:
                        case.update(error=True, message=str(e))
                    wilcoxon.append(case)

friedman = []
for n, k, kind in [(5, 3, "cont"), (10, 4, "cont"), (30, 11, "cont"), (8, 5, "ties"), (12, 3, "ties"), (6, 3, "ties"), (4, 6, "cont")]:
    if kind == "ties":
        q = np.round(rng.normal(0, 1, (n, k)))
    else:
        q = rng.normal(0, 1, (n, k)) + np.linspace(0, 1, k)
    chi, p = stats.friedmanchisquare(*q.T)
    F = (n - 1) * chi / (n * (k - 1) - chi)
    pF = stats.f.sf(F, k - 1, (k - 1) * (n - 1))
    friedman.append({"q": q.tolist(), "chi2": f(chi), "p": f(p), "F": f(F), "pF": f(pF)})

two = []
for n1, n2, kind in [(3, 3, "cont"), (5, 5, "cont"), (8, 8, "cont"), (8, 20, "cont"), (10, 10, "cont"), (10, 10, "ties"),
                     (25, 25, "cont"), (40, 40, "ties"), (6, 6, "ties"), (100, 100, "cont"), (7, 7, "shifted"), (10, 10, "shifted")]:
    a = vec(n1, kind)
    b = vec(n2, "cont" if kind != "ties" else "ties")
    c = {"a": a.tolist(), "b": b.tolist()}
    w = stats.ttest_ind(a, b, equal_var=False)
    u = stats.mannwhitneyu(a, b)
    c.update(welch_t=f(w.statistic), welch_p=f(w.pvalue), u=f(u.statistic), u_p=f(u.pvalue))
    if n1 == n2:
        t = stats.ttest_rel(a, b)
        c.update(paired_t=f(t.statistic), paired_p=f(t.pvalue))
        d = a - b
        k = int(np.sum(d > 0))
        nn = int(np.sum(d != 0))
        c.update(sign_k=k, sign_p=f(stats.binomtest(k, nn, 0.5).pvalue))
    two.append(c)

sign = []
for k, n in [(0, 1), (1, 1), (0, 5), (2, 5), (3, 5), (5, 10), (1, 10), (9, 10), (12, 30), (150, 400), (6, 12), (0, 60)]:
    sign.append({"k": k, "n": n, "p": f(stats.binomtest(k, n, 0.5).pvalue)})

holm = []
for p in [[0.01, 0.04, 0.03, 0.2], [0.5, 0.5, 0.001], [0.9, 0.8, 0.99, 0.7], list(rng.uniform(0, 0.1, 15)), [0.02]]:
    holm.append({"p": [float(v) for v in p], "p_holm": [float(v) for v in multipletests(p, method="holm")[1]]})

shapiro = []
for n, kind in [(3, "cont"), (4, "cont"), (5, "cont"), (6, "cont"), (7, "ties"), (10, "cont"), (11, "cont"), (12, "cont"),
                (20, "ties"), (30, "cont"), (50, "zeros"), (100, "cont"), (500, "cont"), (2000, "cont")]:
    x = vec(n, kind)
    if kind == "cont" and n in (30, 100):
        x = rng.exponential(1.0, n)  # clearly non-normal
    w, p = stats.shapiro(x)
    shapiro.append({"x": x.tolist(), "w": f(w), "p": f(p)})

power = []
for d, n, alpha in [(0.5, 10, 0.05), (0.2, 30, 0.05), (1.2, 5, 0.05), (-0.8, 10, 0.01), (0.05, 100, 0.1), (2.5, 3, 0.05), (0.0, 10, 0.05), (0.3, 1000, 0.05)]:
    power.append({"d": d, "n": n, "alpha": alpha,
                  "paired": f(TTestPower().power(effect_size=d, nobs=n, alpha=alpha, alternative="two-sided")),
                  "independent": f(TTestIndPower().power(effect_size=d, nobs1=n, alpha=alpha, ratio=1.0, alternative="two-sided"))})


def baycomp_signed_rank(x, y, rope, prior, nsamples, rs):
    """baycomp.SignedRankTest.probs, written out: diff = y - x."""
    def heaviside(a, thresh):
        return (a > thresh).astype(float) + 0.5 * (a == thresh).astype(float)
    diff = np.hstack(([0.0], y - x))
    sums = diff[:, None] + diff[None, :]
    weights = np.ones(len(diff))
    weights[0] = prior
    dirichlet = rs.dirichlet(weights, nsamples)
    above = heaviside(sums, 2 * rope)
    below = heaviside(-sums, 2 * rope)
    samples = np.zeros((nsamples, 3))
    for i, w in enumerate(dirichlet):
        ww = np.outer(w, w)
        samples[i, 2] = np.sum(ww * above)
        samples[i, 0] = np.sum(ww * below) if rope > 0 else 1 - samples[i, 2]
    if rope > 0:
        samples[:, 1] = 1 - samples[:, 0] - samples[:, 2]
        winners = np.argmax(samples, axis=1)
        pl, pe, pr = np.bincount(winners, minlength=3) / nsamples
        return float(pl), float(pe), float(pr)
    pl = float(np.mean(samples[:, 0] > samples[:, 2]))
    return pl, 0.0, 1 - pl


# scipy's studentized_range (infinite df) as a second, tighter oracle for
# the quantile, including k beyond R's fixture (gen.R, k <= 50).
tukey = []
for k in [2, 3, 5, 7, 11, 20, 33, 50, 75, 100]:
    for a in [0.01, 0.05, 0.10]:
        tukey.append({"k": k, "alpha": a, "q": float(stats.studentized_range.ppf(1 - a, k, np.inf))})

bayes = []
rs = np.random.RandomState(7)
for n, shift, rope in [(30, 0.02, 0.0), (30, 0.01, 0.01), (10, 0.0, 0.0), (15, -0.02, 0.02), (30, 0.005, 0.01), (20, 0.0, 0.05), (12, 0.01, 0.0)]:
    x = rng.normal(0.3, 0.05, n)
    y = x - shift + rng.normal(0, 0.05, n)
    y = np.round(y, 3)
    x = np.round(x, 3)
    pl, pe, pr = baycomp_signed_rank(x, y, rope, 0.5, 50000, rs)
    bayes.append({"a": x.tolist(), "b": y.tolist(), "rope": rope, "p_left": pl, "p_rope": pe, "p_right": pr})

# Statistics (not data) of the reference results of Shevchenko et al.
# 2024, when present: ndcg@10 paired by dataset name, Friedman and every
# pairwise Wilcoxon (zero_method="pratt", as their code) with Holm. The
# reference file itself is never copied into the project.
shevchenko = None
try:
    import csv
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), *[".."] * 5, "shared", "reference",
                        "shevchenko2024", "agg_metrics.csv")
    vals = {}
    with open(path) as fh:
        for r in csv.DictReader(fh):
            if r["Metric"] == "ndcg" and r["k"] == "10" and r["Value"] != "":
                vals[(r["Method"], r["Dataset"])] = float(r["Value"])
    ms = sorted({m for m, _ in vals})
    ds = sorted({d for _, d in vals})
    q = np.array([[vals[(m, d)] for m in ms] for d in ds])
    chi, p = stats.friedmanchisquare(*q.T)
    pairs = []
    for i in range(len(ms)):
        for j in range(i + 1, len(ms)):
            d = q[:, i] - q[:, j]
            m = auto_method(d)
            r = stats.wilcoxon(q[:, i], q[:, j], zero_method="pratt", method=m)
            pairs.append({"a": ms[i], "b": ms[j], "statistic": f(r.statistic), "p": f(r.pvalue)})
    ph = multipletests([x["p"] for x in pairs], method="holm")[1]
    for x, v in zip(pairs, ph):
        x["p_holm"] = float(v)
    shevchenko = {"metric": "ndcg@10", "friedman": f(chi), "friedman_p": f(p), "pairs": pairs}
except FileNotFoundError:
    pass

json.dump({
    "shevchenko": shevchenko,
    "generator": "gen.py",
    "versions": {"python": sys.version.split()[0], "numpy": np.__version__, "scipy": scipy.__version__,
                 "statsmodels": statsmodels.__version__},
    "wilcoxon": wilcoxon, "friedman": friedman, "two_sample": two, "sign": sign, "holm": holm,
    "shapiro": shapiro, "power": power, "bayes": bayes, "tukey": tukey,
}, sys.stdout, indent=None, separators=(",", ":"))
