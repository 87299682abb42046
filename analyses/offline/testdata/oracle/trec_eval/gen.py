#!/usr/bin/python3
"""Independent trec_eval oracle for offline_metrics: writes qrels.txt,
runs/*.run and expected.json beside this script.

trec_eval is not packaged for this machine, so every measure is computed
here from trec_eval's own definitions (usnistgov/trec_eval, version 10,
whose measure files say what each computes), in plain Python sharing no
code with the Go side:

* Reading (trec_eval's get_trec_results.c / form_res_rels.c): a run line is
  whitespace separated, `qid Q0 docno rank sim tag`, and the text after the
  sixth field is ignored; a query's lines may be anywhere in the file; a
  query's documents are ordered by sim descending, ties broken by docno
  DEScending (strcmp(p2, p1)); the rank column is ignored.
* Qrels levels (form_res_rels.c): a retrieved doc absent from the qrels is
  RELVALUE_NONPOOL; a negative level is RELVALUE_UNJUDGED (in the pool but
  unjudged); levels >= 0 are counted in rel_levels; num_rel counts levels
  >= relevance_level (-l).
* P_k, recall_k, map_cut_k, success_k: binary (level >= relevance_level),
  P divides by k even when fewer docs are retrieved; recall and map by
  num_rel (0 when it is 0).
* ndcg_cut_k (m_ndcg_cut.c, version 10): gain = the qrels level of every
  positively judged doc WHATEVER relevance_level is, discount 1/log2(i+2)
  for the doc at 0-based position i; the ideal DCG takes the positive
  levels from the highest down; 0 when the ideal is 0.
* map (m_map.c): sum of precision at each relevant retrieved doc / num_rel.
* gm_map (m_gm_map.c): per query log(max(AP, 0.00001)); the mean is exp of
  the mean of those logs.
* recip_rank (m_recip_rank.c): 1/rank of the first relevant doc, no cutoff.
* Rprec (m_Rprec.c): relevant docs among the first num_rel / num_rel.
* bpref (m_bpref.c): num_nonrel = judged docs with 0 <= level <
  relevance_level; over the retrieved docs, NONPOOL and UNJUDGED skipped, a
  judged non-relevant doc increments nonrel_so_far, a relevant doc adds
  1 - min(nonrel_so_far, num_rel)/min(num_nonrel, num_rel) (1 when
  nonrel_so_far is 0); the sum is divided by num_rel.
* iprec_at_recall (m_iprec_at_recall.c, version 10): the cut of recall
  level L is lround(L * num_rel) relevant docs; walking the ranked list
  from the bottom, the interpolated precision is the largest precision at
  that rank or below; a cut above num_rel_ret gives 0.
  trec_eval 9 (m_iprec_at_recall.c, version 9.0.8) cuts at
  (long) (L * num_rel + 0.9) instead, the walk being the same; those
  values are written under "trec_eval9" (evalbook's trec_eval = "9"), the
  product rounded to a double before 0.9 is added, as Python computes it.
* -c (trec_eval.c): the mean is over every query of the qrels; a query
  missing from the run counts 0 on every measure (log(0.00001) for gm_map).
  Queries with no relevant document are evaluated like the others (most
  measures 0, nDCG from the positive levels below the threshold).

Equivalent command, per threshold L in {1, 2}:
  trec_eval -q -c -l L -m P.5,10 -m recall.5,10 -m map_cut.5,10
    -m ndcg_cut.5,10 -m success.5,10 -m map -m gm_map -m recip_rank
    -m Rprec -m bpref -m iprec_at_recall qrels.txt runs/X.run
evalbook's names: precision@k, recall@k, map@k, ndcg@k, success@k, map,
gm_map, mrr, rprec, bpref, iprec@0.0 ... iprec@1.0 (with no_relevant =
"zero", missing_users = "zero").

Run: /usr/bin/python3 gen.py
"""
import json, math, os, random, sys

HERE = os.path.dirname(os.path.abspath(__file__))
KS = [5, 10]
LEVELS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
NONPOOL, UNJUDGED = -1, -2


