#!/usr/bin/python3
"""The pandas/scipy script a researcher would write instead of evalbook for
a study of paired meta-analyses over per-user files runs/{method}_{dataset}.csv
(the layout of the runs of Sertkan et al. 2023: ID,RMSE,NDCG@10, empty NDCG =
0): per dataset, the paired effect (md, smd or hedges_g as evalbook's
meta_analysis computes them, after Borenstein et al. 2009, ch. 4) and a
DerSimonian-Laird random-effects summary with CI, p, Q, I², tau² and the prediction interval, printed as CSV.

It is the peer `make bench` times evalbook against (same inputs, same
numbers). Usage: meta_pandas.py STUDY_DIR  (the analyses are listed below,
as in sites/bench/sertkan2023/study.toml).
"""
import glob
import os
import sys

import numpy as np
import pandas as pd
from scipy import stats

ANALYSES = [
    ("MF-bias", "MF", "RMSE", "hedges_g"),
    ("MF-bias", "MF", "NDCG@10", "md"),
    ("BPR", "MF", "NDCG@10", "md"),
    ("BPR", "MF-bias", "NDCG@10", "md"),
    ("BPR", "MF", "RMSE", "smd"),
]


def load(study):
    frames = {}
    for path in sorted(glob.glob(os.path.join(study, "runs", "*_*.csv"))):
        method, dataset = os.path.basename(path)[:-4].split("_", 1)
        df = pd.read_csv(path)
        frames[(method, dataset)] = df.fillna(0.0).set_index("ID")
    return frames


def effect(x, y, kind):
    d = x - y
    n = len(d)
    mean, sd = d.mean(), d.std(ddof=1)
    if kind == "md":
        return n, mean, sd * sd / n
    r = np.corrcoef(x, y)[0, 1]
    sw = sd / np.sqrt(2 * (1 - r))
    es = mean / sw
    v = (1 / n + es * es / (2 * n)) * 2 * (1 - r)
    if kind == "hedges_g":
        j = 1 - 3 / (4 * (n - 1) - 1)
        es, v = j * es, j * j * v
    return n, es, v


def meta(y, v, alpha=0.05):
    y, v = np.asarray(y), np.asarray(v)
    w = 1 / v
    k = len(y)
    mf = (w * y).sum() / w.sum()
    q = (w * (y - mf) ** 2).sum()
    c = w.sum() - (w * w).sum() / w.sum()
    tau2 = max(0.0, (q - (k - 1)) / c)
    ws = 1 / (v + tau2)
    m = (ws * y).sum() / ws.sum()
    se = np.sqrt(1 / ws.sum())
    z = stats.norm.ppf(1 - alpha / 2)
    p = 2 * stats.norm.sf(abs(m / se))
    i2 = max(0.0, (q - (k - 1)) / q) if q > 0 else 0.0
    pi = np.sqrt(tau2 + se * se)
    return m, se, m - z * se, m + z * se, p, tau2, q, stats.chi2.sf(q, k - 1), i2, m - z * pi, m + z * pi


def main():
    study = sys.argv[1]
    frames = load(study)
    datasets = sorted({d for _, d in frames})
    print("analysis,dataset,n,effect,variance")
    for t, c, metric, kind in ANALYSES:
        ys, vs = [], []
        for ds in datasets:
            if (t, ds) not in frames or (c, ds) not in frames:
                continue
            a, b = frames[(t, ds)][metric].align(frames[(c, ds)][metric], join="inner")
            n, es, v = effect(a.to_numpy(), b.to_numpy(), kind)
            ys.append(es)
            vs.append(v)
            print(f"{t}-vs-{c}-{metric},{ds},{n},{es!r},{v!r}")
        print(f"{t}-vs-{c}-{metric},summary," + ",".join(repr(float(x)) for x in meta(ys, vs)))


if __name__ == "__main__":
    main()
