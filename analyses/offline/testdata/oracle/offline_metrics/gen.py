#!/usr/bin/python3
"""Oracle for offline_metrics (Jannach et al. 2010): writes cases.json.

Every metric is computed here straight from its definition (the slides of
Jannach et al. 2010, the offline_metrics method note, trec_eval 9's
P_k/recall_k/map_cut_k/ndcg_cut_k),
list by list with Python's own sums, sharing no code with the Go side:

  precision@k = |hits in top k| / k          recall@k = |hits in top k| / |T|
  f1@k        = 2PR/(P+R) (0 when P+R = 0)
  ndcg@k      = DCG@k / IDCG@k, gain = relevance for every positive
                relevance (graded, trec_eval's ndcg_cut whatever the
                threshold) or 1 for relevance >= threshold (binary), discount 1/log2(r+1) ("trec_eval")
                or 1 at r=1 and 1/log2(r) after ("jarvelin", Jannach et al. 2010)
  map@k       = (1/|T|) * sum over hits at rank r <= k of (hits up to r)/r
  mrr@k       = 1/(rank of first hit within k), else 0
  hitrate@k   = 1 if a hit within k
  rankscore@k = sum_hits 2^(-(r-1)/a) / sum_{i=1..min(|T|,k)} 2^(-(i-1)/a)
  liftindex@k = sum_hits (1-(r-1)/k) / |hits|, 0 without hits
  coverage@k  = |items in some top-k list| / |truth items U items of all runs|
  novelty@k   = mean over listed slots r<=k of -log2(max(1,#truth users of
                item)/#truth users)
  mae, rmse   = pooled over every prediction of the run; per user the same
                over the user's predictions.

Run: /usr/bin/python3 gen.py  (writes cases.json beside this file).
"""
import json, math, os, random, sys

META = {"generator": "gen.py (pure Python, no third-party code)",
        "python": sys.version.split()[0]}

def metrics_for_user(lst, truth, o):
    thr, ks = o["relevance_threshold"], sorted(set(o["k"]))
    a = o["half_life"]
    def gain(v):
        # trec_eval's ndcg_cut: graded gain = every positive level, whatever
        # the threshold; binary: 1 for a relevant item.
        if o["ndcg_gain"] == "binary":
            return 1.0 if v >= thr else 0.0
        return float(v) if v > 0 else 0.0
    def disc(r):
        if o["ndcg_discount"] == "jarvelin":
            return 1.0 if r == 1 else 1.0 / math.log2(r)
        return 1.0 / math.log2(r + 1)
    nrel = sum(1 for v in truth.values() if v >= thr)
    out = {}
    ideal = sorted((gain(v) for v in truth.values() if gain(v) > 0), reverse=True)
    for k in ks:
        top = lst[:k]
        hits = [r for r, it in enumerate(top, 1) if truth.get(it, 0) >= thr]
        dcg = sum(gain(truth.get(it, 0)) * disc(r) for r, it in enumerate(top, 1))
        idcg = sum(g * disc(r) for r, g in enumerate(ideal[:k], 1))
        if nrel == 0:
            # no relevant item: the binary measures are 0, nDCG still
            # counts the positive levels below the threshold (trec_eval).
            for m in ["precision", "recall", "f1", "map", "mrr", "hitrate", "rankscore", "liftindex"]:
                out["%s@%d" % (m, k)] = 0.0
            out["ndcg@%d" % k] = dcg / idcg if idcg > 0 else 0.0
            continue
        p = len(hits) / k
        rc = len(hits) / nrel
        out["precision@%d" % k] = p
        out["recall@%d" % k] = rc
        out["f1@%d" % k] = 0.0 if p + rc == 0 else 2 * p * rc / (p + rc)
        dcg = sum(gain(truth.get(it, 0)) * disc(r) for r, it in enumerate(top, 1))
        idcg = sum(g * disc(r) for r, g in enumerate(ideal[:k], 1))
        out["ndcg@%d" % k] = dcg / idcg if idcg > 0 else 0.0
        out["map@%d" % k] = sum(j / r for j, r in enumerate(hits, 1)) / nrel
        out["mrr@%d" % k] = 1.0 / hits[0] if hits else 0.0
        out["hitrate@%d" % k] = 1.0 if hits else 0.0
        best = sum(2 ** (-(i - 1) / a) for i in range(1, min(nrel, k) + 1))
        out["rankscore@%d" % k] = sum(2 ** (-(r - 1) / a) for r in hits) / best
        out["liftindex@%d" % k] = sum(1 - (r - 1) / k for r in hits) / len(hits) if hits else 0.0
    return out

def zeros(o):
    return {"%s@%d" % (m, k): 0.0 for m in ["precision", "recall", "f1", "ndcg", "map", "mrr", "hitrate", "rankscore", "liftindex"] for k in sorted(set(o["k"]))}

