#!/usr/bin/python3
"""Oracle for analyses/characteristics*.go (Shevchenko et al. 2024, §4.3, Fig. 7).

Writes logs/*.csv[.gz] (generated interaction logs with duplicates,
ratings and a long tail) and cases.json holding:
  logs:  for each (log, preprocessing) case, the preprocessing counts and
         the eighteen features, computed by the independent pandas code
         below (drop_duplicates keep='last', boolean masks, groupby,
         scipy.stats.skew / kurtosis with their defaults);
  mi:    scikit-learn mutual_info_regression(n_neighbors=3) on continuous
         data (with its default 1e-10 noise, random_state=0), and the
         noise-free _compute_mi_cc on sklearn-scaled data for tied data;
  association: features x per-method metric with scipy pearsonr /
         spearmanr and the noise-free sklearn estimate, per method and
         pooled over all (dataset, method) pairs.
Run: /usr/bin/python3 gen.py  (from this directory)
"""
import gzip
import json
import math
import os
import warnings

import numpy as np
import pandas as pd
import scipy
import scipy.stats as st
import sklearn
from sklearn.feature_selection import mutual_info_regression
from sklearn.feature_selection._mutual_info import _compute_mi_cc
from sklearn.preprocessing import scale

warnings.simplefilter("ignore")
rng = np.random.default_rng(6)
os.makedirs("logs", exist_ok=True)


def num(v):
    v = float(v)
    return None if math.isnan(v) else v


# ---------------------------------------------------------------- logs
def make_log(n_users, n_items, n_rows, zipf, dup_share, rating=True, seed=0):
    r = np.random.default_rng(seed)
    p_item = 1.0 / np.arange(1, n_items + 1) ** zipf
    p_item /= p_item.sum()
    p_user = 1.0 / np.arange(1, n_users + 1) ** 0.8
    p_user /= p_user.sum()
    users = r.choice(n_users, size=n_rows, p=p_user)
    items = r.choice(n_items, size=n_rows, p=p_item)
    # repeat some earlier rows with a new rating: duplicates whose last rating counts
    n_dup = int(n_rows * dup_share)
    src = r.integers(0, n_rows, size=n_dup)
    users = np.concatenate([users, users[src]])
    items = np.concatenate([items, items[src]])
    perm = r.permutation(len(users))
    users, items = users[perm], items[perm]
    df = pd.DataFrame({"user": ["u%d" % u for u in users], "item": ["i%d" % i for i in items]})
    if rating:
        df["rating"] = r.choice([0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5], size=len(df))
    df["timestamp"] = np.arange(len(df)) * 7 + 1600000000
    return df


def write(df, name):
    path = os.path.join("logs", name)
    if name.endswith(".gz"):
        with gzip.GzipFile(path, "wb", mtime=0) as f:
            f.write(df.to_csv(index=False).encode())
    else:
        df.to_csv(path, index=False)
    return path


logs = {
    "zipf.csv": make_log(900, 2500, 14000, 1.1, 0.08, seed=1),
    "dense.csv.gz": make_log(120, 300, 9000, 0.6, 0.15, seed=2),
    "implicit.csv": make_log(400, 1500, 5000, 1.3, 0.05, rating=False, seed=3),
}
# Hand-made: the 80% boundary falls inside a tie group (x10 and x9 both
# have 2 interactions; by id "x10" < "x9", so x10 is head and x9 tail),
# with 5·head = 4·Nr exactly; and a repeated pair whose last rating wins.
tiny = [("a", "big"), ("b", "big"), ("c", "big"), ("d", "big"), ("e", "big"), ("f", "big"),
        ("a", "x9"), ("b", "x9"), ("c", "x10"), ("d", "x10")]
tiny_df = pd.DataFrame(tiny, columns=["user", "item"])
tiny_df["rating"] = 4.0
tiny_df = pd.concat([tiny_df, pd.DataFrame([("a", "big", 1.0), ("e", "big", 5.0)], columns=["user", "item", "rating"])])
logs["tiny.csv"] = tiny_df
for name, df in logs.items():
    write(df, name)


def preprocess(df, tau, min_item, min_user, core):
    c = {"rows": len(df)}
    df = df.drop_duplicates(["user", "item"], keep="last")
    c["duplicates"] = c["rows"] - len(df)
    c["below_threshold"] = 0
    if tau is not None:
        keep = df["rating"] >= tau
        c["below_threshold"] = int((~keep).sum())
        df = df[keep]
    c["item_filter"] = 0
    if min_item > 1:
        ic = df.groupby("item")["user"].transform("size")
        keep = ic >= min_item
        c["item_filter"] = int((~keep).sum())
        df = df[keep]
    c["user_filter"] = 0
    if min_user > 1:
        uc = df.groupby("user")["item"].transform("size")
        keep = uc >= min_user
        c["user_filter"] = int((~keep).sum())
        df = df[keep]
    c["core"] = 0
    c["core_rounds"] = 0
    if core > 1:
        while True:
            uc = df.groupby("user")["item"].transform("size")
            ic = df.groupby("item")["user"].transform("size")
            keep = (uc >= core) & (ic >= core)
            if keep.all():
                break
            c["core"] += int((~keep).sum())
            c["core_rounds"] += 1
            df = df[keep]
    c["interactions"] = len(df)
    return df, c


def gini(counts):
    x = np.sort(np.asarray(counts, dtype=float))
    n = len(x)
    i = np.arange(1, n + 1)
    return 1 - 2 * np.sum((n + 1 - i) * x) / ((n + 1) * x.sum())


