#!/usr/bin/python3
"""Oracle fixtures for analyses/clusters_numerics.go (issue 7).

Run from this directory:  /usr/bin/python3 gen.py  (writes cases.json)

Reference implementations: scikit-learn (StandardScaler, PCA with
svd_solver="full", silhouette_score, davies_bouldin_score,
adjusted_rand_score, KMeans with k-means++ and n_init starts,
IsolationForest score_samples averaged over seeds) and an
independent brute force of the greedy D-/A-optimal designs (NumPy data,
mpmath 50-digit linear algebra) that evaluates det(X_S^T X_S + eps I) and
tr((X_S^T X_S + eps I)^-1) directly for every candidate (no determinant
lemma, no Sherman-Morrison).
"""
import json, sys
import numpy as np
import scipy, sklearn
from sklearn.preprocessing import StandardScaler
from sklearn.decomposition import PCA
from sklearn.cluster import KMeans
from sklearn.metrics import silhouette_score, davies_bouldin_score, adjusted_rand_score

rng = np.random.default_rng(20240825)
out = {"meta": {"generator": "gen.py", "python": sys.version.split()[0], "numpy": np.__version__,
                "scipy": scipy.__version__, "sklearn": sklearn.__version__, "mpmath": None}}

def L(a):
    return np.asarray(a).tolist()

