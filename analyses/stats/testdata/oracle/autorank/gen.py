#!/usr/bin/python3
"""Oracle fixtures for autorank's automatic test choice.

Run with Debian's /usr/bin/python3 (scipy 1.10, statsmodels 0.13):
    /usr/bin/python3 gen.py > cases.json
Every expected number comes from scipy / statsmodels (the t quantile of
the mean's interval polished with mpmath, see t_upper): shapiro, bartlett,
levene, friedmanchisquare, ttest_rel, wilcoxon, t.interval, binom,
median_abs_deviation, studentized_range; statsmodels' AnovaRM and
pairwise_tukeyhsd (which in 0.13 take the studentized range from scipy).
The decision rules are those of autorank (Herbold 2020) written out here
(autorank itself is not installed): Shapiro-Wilk at alpha/k, Bartlett if
all normal else Levene (median centre), then ANOVA+Tukey / Friedman+Nemenyi
/ paired t / Wilcoxon; effect sizes and magnitudes as autorank's _util.py.
Deliberate differences from autorank 1.x, also in the Go doc comments:
two-sided Wilcoxon, Tukey at the given alpha, exact binomial median CI.
"""
import json
import sys
import warnings

import mpmath
import numpy as np
import pandas as pd
import scipy
import statsmodels
from scipy import stats
from statsmodels.stats.anova import AnovaRM
from statsmodels.stats.multicomp import pairwise_tukeyhsd

warnings.simplefilter("ignore")
rng = np.random.default_rng(20261128)


def f(x):
    x = float(x)
    return None if not np.isfinite(x) else x


def magnitude(e, cuts):
    e = abs(e)
    if not np.isfinite(e):
        return ""
    for c, name in zip(cuts, ["negligible", "small", "medium"]):
        if e < c:
            return name
    return "large"


def cohen_d(x, y):
    nx, ny = len(x), len(y)
    s = np.sqrt(((nx - 1) * np.std(x, ddof=1) ** 2 + (ny - 1) * np.std(y, ddof=1) ** 2) / (nx + ny - 2))
    return (np.mean(x) - np.mean(y)) / s


def akinshin_gamma(x, y):
    nx, ny = len(x), len(y)
    mx = stats.median_abs_deviation(x, scale=1 / 1.4826)
    my = stats.median_abs_deviation(y, scale=1 / 1.4826)
    s = np.sqrt(((nx - 1) * mx ** 2 + (ny - 1) * my ** 2) / (nx + ny - 2))
    return (np.median(x) - np.median(y)) / s


def cliffs_delta(x, y):
    s = 0
    for a in x:
        for b in y:
            s += int(a > b) - int(a < b)
    return s / (len(x) * len(y))


