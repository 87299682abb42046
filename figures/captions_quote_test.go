package figures

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/analyses/meta"
	"github.com/evalbook/evalbook/analyses/significance"
	"github.com/evalbook/evalbook/figures/model"
)

// cellOf is the text of column col in the row of the analysis's table
// name whose first cell reads key ("" for any row), as its page prints it.
func cellOf(t *testing.T, tables []analyses.Table, name, key, col string) string {
	t.Helper()
	for _, tb := range tables {
		if tb.Name != name {
			continue
		}
		s := model.NewTable(tb, "x", model.TableOptions{})
		for _, r := range s.Rows {
			if key != "" && r[0].Text != key {
				continue
			}
			for j, c := range s.Columns {
				// a named quantity's row shows its label, with its id as the title
				if c.ID == col || c.Role == model.RoleQuantity && (r[0].Title == col || r[0].Text == col) {
					return r[j].Text
				}
			}
		}
	}
	t.Fatalf("no cell %s of row %q in table %q", col, key, name)
	return ""
}

// TestCaptionsQuoteTables: a number a figure's caption or label quotes
// reads as the analysis's table prints it: the critical difference in the
// CD diagram's label and caption, a pair's mean difference under its
// paired-tests figure, the test of subgroup differences under the forest
// plot.
func TestCaptionsQuoteTables(t *testing.T) {
	t.Parallel()
	// 120 datasets: a critical difference below 1, where four significant
	// digits are not three decimals
	scores := make([][]float64, 120)
	for d := range scores {
		f := float64(d)
		scores[d] = []float64{0.30 + 0.01*math.Sin(f), 0.31 + 0.0002*f, 0.29 + 0.01*math.Cos(f), 0.25}
	}
	cin := significance.CriticalDifferenceInput{AggregateInput: leaderboard.AggregateInput{
		Metric: analyses.Metric{Name: "ndcg@10", Max: 1}, Methods: []string{"EASE", "LightGCN", "SASRec", "ALS"}, Q: scores}, Jobs: 1}
	for d := range scores {
		cin.Datasets = append(cin.Datasets, fmt.Sprintf("d%03d", d))
	}
	cd, err := significance.CriticalDifference(cin, significance.CriticalDifferenceOptions{Metric: "ndcg@10"})
	if err != nil {
		t.Fatal(err)
	}
	if cd.CriticalDifference >= 1 {
		t.Fatalf("critical difference %v: not below 1", cd.CriticalDifference)
	}
	figs, err := CriticalDifference("cd", "CD", cd)
	if err != nil {
		t.Fatal(err)
	}
	want := cellOf(t, cd.Tables(), "", "", "critical_difference")
	if !strings.Contains(figs[0].Caption, "critical difference ("+want+")") || !strings.Contains(string(figs[0].Chart), "CD = "+want) {
		t.Errorf("the CD diagram does not quote the table's critical difference %s: %q", want, figs[0].Caption)
	}
	if !strings.Contains(cd.Highlight(), "critical difference "+want) {
		t.Errorf("the finding does not quote the table's critical difference %s: %q", want, cd.Highlight())
	}

	in := significance.PairedTestsInput{Metric: analyses.Metric{Name: "rmse"}, Over: "folds", Methods: []string{"A", "B", "C"}, Values: make([][]float64, 3)}
	for u := range 300 {
		in.Units = append(in.Units, fmt.Sprintf("u%03d", u))
		f := float64(u)
		in.Values[0] = append(in.Values[0], 1+0.1*math.Sin(f)-0.01)
		in.Values[1] = append(in.Values[1], 1+0.1*math.Sin(f)+0.002*math.Cos(3*f))
		in.Values[2] = append(in.Values[2], 1+0.1*math.Sin(f)+0.2)
	}
	pr, err := significance.PairedTests(in, significance.PairedTestsOptions{Metric: "rmse", Missing: "drop"})
	if err != nil {
		t.Fatal(err)
	}
	pfigs, err := PairedTests("pt", "", pr)
	if err != nil {
		t.Fatal(err)
	}
	pairs := model.NewTable(pr.Tables()[0], "pt", model.TableOptions{})
	md := -1
	for j, c := range pairs.Columns {
		if c.ID == "mean_diff" {
			md = j
		}
	}
	if len(pfigs) != len(pr.Pairs) || md < 0 || len(pairs.Rows) != len(pr.Pairs) {
		t.Fatalf("%d figures and %d table rows for %d pairs (mean_diff column %d)", len(pfigs), len(pairs.Rows), len(pr.Pairs), md)
	}
	for i, p := range pr.Pairs {
		want := pairs.Rows[i][md].Text
		if pairs.Rows[i][0].Text != p.A || pairs.Rows[i][1].Text != p.B || !strings.Contains(pfigs[i].Caption, "Mean difference "+want+";") {
			t.Errorf("pair %s–%s: the caption does not quote the table's mean difference %s: %q", p.A, p.B, want, pfigs[i].Caption)
		}
	}

	mr := metaResult(t, false, true)
	mfigs, err := Meta("m", "m", mr)
	if err != nil {
		t.Fatal(err)
	}
	q := cellOf(t, mr.Tables(), "subgroups", "", "Q_between")
	if !strings.Contains(mfigs[0].Caption, "Q = "+q+",") {
		t.Errorf("the forest plot does not quote the subgroups table's Q %s: %q", q, mfigs[0].Caption)
	}
}

