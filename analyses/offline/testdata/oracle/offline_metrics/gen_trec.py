#!/usr/bin/python3
"""TREC-format fixture for offline_metrics: writes trec/{qrels.txt,run.txt,expected.json}.

The expected values follow trec_eval 9.0.x (usnistgov/trec_eval) measure by
measure, re-implemented here because trec_eval is not packaged for this
machine. The conventions that matter, each exercised by the fixture:

* form_res_rels.c: a run is re-sorted by score descending, ties broken by
  docno DEScending (strcmp(p2, p1)); the rank column is ignored. The run
  below gives ranks that contradict the scores, and ties in score.
* relevance_level 1: a doc is relevant when its qrels value is >= 1; value
  0 is judged non-relevant; a retrieved doc absent from the qrels counts 0.
* P_k = relevant in top k / k (k even when fewer docs are retrieved).
* recall_k = relevant in top k / num_rel.
* map_cut_k = sum over relevant docs at rank r <= k of precision@r / num_rel.
* ndcg_cut_k (m_ndcg_cut.c, trec_eval 9): gain = qrels value, discount
  1/log2(r+1); ideal DCG from all judged docs sorted by value, cut at k;
  0 when the ideal is 0.
* recip_rank = 1 / rank of the first relevant doc (trec_eval has no cutoff;
  with k >= the run length it equals mrr@k).
* -c: a query of the qrels with relevant docs but absent from the run counts
  0 in every mean (evalbook's missing_users = "zero").

Equivalent command: trec_eval -c -m P.5,10 -m recall.5,10 -m map_cut.5,10
  -m ndcg_cut.5,10 -m recip_rank qrels.txt run.txt
Run: /usr/bin/python3 gen_trec.py
"""
import json, math, os

QRELS = [
    ("q1", "d1", 2), ("q1", "d2", 0), ("q1", "d3", 1), ("q1", "d4", 1), ("q1", "d9", 2),
    ("q2", "a", 1), ("q2", "b", 1), ("q2", "z", 3),
    ("q3", "x1", 1), ("q3", "x2", 2),  # q3 is not in the run: zeros with -c
]
# (qid, doc, rank column, score): ranks deliberately disagree with scores.
RUN = [
    ("q1", "d5", 1, 9.0), ("q1", "d1", 2, 7.5), ("q1", "d3", 3, 7.5),  # tie: d3 before d1 (docno descending)
    ("q1", "d2", 4, 6.0), ("q1", "d7", 5, 5.0), ("q1", "d4", 6, 4.0), ("q1", "d8", 7, 1.0),
    ("q2", "b", 1, 0.5), ("q2", "c", 2, 0.9), ("q2", "a", 3, 0.5), ("q2", "z", 4, 0.1),  # tie a/b: b first
]
KS = [5, 10]

def ordered(qid):
    docs = [(d, s) for q, d, _, s in RUN if q == qid]
    # score descending, then docno descending (Python compares str like strcmp for ASCII)
    docs.sort(key=lambda x: (x[1], x[0]), reverse=True)
    return [d for d, _ in docs]

def measures(qid):
    rels = {d: r for q, d, r in QRELS if q == qid}
    num_rel = sum(1 for r in rels.values() if r >= 1)
    docs = ordered(qid) if any(q == qid for q, *_ in RUN) else []
    out = {}
    ideal = sorted((r for r in rels.values() if r > 0), reverse=True)
    for k in KS:
        top = docs[:k]
        relflags = [rels.get(d, 0) >= 1 for d in top]
        hits = sum(relflags)
        out["precision@%d" % k] = hits / k
        out["recall@%d" % k] = hits / num_rel
        s, h = 0.0, 0
        for r, f in enumerate(relflags, 1):
            if f:
                h += 1
                s += h / r
        out["map@%d" % k] = s / num_rel
        dcg = sum(rels.get(d, 0) / math.log2(r + 1) for r, d in enumerate(top, 1) if rels.get(d, 0) > 0)
        idcg = sum(g / math.log2(r + 1) for r, g in enumerate(ideal[:k], 1))
        out["ndcg@%d" % k] = dcg / idcg if idcg > 0 else 0.0
        first = next((r for r, f in enumerate(relflags, 1) if f), None)
        out["mrr@%d" % k] = 1.0 / first if first else 0.0
    return docs, out

def main():
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "trec")
    os.makedirs(here, exist_ok=True)
    with open(os.path.join(here, "qrels.txt"), "w") as f:
        for q, d, r in QRELS:
            f.write("%s 0 %s %d\n" % (q, d, r))
    with open(os.path.join(here, "run.txt"), "w") as f:
        for q, d, rank, s in RUN:
            f.write("%s Q0 %s %d %g evalbook\n" % (q, d, rank, s))
    queries = sorted({q for q, *_ in QRELS})
    per, order = {}, {}
    for q in queries:
        order[q], per[q] = measures(q)
    mean = {m: sum(per[q][m] for q in queries) / len(queries) for m in per[queries[0]]}
    with open(os.path.join(here, "expected.json"), "w") as f:
        json.dump({"meta": {"generator": "gen_trec.py (trec_eval 9.0 conventions, re-implemented)",
                            "command": "trec_eval -c -m P.5,10 -m recall.5,10 -m map_cut.5,10 -m ndcg_cut.5,10 -m recip_rank qrels.txt run.txt"},
                   "k": KS, "order": order, "per_query": per, "mean": mean}, f, indent=1, sort_keys=True)
        f.write("\n")

main()
