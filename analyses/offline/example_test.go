package offline_test

import (
	"fmt"

	"github.com/evalbook/evalbook/analyses/offline"
)

// Two users, one run, cutoff 2. Worked by hand (trec_eval's definitions):
// u1's relevant items i1 and i3 sit at ranks 1 and 3 of its list, u2's i2
// at rank 2. precision@2 is 1/2 for both; recall@2 is 1/2 and 1 (mean
// 0.75); nDCG@2 is 1/(1 + 1/log2 3) = 0.6131 and (1/log2 3)/1 = 0.6309
// (mean 0.6220); average precision is (1 + 2/3)/2 and 1/2 (mean 0.6667);
// the reciprocal rank 1 and 1/2 (mean 0.75).
func ExampleMetrics() {
	truth := offline.NewTruth()
	for _, r := range [][2]string{{"u1", "i1"}, {"u1", "i3"}, {"u2", "i2"}} {
		if err := truth.Add([]byte(r[0]), []byte(r[1]), 1); err != nil {
			panic(err)
		}
	}
	o := offline.Options{K: []int{2}}
	o.Defaults()
	if err := truth.Finish(o.RelevanceThreshold); err != nil {
		panic(err)
	}
	run := offline.NewRun("ml", "pop", truth, o)
	lists := map[string][]string{"u1": {"i1", "i2", "i3"}, "u2": {"i3", "i2"}}
	for _, u := range []string{"u1", "u2"} {
		var items [][]byte
		for _, it := range lists[u] {
			items = append(items, []byte(it))
		}
		if err := run.AddUser([]byte(u), items); err != nil {
			panic(err)
		}
	}
	if err := run.Finish(); err != nil {
		panic(err)
	}
	res := offline.Metrics(o, offline.FinishDataset([]*offline.Run{run}), false)
	v := res.Runs[0].Values
	for _, name := range []string{"precision@2", "recall@2", "ndcg@2", "map", "mrr"} {
		fmt.Printf("%s %.4f\n", name, *v[name])
	}
	// Output:
	// precision@2 0.5000
	// recall@2 0.7500
	// ndcg@2 0.6220
	// map 0.6667
	// mrr 0.7500
}

// The paired t test of compare, on per-user differences 1, 2, 3: mean 2,
// sd 1, t = 2·√3 on 2 degrees of freedom, where Student's distribution has
// the closed form p = 1 − |t|/√(2 + t²) = 1 − √12/√14 = 0.0742.
func ExampleStudentPaired() {
	p, ok := offline.StudentPaired([]float64{1, 2, 3})
	fmt.Printf("p = %.4f, defined: %v\n", p, ok)
	// Output:
	// p = 0.0742, defined: true
}

// Adjust corrects the p-values of a family of comparisons: Bonferroni
// multiplies each by the family's size (capped at 1); Holm multiplies the
// sorted ones by 3, 2, 1 and keeps them monotone.
func ExampleAdjust() {
	p := []float64{0.01, 0.04, 0.5}
	fmt.Printf("%.2f\n", offline.Adjust(p, offline.CorrectBonferroni))
	fmt.Printf("%.2f\n", offline.Adjust(p, offline.CorrectHolm))
	// Output:
	// [0.03 0.12 1.00]
	// [0.03 0.08 0.50]
}