def features(df):
    Nu, Ni, Nr = df["user"].nunique(), df["item"].nunique(), len(df)
    ucnt = df.groupby("user").size()
    icnt = df.groupby("item").size()
    pop = icnt / Nu
    pb = df.assign(pop=df["item"].map(pop)).groupby("user")["pop"].mean()
    items = icnt.rename("n").reset_index().sort_values(["n", "item"], ascending=[False, True])
    cum = items["n"].cumsum().to_numpy()
    h = int(np.argmax(cum * 5 >= 4 * Nr))  # first prefix with >= 80%
    head = set(items["item"].iloc[: h + 1])
    lt = df.assign(tail=~df["item"].isin(head)).groupby("user")["tail"].mean()
    return {
        "Nu": Nu, "Ni": Ni, "Nr": Nr, "SpaceSize": Nu * Ni, "Shape": Nu / Ni, "Density": Nr / (Nu * Ni),
        "Rpu": Nr / Nu, "Rpi": Nr / Ni, "Gini_u": gini(ucnt), "Gini_i": gini(icnt),
        "APB": pb.mean(), "StPB": pb.std(ddof=0), "SkPB": st.skew(pb), "KuPB": st.kurtosis(pb),
        "LTavg": lt.mean(), "LTstd": lt.std(ddof=0), "LTsk": st.skew(lt), "LTku": st.kurtosis(lt),
    }


log_cases = []
settings = [
    {"tau": None, "min_item": 0, "min_user": 0, "core": 0},
    {"tau": 3.5, "min_item": 0, "min_user": 0, "core": 0},
    {"tau": 3.5, "min_item": 5, "min_user": 5, "core": 0},
    {"tau": None, "min_item": 0, "min_user": 0, "core": 5},
    {"tau": 2.0, "min_item": 2, "min_user": 3, "core": 3},
]
for name in sorted(logs):
    df = pd.read_csv(os.path.join("logs", name), dtype={"user": str, "item": str})
    for s in settings:
        if s["tau"] is not None and "rating" not in df.columns:
            continue
        out, counts = preprocess(df, s["tau"], s["min_item"], s["min_user"], s["core"])
        case = {"log": name, **s, "counts": counts}
        if len(out) == 0:
            case["empty"] = True
        else:
            case["features"] = {k: num(v) for k, v in features(out).items()}
        log_cases.append(case)

# ---------------------------------------------------------------- mutual information
def mi_noise_free(x, y, k=3):
    x = scale(np.asarray(x, float), with_mean=False)
    y = scale(np.asarray(y, float), with_mean=False)
    return float(_compute_mi_cc(x, y, k))


mi_cases = []
for n in (4, 5, 10, 30, 100, 330):
    x = rng.normal(size=n)
    for note, y in (("independent", rng.normal(size=n)),
                    ("linear", 3 * x + rng.normal(scale=0.5, size=n)),
                    ("nonlinear", np.sin(3 * x) + rng.normal(scale=0.1, size=n)),
                    ("scaled", 1e6 * np.exp(x) + rng.normal(size=n))):
        sk = float(mutual_info_regression(x.reshape(-1, 1), y, n_neighbors=3, random_state=0)[0])
        mi_cases.append({"note": f"continuous {note} n={n}", "x": list(map(float, x)), "y": list(map(float, y)),
                         "sklearn": sk, "noise_free": mi_noise_free(x, y)})
for n in (8, 40, 120):
    x = rng.integers(0, 5, size=n).astype(float)
    y = np.round(x + rng.normal(size=n), 0)
    mi_cases.append({"note": f"tied n={n}", "x": list(map(float, x)), "y": list(map(float, y)),
                     "sklearn": None, "noise_free": mi_noise_free(x, y)})
x = np.repeat(rng.normal(size=10), 4)
y = rng.normal(size=40) + x
mi_cases.append({"note": "pooled-like: each x repeated 4 times", "x": list(map(float, x)), "y": list(map(float, y)),
                 "sklearn": None, "noise_free": mi_noise_free(x, y)})

# ---------------------------------------------------------------- association
D, F, M = 14, 4, 3
feat = rng.lognormal(size=(D, F))
feat[:, 3] = np.round(feat[:, 3], 0)  # ties
perf = np.column_stack([0.1 * feat[:, 0] + rng.normal(scale=0.05, size=D) + j * 0.01 for j in range(M)])
perf[2, 1] = np.nan
perf[5, 2] = np.nan
feat[7, 2] = np.nan
assoc = []
for f in range(F):
    px, py = [], []
    for m in range(M + 1):
        if m < M:
            ok = ~np.isnan(feat[:, f]) & ~np.isnan(perf[:, m])
            x, y = feat[ok, f], perf[ok, m]
            px += list(x)
            py += list(y)
        else:
            x, y = np.array(px), np.array(py)
        assoc.append({"feature": f, "method": m, "n": len(x),
                      "pearson": float(st.pearsonr(x, y)[0]), "spearman": float(st.spearmanr(x, y)[0]),
                      "mutual_information": mi_noise_free(x, y)})

with open("cases.json", "w") as f:
    json.dump({"generator": "gen.py", "numpy": np.__version__, "pandas": pd.__version__, "scipy": scipy.__version__,
               "sklearn": sklearn.__version__, "feature_names": list(features(tiny_df.drop_duplicates(["user", "item"], keep="last")).keys()),
               "logs": log_cases, "mi": mi_cases,
               "association": {"features": [[num(v) for v in row] for row in feat],
                               "perf": [[num(v) for v in row] for row in perf], "expected": assoc}},
              f, indent=1)
    f.write("\n")
