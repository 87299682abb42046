package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/correlation"
	"github.com/evalbook/evalbook/analyses/datasets"
	"github.com/evalbook/evalbook/analyses/meta"
	"github.com/evalbook/evalbook/analyses/multiobjective"
	"github.com/evalbook/evalbook/analyses/offline"
	"github.com/evalbook/evalbook/analyses/significance"
	"github.com/evalbook/evalbook/report/kinds"
)

func notePtr(x float64) *float64 { return &x }

// TestNotesEveryBranch executes every note over options and results that
// take each of its branches (the demo takes only some), and checks that
// each output is complete and cites no spec section or seed number.
func TestNotesEveryBranch(t *testing.T) {
	skipUnderRace(t, "executes method-note templates")
	banned := regexp.MustCompile(`\bSPEC\b|(?i:\bseed 0|\bthe spec\b|\bseed's\b)`)
	seen := map[string]map[string]bool{}
	check := func(name, note string) {
		t.Helper()
		if note == "" || strings.Contains(note, "<no value>") || strings.Contains(note, "{{") {
			t.Errorf("%s: incomplete note %q", name, note)
		}
		if m := banned.FindString(note); m != "" {
			t.Errorf("%s: note mentions %q", name, m)
		}
		if seen[name] == nil {
			seen[name] = map[string]bool{}
		}
		seen[name][note] = true
	}
	check("aggregate", kinds.AggregateMethod())
	check("stability", kinds.StabilityMethod())
	for _, bayes := range []bool{false, true} {
		for _, sig := range [][]bool{{false, false}, {true, false}, {true, true}} {
			r := &significance.CriticalDifferenceResult{Methods: []string{"a", "b", "c"}, NemenyiQ: 2.3438, ZeroMethod: "pratt", Alpha: 0.05, Bayesian: bayes, Samples: 50000, Rope: 0.01}
			r.Pairs = []significance.CDPair{{A: "a", B: "b", Significant: sig[0]}, {A: "a", B: "c", Significant: sig[1]}}
			check("cd", kinds.CriticalDifferenceMethod(r))
		}
	}
	for _, m := range []string{"spearman", "pearson", "kendall", "x"} {
		for _, raw := range []bool{false, true} {
			r := &correlation.Result{Method: m, Raw: raw}
			check("corr", kinds.MetricCorrelationMethod(r))
		}
	}
	for _, comp := range []int{0, 3} {
		r := &datasets.SelectionResult{Size: 6, Datasets: make([]string, 32), Simulations: 500, Rule: "mean_rank"}
		o := &datasets.SelectionOptions{Components: comp, Start: 2, Epsilon: 1e-6}
		check("sel", kinds.SelectionMethod(r, o))
	}
	for _, from := range []string{datasets.CharFromLogs, datasets.CharFromInput} {
		for _, thr := range []*float64{nil, notePtr(3.5)} {
			for _, mi := range [][2]int{{0, 0}, {5, 5}, {0, 3}} {
				for _, core := range []int{0, 2} {
					for _, metric := range []string{"", "ndcg@10"} {
						o := &datasets.CharacteristicsOptions{RatingThreshold: thr, MinItem: mi[0], MinUser: mi[1], Core: core, Metric: metric, Neighbors: 3}
						check("char", kinds.CharacteristicsMethod(from, o, analyses.Naming{}))
					}
				}
			}
		}
	}
	for _, out := range []string{"isolation_forest", "none"} {
		for _, cont := range []float64{0, 0.1} {
			for _, kfixed := range []bool{false, true} {
				for _, metric := range []string{"", "ndcg"} {
					for _, ari := range []*float64{nil, notePtr(0.8731)} {
						r := &datasets.ClustersResult{Features: make([]string, 18), ExplainedVariance: make([]float64, 4), KFixed: kfixed, K: 5, Metric: metric, AdjustedRandIndex: ari, Compare: "domain", Threshold: 0.61234567}
						o := &datasets.ClustersOptions{Outliers: out, Trees: 100, Contamination: cont, Inits: 10, MaxIter: 300, KRange: []int{2, 10}}
						check("clusters", kinds.ClustersMethod(r, o))
					}
				}
			}
		}
	}
	// meta_analysis: every form, source and effect, each with the options
	// varied one at a time.
	for _, form := range []string{meta.TwoGroup, meta.Generic, meta.Paired} {
		for _, units := range []bool{false, true} {
			for _, eff := range []string{"smd", "rom", "md", "hedges_g"} {
				r := &meta.Result{Form: form, Effect: eff, Treatment: "T", Control: "C", FromUnits: units}
				variants := []func(o *meta.Options){
					func(o *meta.Options) {},
					func(o *meta.Options) { o.RangerCompat = true },
					func(o *meta.Options) { o.Model = "fixed" },
					func(o *meta.Options) { o.Test = "knha" },
					func(o *meta.Options) { o.Subgroup = "domain" },
					func(o *meta.Options) { o.Sensitivity = true },
					func(o *meta.Options) { o.Missing = "zero" },
					func(o *meta.Options) { o.Test = "t" },
					func(o *meta.Options) { o.Subgroup, o.SubgroupTau2 = "domain", "common" },
					func(o *meta.Options) { o.Cumulative = "year" },
				}
				for _, tau := range []meta.Tau2Option{"DL", "REML", "ML", "PM", "EB", "HE", "HS", "SJ", "0.04"} {
					variants = append(variants, func(o *meta.Options) { o.Tau2 = tau })
				}
				for _, v := range variants {
					o := &meta.Options{Model: "random", Tau2: "REML", Test: "z", Missing: "drop"}
					o.Summary.Path = "sum.csv"
					v(o)
					check("meta", kinds.MetaMethod(o, r, kinds.EntryRules{}))
				}
				// the units input entries' own missing rules: all alike, or some
				for _, e := range []kinds.EntryRules{{All: "zero"}, {All: "drop"},
					{File: "study.toml", Set: []kinds.EntryRule{{Line: 4, Missing: "zero"}, {Line: 5, Missing: "drop"}}}} {
					check("meta", kinds.MetaMethod(&meta.Options{Model: "random", Tau2: "REML", Test: "z", Missing: "drop"}, r, e))
				}
			}
		}
	}
	bubble := &meta.Result{Form: meta.Generic, Effect: "yi", Treatment: "T", Control: "C", Moderators: &meta.ModResult{Bubble: &meta.Bubble{Moderator: "year"}}}
	check("meta", kinds.MetaMethod(&meta.Options{Model: "random", Tau2: "REML", Test: "z", Mods: []string{"year"}, Summary: meta.Source{Path: "s.csv"}}, bubble, kinds.EntryRules{}))
	for _, evalrs := range []bool{false, true} {
		o := &multiobjective.Options{}
		if evalrs {
			o.EvalRS2022 = &multiobjective.EvalRS2022Options{Groups: map[string]multiobjective.EvalRS2022Group{"a": {}}, Penalty: -100}
		}
		for _, fits := range [][]multiobjective.Fit{nil,
			{{Objective: "x"}},
			{{Objective: "x", Slope: notePtr(-0.123456), ParetoRows: []int{1, 2}}, {Objective: "y", Slope: notePtr(2), ParetoRows: []int{1, 2, 3}, R2: notePtr(0.9), ImpliedImportance: notePtr(3.21)}, {Objective: "z"}}} {
			r := &multiobjective.Result{Fits: fits}
			check("mo", kinds.MultiObjectiveMethod(o, r))
		}
	}
	for _, disc := range []string{"trec_eval", "jarvelin"} {
		for _, gain := range []string{"graded", "binary"} {
			for _, nr := range []string{"zero", "skip"} {
				for _, mu := range []string{"zero", "skip"} {
					o := &offline.Options{K: []int{5, 20}, RelevanceThreshold: 4, NDCGDiscount: disc, NDCGGain: gain, HalfLife: 5, NoRelevant: nr, MissingUsers: mu}
					check("offline", kinds.OfflineMethod(o))
				}
			}
		}
	}
	pairs := []significance.PairedComparison{
		{A: "a", B: "b", Recommended: "none"},
		{A: "a", B: "c", Recommended: "paired_t", Significant: true, PHolm: notePtr(0.0012345), PWelch: notePtr(0.2), PMannWhitney: notePtr(0.3)},
		{A: "b", B: "c", Recommended: "wilcoxon", PWelch: notePtr(0.01), PMannWhitney: notePtr(0.3)},
		{A: "b", B: "d", Recommended: "wilcoxon", PHolm: notePtr(0.5)},
	}
	for n := 0; n <= len(pairs); n++ {
		r := &significance.PairedTestsResult{Over: "units of ml", ZeroMethod: "wilcox", Alpha: 0.05, Pairs: pairs[:n]}
		check("paired", kinds.PairedTestsMethod(r))
	}
	for name, want := range map[string]int{"cd": 6, "corr": 6, "sel": 2, "char": 26, "clusters": 24, "meta": 152, "offline": 16, "paired": 4, "mo": 6} {
		if n := len(seen[name]); n < want {
			t.Errorf("%s: %d distinct notes, want at least %d", name, n, want)
		}
	}
}