// TestTau2NoteQuotesTheTable: the note on a τ² outside its Q-profile
// interval quotes τ² and its bounds as the heterogeneity table prints
// them, for the whole model and for each subgroup, whose values lie on
// other scales (the table formats each column over all its rows).
func TestTau2NoteQuotesTheTable(t *testing.T) {
	yi := []float64{-0.03, -0.01, 0, -0.008, -0.05, -0.001, -0.002}
	vi := []float64{1e-5, 7e-7, 2e-7, 3e-7, 2e-5, 5e-8, 5e-7}
	var studies []meta.Study
	groups := map[string]string{}
	for _, g := range []struct {
		name  string
		scale float64
	}{{"small", 1}, {"large", 40}} {
		for i := range yi {
			d := fmt.Sprintf("%s%d", g.name, i)
			studies = append(studies, meta.Study{Dataset: d, Form: meta.Generic, Yi: g.scale * yi[i], Vi: g.scale * g.scale * vi[i]})
			groups[d] = g.name
		}
	}
	var o meta.Options
	o.Defaults()
	o.Treatment, o.Control, o.Metric = "T", "C", "m"
	o.Model, o.Tau2, o.Test, o.Subgroup = "random", "DL", "z", "domain"
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := meta.Analyze(meta.Input{Metric: analyses.Metric{Name: "m"}, Studies: studies, Groups: groups}, o)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, n := range res.Notes() {
		prefix, rest, _ := strings.Cut(n, "τ² = ")
		if !strings.Contains(rest, "Q-profile interval") {
			continue
		}
		key := strings.TrimSuffix(strings.TrimPrefix(prefix, "subgroup "), ": ")
		if prefix == "" {
			key = "all"
		}
		want := cellOf(t, res.Tables(), "heterogeneity", key, "tau2") + " (DL) lies below its 95% Q-profile interval " +
			cellOf(t, res.Tables(), "heterogeneity", key, "tau2_ci_low")
		if !strings.HasPrefix(rest, want) {
			t.Errorf("%s: the note reads %q, the table %q", key, "τ² = "+rest[:min(len(rest), len(want)+12)], "τ² = "+want)
		}
		checked++
	}
	if checked < 2 {
		t.Errorf("%d notes on a τ² outside its interval, want the model's and a subgroup's at least:\n%s", checked, strings.Join(res.Notes(), "\n"))
	}
}