def lround(x):
    # C's lround: half away from zero (Python's round is half to even).
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def make_data():
    rng = random.Random(20261123)
    qrels = []  # (qid, docno, level)
    queries = ["301", "302", "303", "304", "305", "306", "307", "308"]
    for q in queries:
        docs = ["D%s-%02d" % (q, i) for i in range(30)]
        for d in docs[:18]:
            qrels.append((q, d, rng.choice([-1, 0, 0, 0, 1, 1, 2, 3, 4])))
    # 305: no relevant document at any threshold (levels 0 and -1 only).
    qrels = [(q, d, (min(l, 0) if q == "305" else l)) for q, d, l in qrels]
    # 306: only level 1 positives: relevant at -l1, not at -l2 (nDCG > 0, P = 0 there).
    qrels = [(q, d, (min(l, 1) if q == "306" else l)) for q, d, l in qrels]
    runs = {}
    for name in ["bm25", "dense"]:
        lines = []
        for q in queries:
            if q == "308" and name == "bm25":
                continue  # missing from this run: -c counts it 0
            docs = ["D%s-%02d" % (q, i) for i in range(30)]
            picked = rng.sample(docs, 15 + rng.randrange(6))
            for r, d in enumerate(picked):
                score = round(rng.uniform(0, 10), 1)
                if r % 4 == 1:
                    score = 5.0  # ties, broken by docno descending
                lines.append([q, "Q0", d, str(r + 1), "%g" % score, name])
        # interleave the queries: shuffle the whole file
        rng.shuffle(lines)
        text = []
        for i, f in enumerate(lines):
            sep = "\t" if i % 3 == 0 else " "
            line = sep.join(f)
            if i % 5 == 0:
                line += " trailing text trec_eval ignores"
            text.append(line)
        runs[name] = text
    return queries, qrels, runs


def parse_run(lines):
    by_q = {}
    for line in lines:
        f = line.split()
        if not f:
            continue
        q, docno, sim = f[0], f[2], float(f[4])
        by_q.setdefault(q, []).append((docno, sim))
    out = {}
    for q, docs in by_q.items():
        docs.sort(key=lambda x: (x[1], x[0]), reverse=True)
        out[q] = [d for d, _ in docs]
    return out


def measures(ranked, qrels_q, thr, te9=False):
    levels = {}
    for d, l in qrels_q.items():
        if l >= 0:
            levels[l] = levels.get(l, 0) + 1
    num_rel = sum(c for l, c in levels.items() if l >= thr)
    num_nonrel = sum(c for l, c in levels.items() if 0 <= l < thr)
    rel = []
    for d in ranked:
        if d not in qrels_q:
            rel.append(NONPOOL)
        elif qrels_q[d] < 0:
            rel.append(UNJUDGED)
        else:
            rel.append(qrels_q[d])
    isrel = [r >= thr for r in rel]
    m = {}
    for k in KS:
        top = isrel[:k]
        m["precision@%d" % k] = sum(top) / k
        m["recall@%d" % k] = sum(top) / num_rel if num_rel else 0.0
        s, so_far = 0.0, 0
        for i, x in enumerate(top):
            if x:
                so_far += 1
                s += so_far / (i + 1)
        m["map@%d" % k] = s / num_rel if num_rel else 0.0
        m["success@%d" % k] = 1.0 if any(top) else 0.0
        dcg = sum(g / math.log2(i + 2) for i, g in enumerate(rel[:k]) if g > 0)
        ideal_gains = []
        for l in sorted(levels, reverse=True):
            if l > 0:
                ideal_gains += [l] * levels[l]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal_gains[:k]))
        m["ndcg@%d" % k] = dcg / idcg if idcg > 0 else 0.0
    s, so_far = 0.0, 0
    for i, x in enumerate(isrel):
        if x:
            so_far += 1
            s += so_far / (i + 1)
    ap = s / num_rel if num_rel else 0.0
    m["map"] = ap
    m["_log_ap"] = math.log(max(ap, 0.00001))
    first = next((i + 1 for i, x in enumerate(isrel) if x), None)
    m["mrr"] = 1.0 / first if first else 0.0
    m["rprec"] = sum(isrel[:num_rel]) / num_rel if num_rel else 0.0
    b, nonrel_so_far = 0.0, 0
    for r in rel:
        if r == NONPOOL or r == UNJUDGED:
            continue
        if r < thr:
            nonrel_so_far += 1
        else:
            if nonrel_so_far > 0:
                b += 1.0 - min(nonrel_so_far, num_rel) / min(num_nonrel, num_rel)
            else:
                b += 1.0
    m["bpref"] = b / num_rel if num_rel else 0.0
    # iprec_at_recall, as m_iprec_at_recall.c walks it.
    if te9:
        cutoffs = [int(L * num_rel + 0.9) for L in LEVELS]
    else:
        cutoffs = [lround(L * num_rel) for L in LEVELS]
    num_ret = len(rel)
    num_rel_ret = sum(isrel)
    vals = [0.0] * len(LEVELS)
    cur = len(LEVELS) - 1
    while cur >= 0 and cutoffs[cur] > num_rel_ret:
        cur -= 1
    if num_ret > 0:
        precis = num_rel_ret / num_ret
        int_precis = precis
        rel_so_far = num_rel_ret
        i = num_ret
        while i > 0 and rel_so_far > 0:
            precis = rel_so_far / i
            if int_precis < precis:
                int_precis = precis
            if isrel[i - 1]:
                while cur >= 0 and rel_so_far == cutoffs[cur]:
                    vals[cur] = int_precis
                    cur -= 1
                rel_so_far -= 1
            i -= 1
        while cur >= 0:
            vals[cur] = int_precis
            cur -= 1
    for L, v in zip(LEVELS, vals):
        m["iprec@%.1f" % L] = v
    return m