def median_ci(x, alpha):
    """Largest l >= 1 with P(B <= l-1) <= alpha/2, B ~ Bin(n, 1/2)."""
    s = np.sort(x)
    n = len(s)
    l = 1
    for j in range(1, n // 2 + 1):
        if stats.binom.cdf(j, n, 0.5) > alpha / 2:
            break
        l = j + 1
    tail = stats.binom.cdf(l - 1, n, 0.5)
    return float(s[l - 1]), float(s[n - l]), float(1 - 2 * tail)


def t_upper(a, df):
    """t with P(T > t) = a: scipy 1.10's t.ppf (cephes stdtrit) is off by up
    to about 5e-9 relative (t.ppf(0.975, 39) = 2.022690911734728 has an
    upper tail of 0.0250000004475), so its root is polished with mpmath on
    the regularized incomplete beta, 1/2 I(df/(df+t^2); df/2, 1/2)."""
    mpmath.mp.dps = 40
    t0 = stats.t.isf(a, df)
    g = lambda t: mpmath.betainc(mpmath.mpf(df) / 2, 0.5, 0, df / (df + t * t), regularized=True) / 2 - mpmath.mpf(a)
    return float(mpmath.findroot(g, mpmath.mpf(t0))), float(t0)


def mean_ci(x, alpha, scipy_too=False):
    m = np.mean(x)
    sem = np.std(x, ddof=1) / np.sqrt(len(x))
    t, t_scipy = t_upper(alpha / 2, len(x) - 1)
    lo, hi = stats.t.interval(1 - alpha, len(x) - 1, loc=m, scale=sem)
    assert abs(lo - (m - t_scipy * sem)) <= 1e-12 * max(1, abs(lo))
    if scipy_too:
        return float(m - t * sem), float(m + t * sem), float(lo), float(hi)
    return float(m - t * sem), float(m + t * sem)


def auto(name, q, higher, alpha=0.05, want=None):
    """autorank's procedure on q (datasets x methods); methods m0..m{k-1}."""
    n, k = q.shape
    methods = ["m%d" % j for j in range(k)]
    o = q if higher else -q
    ranks = np.array([stats.rankdata(-row) for row in o])  # 1 = best
    mr = ranks.mean(axis=0)
    order = list(np.argsort(mr, kind="stable"))
    raw = [q[:, j] for j in order]
    ori = [o[:, j] for j in order]
    names = [methods[j] for j in order]
    out = {"name": name, "higher": higher, "alpha": alpha, "q": q.tolist(), "methods": methods,
           "order": names, "mean_ranks": [float(mr[j]) for j in order]}
    an = alpha / k
    sw = [stats.shapiro(x) for x in raw]
    out["shapiro_w"] = [float(w) for w, _ in sw]
    out["shapiro_p"] = [float(p) for _, p in sw]
    all_normal = all(p >= an for _, p in sw)
    out["all_normal"] = all_normal
    if all_normal:
        vt = stats.bartlett(*raw)
        out["variance_test"] = "bartlett"
    else:
        vt = stats.levene(*raw)  # center="median", autorank's call
        out["variance_test"] = "levene"
    out["variance_statistic"], out["variance_p"] = float(vt.statistic), float(vt.pvalue)
    homo = vt.pvalue >= alpha
    out["homoscedastic"] = bool(homo)
    if k == 2:
        branch = "paired_t" if all_normal else "wilcoxon"
    else:
        branch = "anova_tukey" if all_normal and homo else "friedman_nemenyi"
    out["branch"] = branch
    if want is not None and branch != want:
        sys.exit("case %s took branch %s, want %s: change the draw" % (name, branch, want))
    out["effect"] = "cohen_d" if all_normal else "akinshin_gamma"
    pairs = []
    for i in range(k):
        for j in range(i + 1, k):
            e = cohen_d(ori[i], ori[j]) if all_normal else akinshin_gamma(ori[i], ori[j])
            c = cliffs_delta(ori[i], ori[j])
            pairs.append({"a": names[i], "b": names[j], "effect": f(e), "magnitude": magnitude(e, [0.2, 0.5, 0.8]),
                          "cliffs_delta": f(c), "cliffs_magnitude": magnitude(c, [0.147, 0.33, 0.474])})
    central = []
    if branch == "anova_tukey":
        long = pd.DataFrame([(d, names[j], q[d, order[j]]) for d in range(n) for j in range(k)],
                            columns=["id", "treatment", "result"])
        a = AnovaRM(long, "result", "id", within=["treatment"]).fit().anova_table
        out["omnibus"] = {"statistic": float(a["F Value"].iat[0]), "df1": float(a["Num DF"].iat[0]),
                          "df2": float(a["Den DF"].iat[0]), "p": float(a["Pr > F"].iat[0])}
        # oriented values; the labels sort in mean-rank order only when k <= 10
        assert k <= 10
        vals = np.concatenate(ori)
        labels = ["r%d" % j for j in range(k)]  # sort in mean-rank order
        t = pairwise_tukeyhsd(vals, np.repeat(labels, n), alpha=alpha)
        assert list(t.groupsunique) == labels
        t._simultaneous_ci()
        out["tukey_q"], out["tukey_mse"], out["tukey_df"] = float(t.q_crit), float(t.variance), float(t.df_total)
        for pi, p in enumerate(pairs):  # statsmodels' pairs are (i, j), i < j, meandiff = mean[j] - mean[i]
            p.update(difference=-float(t.meandiffs[pi]), ci_lower=-float(t.confint[pi][1]), ci_upper=-float(t.confint[pi][0]),
                     statistic=float(abs(t.meandiffs[pi]) / t.std_pairs[pi]), p=float(t.pvalues[pi]), significant=bool(t.reject[pi]))
        out["ci"], out["ci_level"] = "mean_tukey", 1 - alpha
        for j, x in enumerate(raw):
            m = np.mean(x)
            central.append({"value": float(m), "spread": float(np.std(x, ddof=1)),
                            "lower": float(m - t.halfwidths[j]), "upper": float(m + t.halfwidths[j])})
    else:
        if branch == "friedman_nemenyi":
            fr = stats.friedmanchisquare(*raw)
            out["omnibus"] = {"statistic": float(fr.statistic), "df1": float(k - 1), "p": float(fr.pvalue)}
            qa = stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2)
            cd = qa * np.sqrt(k * (k + 1) / (6 * n))
            out["nemenyi_q"], out["critical_difference"] = float(qa), float(cd)
            pi = 0
            for i in range(k):
                for j in range(i + 1, k):
                    pairs[pi]["significant"] = bool(mr[order[j]] - mr[order[i]] > cd)
                    pi += 1
        elif branch == "paired_t":
            t = stats.ttest_rel(ori[0], ori[1])
            out["omnibus"] = {"statistic": float(t.statistic), "df1": float(n - 1), "p": float(t.pvalue)}
            pairs[0].update(difference=float(np.mean(ori[0] - ori[1])), statistic=float(t.statistic), p=float(t.pvalue),
                            significant=bool(t.pvalue < alpha))
        else:
            w = stats.wilcoxon(ori[0], ori[1])  # two-sided, zero_method wilcox, auto
            out["omnibus"] = {"statistic": float(w.statistic), "p": float(w.pvalue)}
            pairs[0].update(difference=float(np.median(ori[0] - ori[1])), statistic=float(w.statistic), p=float(w.pvalue),
                            significant=bool(w.pvalue < alpha))
        out["ci_level"] = 1 - an
        if all_normal:
            out["ci"] = "mean_t"
            for x in raw:
                lo, hi = mean_ci(x, an)
                central.append({"value": float(np.mean(x)), "spread": float(np.std(x, ddof=1)), "lower": lo, "upper": hi})
        else:
            out["ci"] = "median_binomial"
            for x in raw:
                lo, hi, cov = median_ci(x, an)
                central.append({"value": float(np.median(x)), "spread": float(stats.median_abs_deviation(x)),
                                "lower": lo, "upper": hi, "coverage": cov})
    out["omnibus"]["significant"] = bool(out["omnibus"]["p"] < alpha)
    out["pairs"], out["central"] = pairs, central
    return out


