#!/usr/bin/python3
"""Oracle for the Demšar (2006) Table 6 matrix fixture (results.csv).

Run with Debian's /usr/bin/python3 (scipy 1.10):
    /usr/bin/python3 gen.py > expected.json
The matrix is read with the csv module (one row per data set, one column
per classifier, AUC), independently of evalbook's reader. Every number
comes from scipy: friedmanchisquare (tie-corrected, as evalbook), ranks
within each data set by rankdata (1 = the highest AUC, ties averaged),
Iman and Davenport's F and its p from scipy.stats.f, and Nemenyi's
critical difference at alpha = 0.05 from studentized_range (q / sqrt 2,
Demsar's q_0.05 = 2.569 for four classifiers).
"""
import csv
import json
import math
import os
import sys

import numpy as np
import scipy
from scipy import stats

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "results.csv"), newline="") as fh:
    rows = list(csv.reader(fh))
methods = rows[0][1:]
datasets = [r[0] for r in rows[1:]]
x = np.array([[float(v) for v in r[1:]] for r in rows[1:]])
n, k = x.shape

chi2, p = stats.friedmanchisquare(*[x[:, j] for j in range(k)])
ranks = np.array([stats.rankdata(-row) for row in x]).mean(axis=0)
ff = (n - 1) * chi2 / (n * (k - 1) - chi2)
ff_p = stats.f.sf(ff, k - 1, (k - 1) * (n - 1))
q = stats.studentized_range.ppf(0.95, k, np.inf) / math.sqrt(2)
cd = q * math.sqrt(k * (k + 1) / (6 * n))

json.dump({
    "versions": {"scipy": scipy.__version__, "numpy": np.__version__},
    "datasets": datasets,
    "methods": methods,
    "friedman_statistic": float(chi2),
    "friedman_p": float(p),
    "iman_davenport_f": float(ff),
    "iman_davenport_p": float(ff_p),
    "nemenyi_q": float(q),
    "critical_difference": float(cd),
    "mean_ranks": {m: float(r) for m, r in zip(methods, ranks)},
}, sys.stdout, indent=1)
sys.stdout.write("\n")
