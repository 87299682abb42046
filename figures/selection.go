package figures

// Figures of the dataset_selection analysis (Shevchenko et al. 2024,
// Table 4): how close each strategy's ranking on a few datasets comes to
// the ranking on all, and which datasets each strategy keeps choosing.

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/datasets"
)

// Selection draws mean ρ by strategy and metric (id) and how often each
// dataset was chosen (id-chosen).
func Selection(id, title string, r *datasets.SelectionResult) ([]Figure, error) {
	f1, err := selectionRho(id, r)
	if err != nil {
		return nil, err
	}
	f2, err := selectionChosen(id+"-chosen", r)
	if err != nil {
		return nil, err
	}
	return []Figure{f1, f2}, nil
}

// selectionRho is the agreement (Spearman ρ) of each strategy's ranking
// on a few datasets with the ranking on all: one panel per metric, each
// strategy's mean with whiskers from its 5% to its 95% quantile.
func selectionRho(id string, r *datasets.SelectionResult) (Figure, error) {
	sum := map[[2]string]datasets.SelectionSummary{}
	for _, s := range r.Summary {
		sum[[2]string{s.Strategy, s.Metric}] = s
	}
	strategies := labelled(r.Strategies, r.Naming.Strategy)
	ymin := selectionAxisMin(r)
	var panels []Panel
	for _, m := range r.Metrics {
		pn := Panel{Title: r.Naming.Metric(m), X: Axis{Min: Auto, Max: Auto, Categories: strategies},
			Y: NewAxis("ρ with the ranking on all datasets").Fixed(ymin, 1)}
		for j, strat := range r.Strategies {
			s := sum[[2]string{strat, m}]
			if s.Mean == nil {
				continue
			}
			st := selectionStyle(j)
			x := []float64{float64(j)}
			name := strategies[j]
			if s.Q05 != nil && s.Q95 != nil {
				pn.Marks = append(pn.Marks, Mark{Kind: MarkInterval, Series: name, Style: st, X: x, Y: []float64{*s.Q05}, Y2: []float64{*s.Q95}, Size: 1.2})
			}
			pn.Marks = append(pn.Marks, Mark{Kind: MarkPoints, Series: name, Style: st, X: x, Y: []float64{*s.Mean}, Names: []string{name}, Size: 4})
		}
		panels = append(panels, pn)
	}
	spec := &Spec{Panels: panels, Width: 6.5, Height: 4,
		Subject: fmt.Sprintf("agreement of %d strategies' rankings with the ranking on all datasets, per metric", len(r.Strategies)),
		Caption: fmt.Sprintf("Spearman's ρ between the %s ranking of %d methods on %d chosen datasets and on all %d, over %d simulations per strategy (Shevchenko et al. 2024, Table 4), one panel per metric: each strategy's mean (its symbol) with whiskers from the 5%% to the 95%% quantile.",
			r.Naming.Rule(r.Rule), len(r.Methods), r.Size, len(r.Datasets), r.Simulations)}
	return FigureOf(spec, id, "Agreement of the ranking on a few datasets with the ranking on all", 400)
}

// selectionStyle is strategy j's colour and marker.
func selectionStyle(j int) Style {
	st := StyleAt(j)
	st.Dash = Solid
	return st
}

func selectionChosen(id string, r *datasets.SelectionResult) (Figure, error) {
	nd := len(r.Datasets)
	total := make([]int, nd)
	for _, strat := range r.Strategies {
		for d, n := range r.ChosenCounts[strat] {
			total[d] += n
		}
	}
	order := make([]int, nd)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		if total[order[a]] != total[order[b]] {
			return total[order[a]] > total[order[b]]
		}
		return r.Datasets[order[a]] < r.Datasets[order[b]]
	})
	// row 0 at the top: the most chosen dataset first
	rows := make([]string, nd)
	values := make([][]float64, nd)
	text := make([][]string, nd)
	for ri, d := range order {
		rows[ri] = r.Naming.Dataset(r.Datasets[d])
		values[ri] = make([]float64, len(r.Strategies))
		text[ri] = make([]string, len(r.Strategies))
		for j, strat := range r.Strategies {
			share := float64(r.ChosenCounts[strat][d]) / float64(r.Simulations)
			values[ri][j] = share
			text[ri][j] = fmt.Sprintf("%.*f%%", analyses.PercentDecimals, 100*share) // as the table
		}
	}
	sc := &Scale{Min: 0, Max: 1, Low: color.NRGBA{0xFF, 0xFF, 0xFF, 0xFF}, High: corrPositive, LowName: "white", HiName: "blue"}
	pn := Panel{X: Axis{Min: Auto, Max: Auto, Categories: labelled(r.Strategies, r.Naming.Strategy)},
		Y:     Axis{Min: Auto, Max: Auto, Categories: rows, Inverse: true},
		Marks: []Mark{{Kind: MarkCells, Series: "share of simulations", NoLegend: true, Cells: values, Format: "%.2f", CellText: text}}}
	spec := &Spec{Panels: []Panel{pn}, Scale: sc, Width: 2 + 1.0*float64(len(r.Strategies)), Height: 0.8 + 0.2*float64(nd),
		Subject: fmt.Sprintf("how often %d strategies chose each of %d datasets", len(r.Strategies), nd),
		Caption: fmt.Sprintf("Share of the %d simulations in which each strategy chose each dataset (%d of %d datasets per simulation; darker is more often); datasets ordered by how often any strategy chose them.", r.Simulations, r.Size, nd)}
	return FigureOf(spec, id, "How often each dataset was chosen", 60+18*nd)
}

// selectionAxisMin is a round lower bound (a multiple of 0.05) below
// every 5% quantile of ρ.
func selectionAxisMin(r *datasets.SelectionResult) float64 {
	lo := 1.0
	for _, s := range r.Summary {
		if s.Q05 != nil {
			lo = math.Min(lo, *s.Q05)
		}
	}
	return math.Floor(lo*20-1e-9) / 20
}