# ---- whole procedure on six tables ----
# Each table is drawn until autorank's rules take the branch it is meant
# to test (the draws are random, so a normal sample can fail Shapiro-Wilk).
def draw(name, make, higher, want, alpha=0.05):
    for _ in range(100):
        q = make()
        try:
            return auto(name, q, higher, alpha=alpha, want=want)
        except SystemExit:
            continue
    sys.exit("case %s: no draw took branch %s" % (name, want))


def nonnormal():
    q = rng.normal(0.6, 0.05, (20, 4)) + np.array([0.0, 0.02, 0.03, 0.06])
    q[:, 1] = 0.55 + rng.exponential(0.05, 20) ** 2 * 8
    return q


def two(second):
    base = rng.normal(0.4, 0.05, 12)
    return np.column_stack([base + rng.normal(0, 0.02, 12), second(base)])


cases = [
    draw("normal", lambda: rng.normal(0.6, 0.05, (20, 4)) + np.array([0.0, 0.01, 0.03, 0.05]) + rng.normal(0, 0.05, (20, 1)),
         True, "anova_tukey"),
    draw("nonnormal", nonnormal, True, "friedman_nemenyi"),
    draw("heteroscedastic", lambda: np.column_stack([rng.normal(0.5, 0.01, 20), rng.normal(0.52, 0.08, 20), rng.normal(0.51, 0.02, 20)]),
         False, "friedman_nemenyi"),
    draw("normal2", lambda: two(lambda b: b + 0.02 + rng.normal(0, 0.02, 12)), True, "paired_t"),
    draw("nonnormal2", lambda: two(lambda b: b + rng.exponential(0.03, 12) ** 2 * 10), True, "wilcoxon"),
    draw("normal_lower", lambda: rng.normal(1.0, 0.1, (8, 5)) + rng.normal(0, 0.2, (8, 1)) + np.linspace(0, 0.15, 5),
         False, "anova_tukey", alpha=0.1),
]
for c in cases:
    if c["name"] == "heteroscedastic":
        assert c["all_normal"], "heteroscedastic must be all normal"

# ---- the building blocks ----
variance = []
for sizes in [[5, 5, 5], [8, 12, 6, 10], [20, 20], [7, 30]]:
    groups = [rng.normal(0, rng.uniform(0.5, 2), s) for s in sizes]
    b = stats.bartlett(*groups)
    lm = stats.levene(*groups, center="median")
    le = stats.levene(*groups, center="mean")
    variance.append({"groups": [g.tolist() for g in groups], "bartlett": [float(b.statistic), float(b.pvalue)],
                     "levene_median": [float(lm.statistic), float(lm.pvalue)],
                     "levene_mean": [float(le.statistic), float(le.pvalue)]})