def main():
    queries, qrels, runs = make_data()
    os.makedirs(os.path.join(HERE, "runs"), exist_ok=True)
    with open(os.path.join(HERE, "qrels.txt"), "w") as f:
        for q, d, l in qrels:
            f.write("%s 0 %s %d\n" % (q, d, l))
    for name, lines in runs.items():
        with open(os.path.join(HERE, "runs", name + ".run"), "w") as f:
            f.write("\n".join(lines) + "\n")
    qrels_by = {}
    for q, d, l in qrels:
        qrels_by.setdefault(q, {})[d] = l
    expected = {"generator": "gen.py (pure Python %s, from trec_eval 10's measure definitions)" % sys.version.split()[0],
                "k": KS, "thresholds": {}}
    for thr in [1, 2]:
        per_run = {}
        for name, lines in runs.items():
            ranked = parse_run(lines)
            per_q, sums = {}, {}
            for q in sorted(qrels_by):
                m = measures(ranked.get(q, []), qrels_by[q], thr)
                per_q[q] = {k: v for k, v in m.items() if not k.startswith("_")}
                for k, v in m.items():
                    sums[k] = sums.get(k, 0.0) + v
            n = len(qrels_by)
            mean = {k: v / n for k, v in sums.items() if not k.startswith("_")}
            mean["gm_map"] = math.exp(sums["_log_ap"] / n)
            order = {q: ranked[q] for q in sorted(ranked)}
            per_run[name] = {"per_query": per_q, "mean": mean, "order": order}
        expected["thresholds"][str(thr)] = per_run
    # iprec_at_recall under trec_eval 9's cut, every query and the mean.
    expected["trec_eval9"] = {}
    for thr in [1, 2]:
        per_run = {}
        for name, lines in runs.items():
            ranked = parse_run(lines)
            per_q, sums = {}, {}
            for q in sorted(qrels_by):
                m = measures(ranked.get(q, []), qrels_by[q], thr, te9=True)
                per_q[q] = {k: v for k, v in m.items() if k.startswith("iprec@")}
                for k, v in per_q[q].items():
                    sums[k] = sums.get(k, 0.0) + v
            n = len(qrels_by)
            per_run[name] = {"per_query": per_q, "mean": {k: v / n for k, v in sums.items()}}
        expected["trec_eval9"][str(thr)] = per_run
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
