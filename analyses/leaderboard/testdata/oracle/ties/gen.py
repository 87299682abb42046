#!/usr/bin/python3
"""Oracle for ties in rankings: DM-AUC in exact rational arithmetic.

The matrix below (found by searching small matrices) gives three methods
whose DM-AUC, computed in float64, differ in the 16th–17th significant
digit (0.26989619377162632, …621, …627). In exact arithmetic
(fractions.Fraction: performance ratios best/q, shares of datasets with
ratio ≤ β on the grid 1, 1.1, …, 3, the trapezoid rule, normalised to sum
to 1) the three are equal: a ranking must give them one shared rank, and
a finding must name all three. Written from the definition of dm_auc
(Shevchenko et al. 2024, §3.4), independently of the Go code.

Run: /usr/bin/python3 gen.py > cases.json
"""
import json
import sys
from fractions import Fraction as F

Q = [[0.8, 0.8, 0.9, 0.3], [0.8, 0.4, 0.4, 0.1], [0.8, 0.9, 0.1, 0.5],
     [0.2, 0.1, 0.9, 0.8], [0.7, 0.5, 0.4, 0.9], [0.3, 0.6, 0.8, 0.3]]


def dm_auc(q, beta_max=3):
    qf = [[F(str(v)) for v in row] for row in q]  # the decimals as written
    grid = [1 + F(i, 10) for i in range(int((beta_max - 1) * 10) + 1)]
    nd, nm = len(qf), len(qf[0])
    areas = []
    for m in range(nm):
        rho = []
        for b in grid:
            rho.append(F(sum(1 for row in qf if max(row) / row[m] <= b), nd))
        area = sum((grid[i + 1] - grid[i]) * (rho[i] + rho[i + 1]) / 2 for i in range(len(grid) - 1))
        areas.append(area)
    total = sum(areas)
    return [a / total for a in areas]


auc = dm_auc(Q)
exact = [str(a) for a in auc]
tied = [m for m in range(len(auc)) if auc[m] == max(auc)]
json.dump({
    "generator": "gen.py, Python %s, fractions (exact)" % sys.version.split()[0],
    "q": Q,
    "dm_auc_exact": exact,
    "dm_auc": [float(a) for a in auc],
    "best_tied": tied,
}, sys.stdout, indent=1)
print()
