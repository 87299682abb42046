package figures

// The figure of a critical_difference analysis (SPEC §5.2): the CD
// diagram of seed 001 Fig. 4 as SVG (CDDiagram) and as an ECharts option
// with the same geometry in rank units, so hovering a method shows its
// mean rank and hovering a bar names the group.

import (
	"fmt"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/significance"
)

// CriticalDifference draws the CD diagram of r.
func CriticalDifference(id, title string, r *significance.CriticalDifferenceResult) ([]Figure, error) {
	pos := map[string]int{}
	for i, m := range r.Methods {
		pos[m] = i
	}
	runs := func(cl [][]string) [][2]int {
		out := make([][2]int, 0, len(cl))
		for _, c := range cl {
			out = append(out, [2]int{pos[c[0]], pos[c[len(c)-1]]})
		}
		return out
	}
	cliques, dashed := runs(r.Cliques), runs(r.BayesianCliques)
	d := NewCDDiagram(labelled(r.Methods, r.Naming.Method), r.MeanRanks, r.CriticalDifference, cliques, dashed)
	d.CDLabel = fmt.Sprintf("CD = %.3f (Nemenyi, α = %g)", r.CriticalDifference, r.Alpha)
	plt := NewPlot("", "", "")
	plt.HideAxes()
	plt.Add(d)
	h := d.Height()
	drw := PlotDrawing(plt, 7.5*vg.Inch, h)
	drw.minSize = func(vg.Length) (vg.Length, vg.Length) { return d.MinWidth(), h }
	svg, err := drw.SVG()
	if err != nil {
		return nil, err
	}
	chart, err := ChartJSON(cdChart(r, cliques, dashed))
	if err != nil {
		return nil, err
	}
	caption := fmt.Sprintf("Critical-difference diagram of %s over %d datasets: mean rank of each method (1 = best). "+
		"Thick bars join methods whose pairwise Wilcoxon signed-rank tests (zero_method %s, Holm-corrected at α = %g) are not significant",
		r.Naming.Metric(r.Metric), len(r.Datasets), r.ZeroMethod, r.Alpha)
	if r.Bayesian {
		caption += fmt.Sprintf("; dashed bars join methods the Bayesian signed-rank test (rope %g) cannot tell apart with probability %g", r.Rope, 1-r.Alpha)
	}
	caption += fmt.Sprintf(". The bar above the axis is the Nemenyi critical difference (%.3f).", r.CriticalDifference)
	return []Figure{{ID: id, Title: "Critical-difference diagram", Caption: caption, SVG: svg, Drawing: &drw, Chart: chart,
		Height: int(h.Points()*1.3) + 40}}, nil
}

// cdChart lays the diagram out in rank units: x is the mean rank (the
// axis on top), y grows downwards.
func cdChart(r *significance.CriticalDifferenceResult, cliques, dashed [][2]int) map[string]any {
	k := len(r.Methods)
	methods := labelled(r.Methods, r.Naming.Method)
	left := (k + 1) / 2
	hi := float64(max(2, k))
	line := func(name string, coords [][2]float64, width float64, colour, style string) map[string]any {
		c := make([]any, len(coords))
		for i, p := range coords {
			c[i] = []any{p[0], p[1]}
		}
		return map[string]any{"name": name, "coords": c, "lineStyle": map[string]any{"width": width, "color": colour, "type": style}}
	}
	var lines []any
	y := 0.6
	for _, cl := range cliques {
		names := strings.Join(methods[cl[0]:cl[1]+1], ", ")
		lines = append(lines, line("not significantly different (Wilcoxon–Holm): "+names,
			[][2]float64{{r.MeanRanks[cl[0]] - 0.03, y}, {r.MeanRanks[cl[1]] + 0.03, y}}, 5, "#000000", "solid"))
		y += 0.3
	}
	for _, cl := range dashed {
		names := strings.Join(methods[cl[0]:cl[1]+1], ", ")
		lines = append(lines, line("not distinguishable (Bayesian signed-rank): "+names,
			[][2]float64{{r.MeanRanks[cl[0]] - 0.03, y}, {r.MeanRanks[cl[1]] + 0.03, y}}, 3, "#777777", "dashed"))
		y += 0.3
	}
	y += 0.5
	var labels []any
	for i := 0; i < k; i++ {
		row := i
		edge := 1 - 0.05*hi
		pos := "left"
		if i >= left {
			row = k - 1 - i
			edge = hi + 0.05*hi
			pos = "right"
		}
		yy := y + float64(row)*0.8
		name := fmt.Sprintf("%s: mean rank %.3f", methods[i], r.MeanRanks[i])
		lines = append(lines, line(name, [][2]float64{{r.MeanRanks[i], 0}, {r.MeanRanks[i], yy}, {edge, yy}}, 1, "#000000", "solid"))
		labels = append(labels, map[string]any{"name": name, "value": []any{edge, yy},
			"label": map[string]any{"show": true, "position": pos, "formatter": fmt.Sprintf("%s (%.2f)", methods[i], r.MeanRanks[i])}})
	}
	rows := max(left, k-left)
	ymax := y + float64(rows)*0.8
	series := []any{
		map[string]any{"type": "lines", "coordinateSystem": "cartesian2d", "polyline": true, "data": lines,
			"tooltip": map[string]any{"formatter": "{b}"}},
		map[string]any{"type": "scatter", "data": labels, "symbolSize": 4, "itemStyle": map[string]any{"color": "#000000"},
			"tooltip": map[string]any{"formatter": "{b}"}},
	}
	if cd := r.CriticalDifference; cd > 0 && analyses.Finite(cd) {
		series = append(series, map[string]any{"type": "lines", "coordinateSystem": "cartesian2d", "polyline": true,
			"data":    []any{line(fmt.Sprintf("Nemenyi critical difference %.3f (α = %g)", cd, r.Alpha), [][2]float64{{1, -0.6}, {1 + cd, -0.6}}, 4, "#D55E00", "solid")},
			"tooltip": map[string]any{"formatter": "{b}"}})
		// the bar's label, as the static diagram writes it
		series = append(series, map[string]any{"type": "scatter", "symbolSize": 0, "silent": true,
			"data": []any{map[string]any{"name": "critical difference", "value": []any{1 + cd/2, -0.6},
				"label": map[string]any{"show": true, "position": "top", "distance": 4, "formatter": fmt.Sprintf("CD = %.3f (Nemenyi, α = %g)", cd, r.Alpha)}}}})
	}
	return map[string]any{
		"animation": false,
		"tooltip":   map[string]any{"show": true, "trigger": "item"},
		// room for the names beside the axis at any width (a phone's 22%
		// is 80 px, too little for "Most popular (9.53)")
		"grid": map[string]any{"left": 125, "right": 125, "top": 40, "bottom": 10},
		"xAxis": map[string]any{"type": "value", "position": "top", "min": 0, "max": hi + 1, "interval": 1,
			"name": "mean rank", "splitLine": map[string]any{"show": false},
			"axisLabel": map[string]any{"showMinLabel": false, "showMaxLabel": false}},
		"yAxis":  map[string]any{"type": "value", "inverse": true, "show": false, "min": -1.5, "max": ymax + 0.3},
		"series": series,
	}
}
