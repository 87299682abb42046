#!/usr/bin/python3
"""Oracle for analyses/meta.go and meta_builder.go: paired effect sizes.

An independent NumPy implementation of the paired effect sizes (Sertkan et
al. 2023, Eqs. 1-5; Borenstein et al. 2009, ch. 4):
n, D = mean(x_T - x_C), S_diff (ddof = 1; ddof = 0 for ranger_compat, as
Ranger's np.std), V_D = S_diff^2/n, r = Pearson(x_T, x_C),
S_within = S_diff/sqrt(2(1-r)), d = D/S_within,
V_d = (1/n + d^2/(2n))*2(1-r), J = 1 - 3/(4(n-1) - 1), g = J d, V_g = J^2 V_d.

Run from this directory:  /usr/bin/python3 gen.py   (writes effects.json)
"""
import json
import sys

import numpy as np

rng = np.random.default_rng(20231121)


def effects(t, c, ddof):
    diff = t - c
    n = len(diff)
    D = diff.mean()
    S = diff.std(ddof=ddof)
    r = np.corrcoef(t, c)[0, 1]
    sw = S / np.sqrt(2 * (1 - r))
    d = D / sw
    vd = (1 / n + d * d / (2 * n)) * 2 * (1 - r)
    J = 1 - 3 / (4 * (n - 1) - 1)
    return {
        "n": n, "mean_diff": D, "sd_diff": S, "r": r,
        "md": D, "v_md": S * S / n,
        "smd": d, "v_smd": vd,
        "hedges_g": J * d, "v_hedges_g": J * J * vd,
    }


cases = []
for i in range(40):
    n = int(rng.choice([3, 4, 5, 10, 50, 200, 300]))
    scale = float(10 ** rng.uniform(-3, 2))
    rho = float(rng.uniform(-0.9, 0.99))
    base = rng.normal(size=n)
    c = base * scale + float(rng.normal())
    t = (rho * base + np.sqrt(1 - rho * rho) * rng.normal(size=n)) * scale * float(rng.uniform(0.5, 2)) + c.mean() * 0.1
    units = [f"u{j}" for j in range(n)]
    t_miss = [False] * n
    c_miss = [False] * n
    if i % 5 == 4 and n >= 10:  # some empty values
        for j in rng.choice(n, size=n // 5, replace=False):
            if rng.uniform() < 0.5:
                t_miss[j] = True
            else:
                c_miss[j] = True
    case = {"name": f"case_{i:02d}", "units": units,
            "t": [None if m else float(x) for x, m in zip(t, t_miss)],
            "c": [None if m else float(x) for x, m in zip(c, c_miss)]}
    keep = [not (a or b) for a, b in zip(t_miss, c_miss)]
    tk, ck = t[keep], c[keep]
    tz = np.where(t_miss, 0.0, t)
    cz = np.where(c_miss, 0.0, c)
    if keep.count(True) >= 2:
        case["drop"] = effects(tk, ck, 1)
        case["drop_ranger"] = effects(tk, ck, 0)
        case["dropped"] = n - keep.count(True)
    case["zero"] = effects(tz, cz, 1)
    case["zero_ranger"] = effects(tz, cz, 0)
    cases.append(case)

meta = {"generator": "gen.py", "python": sys.version.split()[0], "numpy": np.__version__}
with open("effects.json", "w") as f:
    json.dump({"meta": meta, "cases": cases}, f)
