package figures

// The figure of a critical_difference analysis: the CD diagram of
// Demšar (2006) as Shevchenko et al. (2024, Fig. 4) draw it, static
// (CDDiagram) and interactive from one spec (model.CDSpec) with the same
// geometry in rank units.

import (
	"gonum.org/v1/plot/vg"

	"github.com/evalbook/evalbook/analyses/significance"
	"github.com/evalbook/evalbook/figures/model"
)

// CriticalDifference draws the CD diagram of r.
func CriticalDifference(id, title string, r *significance.CriticalDifferenceResult) ([]Figure, error) {
	cliques, dashed := model.CDRuns(r)
	d := NewCDDiagram(labelled(r.Methods, r.Naming.Method), r.MeanRanks, r.CriticalDifference, cliques, dashed)
	d.CDLabel = model.CDLabel(r)
	h := d.Height()
	spec := model.CDSpec(r)
	static := func() (Drawing, error) {
		plt := NewPlot("", "", "")
		plt.HideAxes()
		plt.Add(d)
		drw := PlotDrawing(plt, 7.5*vg.Inch, h)
		drw.minSize = func(vg.Length) (vg.Length, vg.Length) { return d.MinWidth(), h }
		return drw, nil
	}
	f, err := FigureDrawn(spec, static, id, "Critical-difference diagram", model.CDChartHeight(len(r.Methods), len(cliques)+len(dashed)))
	if err != nil {
		return nil, err
	}
	// the names on both sides leave a phone's chart no room for the
	// axis: the SVG first (kept at its least width, scrolled sideways
	// under the cue), the chart on request, as the forest plot
	f.PreferStatic = true
	return []Figure{f}, nil
}
