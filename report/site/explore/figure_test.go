package explore

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/analyses/significance"
	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/figures/model"
)

// TestComputeCDFigureIsThePublishedOne: for random views, the CD diagram
// the page draws (Result.Figures) is the analysis page's interactive
// chart of a build restricted to the view: figures.CriticalDifference
// (the gonum package the build draws with) run on the critical_difference
// result of the restricted study, styled as the site styles it
// (model.StyleChart), gives the same ECharts option, byte for byte, the
// same caption, alt text and height.
func TestComputeCDFigureIsThePublishedOne(t *testing.T) {
	d := study(12, 6)
	r := rand.New(rand.NewPCG(3, 5))
	n := 12
	if testing.Short() {
		n = 4
	}
	for k := 0; k < n; k++ {
		s := State{Metric: "ndcg@10", Datasets: subset(r, d.Datasets, 3), Methods: subset(r, d.Methods, 2),
			Rules: subset(r, leaderboard.AllRules, 1)}
		got, err := Compute(d, s)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Figures) != 1 {
			t.Fatalf("view %v: %d figures, want the CD diagram", s, len(got.Figures))
		}
		want := publishedCD(t, restricted(d, s), s)
		g := got.Figures[0]
		styled, err := model.StyleChart(want.Chart, &want.Height)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(g.Option, styled) {
			t.Fatalf("view %v: the CD diagram's option\n got %s\nwant %s", s, g.Option, styled)
		}
		if g.ID != want.ID || g.Title != want.Title || g.Caption != want.Caption || g.Alt != want.Alt || g.Height != want.Height {
			t.Errorf("view %v: figure %q %q (%d px)\n%q\n%q\nwant %q %q (%d px)\n%q\n%q", s, g.ID, g.Title, g.Height, g.Caption, g.Alt,
				want.ID, want.Title, want.Height, want.Caption, want.Alt)
		}
	}
}

// publishedCD is the CD diagram a build of the study d (restricted to
// the view s) draws on the critical_difference analysis's page.
func publishedCD(t *testing.T, d *Data, s State) figures.Figure {
	t.Helper()
	metric, err := d.check(s)
	if err != nil {
		t.Fatal(err)
	}
	c := d.CriticalDifference
	o := c.Options
	o.Metric = s.Metric
	in := leaderboard.AggregateInput{Metric: metric, Datasets: s.Datasets, Methods: s.Methods, Q: d.matrix(s)}
	r, err := significance.CriticalDifference(significance.CriticalDifferenceInput{AggregateInput: in, Seed: c.Seed, Jobs: 1}, o)
	if err != nil {
		t.Fatal(err)
	}
	r.Naming = d.Naming
	figs, err := figures.CriticalDifference(c.ID, "", r)
	if err != nil || len(figs) != 1 {
		t.Fatalf("figures.CriticalDifference: %d figures, %v", len(figs), err)
	}
	return figs[0]
}

// TestComputeStabilityFiguresAreThePublishedOnes: the stability curves
// the page draws for a view (one figure per perturbation) are the
// stability page's charts of the study restricted to the view:
// figures.Stability on leaderboard.Stability's result of the restricted
// study (same options, rules and seed), styled as the site styles them,
// gives the same ECharts options byte for byte, ids, titles, captions,
// alt texts and heights.
func TestComputeStabilityFiguresAreThePublishedOnes(t *testing.T) {
	d := study(12, 6)
	one := 1.0
	d.Metrics[0].Max = &one
	st := leaderboard.StabilityOptions{Metric: "ndcg@10", Repeats: 5}
	st.Defaults()
	d.Stability = &Stability{ID: "stability", Seed: 99, Options: st}
	r := rand.New(rand.NewPCG(5, 6))
	for k := 0; k < 2; k++ {
		s := State{Metric: "ndcg@10", Datasets: subset(r, d.Datasets, 8), Methods: subset(r, d.Methods, 4), Rules: []string{"borda", "mean", "dm_auc"}}
		got, err := ComputeStability(d, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := publishedStability(t, restricted(d, s), s)
		if len(got.Figures) != len(want) || len(want) == 0 {
			t.Fatalf("view %v: %d figures, want %d", s, len(got.Figures), len(want))
		}
		for i, w := range want {
			g := got.Figures[i]
			h := w.Height
			styled, err := model.StyleChart(w.Chart, &h)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(g.Option, styled) {
				t.Fatalf("view %v: figure %s's option\n got %s\nwant %s", s, w.ID, g.Option, styled)
			}
			if g.ID != w.ID || g.Title != w.Title || g.Caption != w.Caption || g.Alt != w.Alt || g.Height != h || g.Analysis != "stability" {
				t.Errorf("view %v: figure %q %q (%d px), want %q %q (%d px)", s, g.ID, g.Title, g.Height, w.ID, w.Title, h)
			}
		}
	}
}

// publishedStability are the figures a build of the study d (restricted
// to the view s) draws on the stability analysis's page.
func publishedStability(t *testing.T, d *Data, s State) []figures.Figure {
	t.Helper()
	metric, err := d.check(s)
	if err != nil {
		t.Fatal(err)
	}
	st := d.Stability
	o := st.Options
	o.Metric, o.Rules = s.Metric, s.Rules
	in := leaderboard.StabilityInput{Metric: metric, Datasets: s.Datasets, Methods: s.Methods, Q: d.matrix(s), Seed: st.Seed, Jobs: 1}
	r, err := leaderboard.Stability(in, o)
	if err != nil {
		t.Fatal(err)
	}
	r.Naming = d.Naming
	figs, err := figures.Stability(st.ID, "", r)
	if err != nil {
		t.Fatal(err)
	}
	return figs
}