def make_case(rng, idx):
    n_users = rng.randint(3, 25)
    n_items = rng.randint(5, 60)
    items = ["i%d" % j for j in range(n_items)]
    graded = rng.random() < 0.6
    o = {
        "k": sorted(rng.sample([1, 2, 3, 5, 7, 10, 15, 20], rng.randint(1, 4))),
        "relevance_threshold": rng.choice([1, 1, 2]) if graded else 1,
        "ndcg_discount": rng.choice(["trec_eval", "jarvelin"]),
        "ndcg_gain": rng.choice(["graded", "binary"]),
        "half_life": rng.choice([1, 2, 5, 3.5]),
        "no_relevant": rng.choice(["skip", "zero"]),
        "missing_users": rng.choice(["zero", "skip"]),
    }
    truth = {}
    for u in range(n_users):
        m = rng.randint(1, min(12, n_items))
        truth["u%d" % u] = {it: (rng.randint(0, 3) if graded else 1) for it in rng.sample(items, m)}
    # extra catalogue items that only runs list
    run_items = items + ["x%d" % j for j in range(rng.randint(0, 10))]
    runs = {}
    for method in ["A", "B", "C"][: rng.randint(1, 3)]:
        lists = {}
        for u in truth:
            if rng.random() < 0.15:
                continue  # missing user
            L = rng.randint(0, 25)
            # bias toward truth items so hits happen
            pool = list(truth[u]) if rng.random() < 0.7 else []
            lst = rng.sample(run_items, min(L, len(run_items)))
            for it in pool:
                if rng.random() < 0.4 and it not in lst:
                    lst.insert(rng.randint(0, len(lst)), it)
            lists[u] = lst
        preds = {}
        for u in truth:
            if rng.random() < 0.7:
                its = rng.sample(list(truth[u]), rng.randint(1, len(truth[u])))
                preds[u] = [[it, truth[u][it] + rng.gauss(0, 1)] for it in its]
        runs[method] = {"lists": lists, "predictions": preds}
    return o, truth, runs

def expected(o, truth, runs):
    ks = sorted(set(o["k"]))
    U = len(truth)
    pop = {}
    for u, t in truth.items():
        for it in t:
            pop[it] = pop.get(it, 0) + 1
    catalog = set(pop)
    for r in runs.values():
        for lst in r["lists"].values():
            catalog.update(lst)
    per_run, per_user = {}, {}
    for method, r in runs.items():
        users = {}
        for u, t in truth.items():
            nrel = sum(1 for v in t.values() if v >= o["relevance_threshold"])
            if u in r["lists"]:
                v = metrics_for_user(r["lists"][u], t, o)
                if nrel > 0 or o["no_relevant"] == "zero":
                    users[u] = v
            else:
                if nrel > 0:
                    if o["missing_users"] == "zero":
                        users[u] = zeros(o)
                elif o["no_relevant"] == "zero":
                    users[u] = zeros(o)
        vals = {}
        if users:
            for name in zeros(o):
                vals[name] = sum(users[u][name] for u in users) / len(users)
        maxk = ks[-1]
        for k in ks:
            covered = set()
            si, n = 0.0, 0
            for lst in r["lists"].values():
                covered.update(lst[:k])
                for it in lst[:k]:
                    si += -math.log2(max(1, pop.get(it, 0)) / U)
                    n += 1
            vals["coverage@%d" % k] = len(covered) / len(catalog)
            if n:
                vals["novelty@%d" % k] = si / n
        preds = r["predictions"]
        if preds:
            ae = se = 0.0
            cnt = 0
            for u, ps in preds.items():
                uae = sum(abs(p - truth[u][it]) for it, p in ps)
                use = sum((p - truth[u][it]) ** 2 for it, p in ps)
                users.setdefault(u + "#ratings", {"mae": uae / len(ps), "rmse": math.sqrt(use / len(ps))})
                ae += uae
                se += use
                cnt += len(ps)
            vals["mae"] = ae / cnt
            vals["rmse"] = math.sqrt(se / cnt)
        per_run[method] = vals
        per_user[method] = users
    return per_run, per_user

def main():
    rng = random.Random(20261121)
    cases = []
    for idx in range(25):
        o, truth, runs = make_case(rng, idx)
        per_run, per_user = expected(o, truth, runs)
        cases.append({"name": "random-%02d" % idx, "options": o, "truth": truth, "runs": runs,
                      "expected_runs": per_run, "expected_users": per_user})
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "cases.json"), "w") as f:
        json.dump({"meta": META, "cases": cases}, f, indent=None, separators=(",", ":"))
        f.write("\n")

if __name__ == "__main__":
    main()