# PCA (and z-scores) on random matrices of several shapes, some with
# correlated columns and very different scales.
pca = []
for (n, p, k) in [(30, 18, 3), (12, 5, 2), (8, 10, 3), (25, 4, 4), (40, 6, 3)]:
    base = rng.normal(size=(n, max(2, p // 3)))
    mix = rng.normal(size=(base.shape[1], p))
    x = base @ mix + 0.3 * rng.normal(size=(n, p))
    x = x * (10.0 ** rng.integers(-3, 6, size=p)) + rng.normal(size=p) * 5
    z = StandardScaler().fit_transform(x)
    m = PCA(n_components=k, svd_solver="full").fit(z)
    pca.append({"x": L(x), "k": k, "z": L(z),
                "explained_variance": L(m.explained_variance_),
                "explained_variance_ratio": L(m.explained_variance_ratio_),
                "components": L(m.components_), "scores": L(m.transform(z))})
out["pca"] = pca

# Silhouette and Davies-Bouldin for given labels (incl. a singleton cluster).
scores = []
for (n, p, k, singleton) in [(30, 3, 4, False), (20, 2, 3, True), (50, 5, 6, False), (9, 4, 2, True)]:
    x = rng.normal(size=(n, p)) + np.repeat(rng.normal(scale=3, size=(k, p)), -(-n // k), axis=0)[:n]
    lab = np.repeat(np.arange(k), -(-n // k))[:n]
    rng.shuffle(lab[: n // 2])
    if singleton:
        lab[-1] = k  # a cluster of one point
    scores.append({"x": L(x), "labels": L(lab), "silhouette": silhouette_score(x, lab),
                   "davies_bouldin": davies_bouldin_score(x, lab)})
out["scores"] = scores

# Adjusted Rand index.
ari = []
for (n, ka, kb) in [(30, 6, 6), (25, 3, 5), (10, 2, 2), (40, 1, 4), (12, 12, 3)]:
    a = rng.integers(0, ka, size=n)
    b = np.where(rng.random(n) < 0.6, a, rng.integers(0, kb, size=n))
    ari.append({"a": L(a), "b": L(b), "ari": adjusted_rand_score(a, b)})
a = rng.integers(0, 4, size=20)
ari.append({"a": L(a), "b": L((a + 2) % 4), "ari": adjusted_rand_score(a, (a + 2) % 4)})
out["ari"] = ari

# k-means: planted well-separated blobs (exact partition expected) and
# noisier data (inertia compared with scikit-learn's best of n_init).
km = []
for (n_per, p, k, sep, planted) in [(10, 3, 4, 20.0, True), (6, 2, 6, 15.0, True), (8, 5, 3, 30.0, True),
                                    (10, 3, 4, 2.5, False), (15, 2, 5, 2.0, False), (5, 3, 6, 1.5, False),
                                    (30, 4, 3, 0.0, False)]:
    centres = rng.normal(scale=sep, size=(k, p))
    x = np.vstack([c + rng.normal(size=(n_per, p)) for c in centres])
    truth = np.repeat(np.arange(k), n_per)
    perm = rng.permutation(len(x))
    x, truth = x[perm], truth[perm]
    m = KMeans(n_clusters=k, init="k-means++", n_init=10, max_iter=300, random_state=0).fit(x)
    # scikit-learn is randomised too: its best of 10 starts for 40 seeds.
    by_seed = [KMeans(n_clusters=k, init="k-means++", n_init=10, max_iter=300, random_state=s).fit(x).inertia_
               for s in range(40)]
    km.append({"x": L(x), "k": k, "n_init": 10, "planted": planted, "structured": sep > 0, "truth": L(truth),
               "sklearn_inertia": m.inertia_, "sklearn_labels": L(m.labels_),
               "sklearn_inertia_by_random_state": by_seed})
out["kmeans"] = km

# Greedy D-/A-optimal designs by brute force, in 50-digit arithmetic
# (mpmath): with a rank-deficient X_S^T X_S and eps = 1e-6 the matrix has a
# condition number near 1e7 and candidates differ in the 10th digit of the
# trace, which a float64 inverse cannot resolve.
import mpmath
mpmath.mp.dps = 50

def greedy(x, start, size, crit, eps):
    chosen = list(start)
    p = x.shape[1]
    gaps = []
    while len(chosen) < size:
        vals = []
        for i in range(len(x)):
            if i in chosen:
                continue
            s = mpmath.matrix(x[chosen + [i]].tolist())
            a = s.T * s + mpmath.mpf(eps) * mpmath.eye(p)
            if crit == "d_optimal":
                val = -mpmath.log(mpmath.det(a))  # minimise -log det
            else:
                inv = a ** -1
                val = sum(inv[j, j] for j in range(p))
            vals.append((val, i))
        vals.sort()
        chosen.append(vals[0][1])
        gaps.append(float((vals[1][0] - vals[0][0]) / abs(vals[0][0])) if len(vals) > 1 else None)
    return chosen, gaps

design = []
for (n, p, size, nstart, eps) in [(20, 5, 6, 1, 1e-3), (30, 18, 6, 1, 1e-6), (30, 3, 6, 2, 1e-6),
                                  (15, 8, 10, 3, 1e-2), (25, 4, 8, 1, 1.0)]:
    x = StandardScaler().fit_transform(rng.normal(size=(n, p)) * rng.gamma(2, size=p))
    start = L(rng.choice(n, size=nstart, replace=False))
    for crit in ["d_optimal", "a_optimal"]:
        chosen, gaps = greedy(x, start, size, crit, eps)
        design.append({"x": L(x), "start": start, "size": size, "criterion": crit, "epsilon": eps,
                       "chosen": chosen, "relative_gap_to_runner_up": gaps})
out["design"] = design

# Isolation Forest: scikit-learn's anomaly scores (-score_samples) with
# 10 x 1000 trees, averaged; a different random stream can only agree
# within Monte-Carlo error, which the Go test allows for.
from sklearn.ensemble import IsolationForest
iso = []
for (n, p, far) in [(40, 3, 3), (30, 3, 0), (12, 2, 1)]:
    x = rng.normal(size=(n, p))
    if far:
        x = np.vstack([x, rng.normal(scale=8, size=(far, p))])
    s = np.mean([-IsolationForest(n_estimators=1000, contamination="auto", random_state=r).fit(x).score_samples(x)
                 for r in range(10)], axis=0)
    iso.append({"x": L(x), "scores": L(s)})
out["isolation_forest"] = iso

out["meta"]["mpmath"] = mpmath.__version__
with open("cases.json", "w") as f:
    json.dump(out, f, indent=1)
