package report

import (
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/meta"
	"github.com/evalbook/evalbook/figures"
)

// The bubble plot of a meta-regression on one numeric moderator draws
// metafor's regplot(): dat.bcg's RR on ablat (DL with z, REML with
// Knapp–Hartung), its fitted line and confidence band at 50 evenly
// spaced values of ablat equal to predict(rma(…), newmods = …), and each
// dataset's point at (ablat, effect) with its weight in the model
// (weights(rma)), its radius ∝ √weight; to 1e-9 (REML converged to full
// precision here, to metafor's threshold of 1e-12 in gen.R).
func TestMetaBubbleSpec(t *testing.T) {
	t.Parallel()
	var want struct {
		Yi, Vi, Ablat []float64
		DL            map[string][]float64 `json:"dl"`
		REMLKnha      map[string][]float64 `json:"reml_knha"`
	}
	metaExpected(t, "bubble", &want)
	var studies []meta.Study
	mods := map[string]map[string]string{}
	for i := range want.Yi {
		d := fmt.Sprintf("trial-%02d", i+1)
		studies = append(studies, meta.Study{Dataset: d, Form: meta.Generic, Yi: want.Yi[i], Vi: want.Vi[i]})
		mods[d] = map[string]string{"ablat": strconv.FormatFloat(want.Ablat[i], 'g', -1, 64)}
	}
	for _, c := range []struct {
		tau2 meta.Tau2Option
		test string
		want map[string][]float64
	}{{"DL", "z", want.DL}, {"REML", "knha", want.REMLKnha}} {
		var o meta.Options
		o.Defaults()
		o.Summary.Path, o.Mods, o.Tau2, o.Test = "s.csv", []string{"ablat"}, c.tau2, c.test
		r, err := meta.Analyze(meta.Input{Metric: analyses.Metric{Better: analyses.LowerIsBetter}, Studies: studies, ModValues: mods}, o)
		if err != nil {
			t.Fatal(err)
		}
		s := figures.BubbleSpec(r)
		if s == nil {
			t.Fatalf("%s: no bubble plot", c.tau2)
		}
		marks := map[string]figures.Mark{}
		for _, m := range s.Panels[0].Marks {
			marks[m.Series] = m
		}
		band, line, pts := marks["95% confidence band"], marks["fitted"], marks["datasets"]
		if len(band.X) != len(c.want["x"]) || len(line.X) != len(c.want["x"]) || len(pts.X) != len(want.Yi) {
			t.Fatalf("%s: band %d, line %d, points %d", c.tau2, len(band.X), len(line.X), len(pts.X))
		}
		for i, x := range c.want["x"] {
			what := fmt.Sprintf("%s at ablat %.4g", c.tau2, x)
			near(t, what+" x", band.X[i], x, 1e-9)
			near(t, what+" pred", line.Y[i], c.want["pred"][i], 1e-9)
			near(t, what+" ci_low", band.Y[i], c.want["ci_low"][i], 1e-9)
			near(t, what+" ci_high", band.Y2[i], c.want["ci_high"][i], 1e-9)
		}
		wmax := 0.0
		for _, w := range c.want["weight"] {
			wmax = math.Max(wmax, w)
		}
		for i := range want.Yi {
			if pts.X[i] != want.Ablat[i] || pts.Y[i] != want.Yi[i] {
				t.Errorf("%s point %d at (%v, %v), want (%v, %v)", c.tau2, i, pts.X[i], pts.Y[i], want.Ablat[i], want.Yi[i])
			}
			w := r.Moderators.Bubble.Points[i].Weight
			near(t, fmt.Sprintf("%s weight %d", c.tau2, i), 100*w, c.want["weight"][i], 1e-9)
			near(t, fmt.Sprintf("%s radius %d", c.tau2, i), pts.Sizes[i], math.Max(2, 9*math.Sqrt(c.want["weight"][i]/wmax)), 1e-9)
		}
	}
}
