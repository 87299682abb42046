package figures

// The figures of a stability analysis, one per perturbation, from
// model.StabilitySpec.

import (
	"fmt"

	"gonum.org/v1/plot/plotter"

	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/figures/model"
)

// Stability draws one figure per perturbation of a stability result: mean ρ
// per rule against the perturbation size, with a ±1.96·sd/√count band
// where a point has at least two values.
func Stability(id, title string, r *leaderboard.StabilityResult) ([]Figure, error) {
	var figs []Figure
	for _, pert := range r.Perturbations {
		curves := model.StabilityCurves(r, pert)
		if len(curves) == 0 {
			continue
		}
		f, err := stabilityFigure(id, r, pert, curves)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pert, err)
		}
		figs = append(figs, f)
	}
	return figs, nil
}

func stabilityFigure(id string, r *leaderboard.StabilityResult, pert string, curves []*leaderboard.StabilityCurve) (Figure, error) {
	return FigureOf(model.StabilitySpec(r, pert, curves), model.StabilityFigureID(id, pert), model.StabilityTitle(pert), model.StabilityChartHeight)
}

func reverseXYs(x plotter.XYs) plotter.XYs {
	out := make(plotter.XYs, len(x))
	for i, p := range x {
		out[len(x)-1-i] = p
	}
	return out
}