anova = []
for n, k in [(5, 3), (12, 4), (30, 6), (6, 2)]:
    q = rng.normal(0, 1, (n, k)) + np.linspace(0, 0.8, k) + rng.normal(0, 1, (n, 1))
    long = pd.DataFrame([(d, "t%d" % j, q[d, j]) for d in range(n) for j in range(k)], columns=["id", "t", "y"])
    a = AnovaRM(long, "y", "id", within=["t"]).fit().anova_table
    anova.append({"q": q.tolist(), "f": float(a["F Value"].iat[0]), "df1": float(a["Num DF"].iat[0]),
                  "df2": float(a["Den DF"].iat[0]), "p": float(a["Pr > F"].iat[0])})

srange = []
for k, df in [(2, 1), (3, 2), (3, 6), (4, 12), (5, 36), (10, 20), (3, 400), (20, 1000)]:
    for x in [0.5, 1.5, 3.0, 4.5, 7.0]:
        srange.append({"q": x, "k": k, "df": df, "cdf": float(stats.studentized_range.cdf(x, k, df))})
    for p in [0.9, 0.95, 0.99]:
        srange.append({"p": p, "k": k, "df": df, "ppf": float(stats.studentized_range.ppf(p, k, df))})

tukey = []
for sizes, alpha in [([6, 6, 6], 0.05), ([5, 9, 7, 12], 0.05), ([10, 10, 10, 10, 10], 0.01), ([8, 4], 0.1)]:
    groups = [rng.normal(0.3 * i, 1, s) for i, s in enumerate(sizes)]
    labels = np.concatenate([["g%d" % i] * s for i, s in enumerate(sizes)])
    t = pairwise_tukeyhsd(np.concatenate(groups), labels, alpha=alpha)
    t._simultaneous_ci()
    tukey.append({"groups": [g.tolist() for g in groups], "alpha": alpha, "q_crit": float(t.q_crit),
                  "mse": float(t.variance), "df": float(t.df_total), "meandiffs": [float(v) for v in t.meandiffs],
                  "std_pairs": [float(v) for v in t.std_pairs], "lower": [float(v[0]) for v in t.confint],
                  "upper": [float(v[1]) for v in t.confint], "p": [float(v) for v in t.pvalues],
                  "reject": [bool(v) for v in t.reject], "halfwidths": [float(v) for v in t.halfwidths]})

effects = []
for n1, n2, kind in [(10, 10, "normal"), (7, 12, "normal"), (15, 15, "skewed"), (9, 9, "ties")]:
    if kind == "normal":
        a, b = rng.normal(0.5, 1, n1), rng.normal(0, 1.3, n2)
    elif kind == "skewed":
        a, b = rng.exponential(1, n1), rng.exponential(0.7, n2)
    else:
        a, b = np.round(rng.normal(0.5, 1, n1)), np.round(rng.normal(0, 1, n2))
    effects.append({"a": a.tolist(), "b": b.tolist(), "cohen_d": f(cohen_d(a, b)), "akinshin_gamma": f(akinshin_gamma(a, b)),
                    "cliffs_delta": f(cliffs_delta(a, b)), "mad_a": float(stats.median_abs_deviation(a)),
                    "median_a": float(np.median(a))})

intervals = []
for n in [2, 5, 6, 9, 10, 17, 40, 101]:
    x = rng.normal(0, 1, n)
    for alpha in [0.05, 0.0125, 0.2]:
        lo, hi, slo, shi = mean_ci(x, alpha, scipy_too=True)
        mlo, mhi, cov = median_ci(x, alpha)
        intervals.append({"x": x.tolist(), "alpha": alpha, "mean_lower": lo, "mean_upper": hi,
                          "scipy_mean_lower": slo, "scipy_mean_upper": shi,
                          "median_lower": mlo, "median_upper": mhi, "coverage": cov})

json.dump({"versions": {"scipy": scipy.__version__, "statsmodels": statsmodels.__version__, "numpy": np.__version__,
                        "mpmath": mpmath.__version__},
           "cases": cases, "variance": variance, "anova": anova, "studentized_range": srange, "tukey": tukey,
           "effects": effects, "intervals": intervals}, sys.stdout, indent=1)
sys.stdout.write("\n")
