package figures

// The figures of Chia et al. (2023) make their argument visible: Fig. 2 shows why a
// trade-off line is learned from the Pareto front rather than from two
// hand-picked models, Fig. 3 shows how the new score reorders the 2022
// leaderboard as the importance λ grows, and a parallel-coordinates view
// shows what the models of the first front trade against each other.

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/multiobjective"
)

// MultiObjective draws, for each objective, base against objective with
// the Pareto front and its fitted line (id <id>-tradeoff-<objective>); the new
// score against the EvalRS 2022 score at each compared λ (id
// <id>-evalrs2022, when the 2022 score was computed); and the first
// front in parallel coordinates (id <id>-front).
func MultiObjective(id, title string, r *multiobjective.Result) ([]Figure, error) {
	var out []Figure
	for j := range r.Objectives {
		f, err := moTradeOff(id, r, j)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	if r.Scored && len(r.Compare) > 0 {
		f, err := moCompare(id, r)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	f, ok, err := moFront(id, r)
	if err != nil {
		return nil, err
	}
	if ok {
		out = append(out, f)
	}
	return out, nil
}

// moSlug makes a metric name usable in a figure id.
func moSlug(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}

// moTradeOff is Chia et al. (2023) Fig. 2 for one objective.
func moTradeOff(id string, r *multiobjective.Result, j int) (Figure, error) {
	m := r.Objectives[j]
	return FigureOf(MOTradeOffSpec(r, j), id+"-tradeoff-"+moSlug(m), fmt.Sprintf("Trade-off: %s against %s", r.Naming.Metric(r.Base), r.Naming.Metric(m)), 420)
}

// MOTradeOffSpec is the trade-off of objective j: the models, the
// Pareto front and the line fitted to it.
func MOTradeOffSpec(r *multiobjective.Result, j int) *Spec {
	m := r.Objectives[j]
	fit := r.Fits[j]
	onFront := map[int]bool{}
	for _, i := range fit.ParetoRows {
		onFront[i] = true
	}
	base, obj := r.Oriented[r.Base], r.Oriented[m]
	all := Mark{Kind: MarkPoints, Series: "models", Style: Style{Colour: Colour(7), Symbol: Circle}, Size: 2}
	front := Mark{Kind: MarkPoints, Series: "Pareto front", Style: Style{Colour: Colour(5), Symbol: Triangle}, Size: 3}
	for i, model := range r.Models {
		if math.IsNaN(base[i]) || math.IsNaN(obj[i]) || onFront[i] {
			continue
		}
		all.X, all.Y, all.Names = append(all.X, obj[i]), append(all.Y, base[i]), append(all.Names, model)
	}
	rows := append([]int(nil), fit.ParetoRows...)
	sort.SliceStable(rows, func(a, b int) bool { return obj[rows[a]] < obj[rows[b]] })
	for _, i := range rows {
		front.X, front.Y, front.Names = append(front.X, obj[i]), append(front.Y, base[i]), append(front.Names, r.Models[i])
	}
	ml, bl := r.Naming.Metric(m), r.Naming.Metric(r.Base)
	pn := Panel{X: NewAxis(ml + " (higher is better)"), Y: NewAxis(bl + " (higher is better)")}
	if len(all.X) > 0 {
		pn.Marks = append(pn.Marks, all)
	}
	pn.Marks = append(pn.Marks, front)
	highlighted := fmt.Sprintf("the %d distinct Pareto non-dominated models of the pair are highlighted as triangles", len(fit.ParetoRows))
	if len(fit.ParetoRows) == 1 {
		highlighted = "the one Pareto non-dominated model of the pair is highlighted as a triangle"
	}
	caption := fmt.Sprintf("%s against %s for every model (after Chia et al. 2023, Fig. 2); %s", bl, ml, highlighted)
	if fit.Slope != nil && len(front.X) > 0 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, x := range front.X {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		// β to four significant digits, as the caption and the note write it
		pn.Marks = append(pn.Marks, Mark{Kind: MarkLine, Series: "fit β = " + analyses.FormatSig(*fit.Slope, 4), Style: Style{Colour: Colour(4), Dash: Dashed},
			X: []float64{lo, hi}, Y: []float64{*fit.Intercept + *fit.Slope*lo, *fit.Intercept + *fit.Slope*hi}})
		sign := "+"
		if *fit.Intercept < 0 {
			sign = "-"
		}
		caption += fmt.Sprintf(", with the least-squares line fitted to them, dashed (%s = %s·%s %s %s", bl, analyses.FormatSig(*fit.Slope, 4), ml, sign, analyses.FormatSig(math.Abs(*fit.Intercept), 4))
		if fit.R2 != nil {
			var r2s []float64 // the fits table's column, as it prints it
			for _, f := range r.Fits {
				if f.R2 != nil && analyses.Finite(*f.R2) {
					r2s = append(r2s, *f.R2)
				}
			}
			caption += ", R² = " + analyses.ColumnText(*fit.R2, r2s)
		}
		caption += ")"
	}
	caption += ". Both axes are oriented so that higher is better."
	return &Spec{Panels: []Panel{pn}, Legend: LegendRight, Width: 6, Height: 4.2,
		Subject: fmt.Sprintf("scatter of %d models", len(r.Models)), Caption: caption}
}

// moNormalise maps the finite values to [0, 1] by min-max; NaN stays.
func moNormalise(v []float64) []float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		if !math.IsNaN(x) {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	out := make([]float64, len(v))
	for i, x := range v {
		switch {
		case math.IsNaN(x):
			out[i] = math.NaN()
		case hi > lo:
			out[i] = (x - lo) / (hi - lo)
		default:
			out[i] = 0.5
		}
	}
	return out
}

// moCompare is Chia et al. (2023) Fig. 3: the new score (normalised to
// [0, 1]) against the EvalRS 2022 score (normalised over the models
// above the threshold; the penalised models sit at 0), one panel per λ.
func moCompare(id string, r *multiobjective.Result) (Figure, error) {
	return FigureOf(MOCompareSpec(r), id+"-evalrs2022", "New score against the EvalRS 2022 score", 420)
}

// MOCompareSpec is the comparison with the EvalRS 2022 score: a panel
// per λ with the dashed diagonal, the submissions above the threshold as
// points and those below it as crosses.
func MOCompareSpec(r *multiobjective.Result) *Spec {
	var panels []Panel
	for _, p := range moPanels(r) {
		pn := Panel{Title: fmt.Sprintf("λ = %g", p.lambda), X: NewAxis("EvalRS 2022 score (normalised)").Fixed(-0.03, 1.03), Y: NewAxis("new score (normalised)").Fixed(-0.03, 1.03)}
		pn.Marks = append(pn.Marks, Mark{Kind: MarkRefLine, Series: "y = x", Style: Style{Colour: Colour(5), Dash: Dashed}, Size: 1, X: []float64{0, 1}, Y: []float64{0, 1}})
		if len(p.kept.X) > 0 {
			pn.Marks = append(pn.Marks, p.kept)
		}
		if len(p.pen.X) > 0 {
			pn.Marks = append(pn.Marks, p.pen)
		}
		panels = append(panels, pn)
	}
	npen := 0
	for _, p := range r.Penalised {
		if p {
			npen++
		}
	}
	caption := fmt.Sprintf("The new score (Σ Δ_i, the same λ for every objective) against the EvalRS 2022 score, both min-max normalised to [0, 1], for λ = %s, one panel each (after Chia et al. 2023, Fig. 3). Points below the dashed diagonal are ranked higher by the 2022 score than by the new one.", moJoin(r.Compare))
	if npen > 0 {
		caption += fmt.Sprintf(" The %d models below the 2022 threshold (scored %s) are drawn as crosses at 0.", npen, "−100")
	}
	return &Spec{Panels: panels, Legend: LegendBelow, Width: 3.2 * float64(len(panels)), Height: 3.6,
		Subject: fmt.Sprintf("scatter of the new score against the EvalRS 2022 score of %d models", len(r.Models)), Caption: caption}
}

// moPanel is one λ's panel of the comparison with the EvalRS 2022 score.
type moPanel struct {
	lambda    float64
	kept, pen Mark
}

// moPanels normalises the EvalRS 2022 score and each λ's new score and
// pairs them, one panel per λ.
func moPanels(r *multiobjective.Result) []moPanel {
	n := len(r.Models)
	old := make([]float64, n)
	for i := range old {
		old[i] = math.NaN()
		if r.EvalRS2022[i] != nil && !r.Penalised[i] {
			old[i] = *r.EvalRS2022[i]
		}
	}
	oldN := moNormalise(old)
	for i := range oldN {
		if r.Penalised[i] {
			oldN[i] = 0
		}
	}
	var panels []moPanel
	for _, c := range r.Compare {
		s := make([]float64, n)
		for i := range s {
			s[i] = math.NaN()
			if c.Scores[i] != nil {
				s[i] = *c.Scores[i]
			}
		}
		sn := moNormalise(s)
		p := moPanel{lambda: c.Importance,
			kept: Mark{Kind: MarkPoints, Series: "submissions", Style: Style{Colour: Colour(4), Symbol: Circle}, Size: 1.8},
			pen:  Mark{Kind: MarkPoints, Series: "below threshold", Style: Style{Colour: Colour(0), Symbol: Cross}, Size: 2.2}}
		for i := range sn {
			if math.IsNaN(sn[i]) || math.IsNaN(oldN[i]) {
				continue
			}
			m := &p.kept
			if r.Penalised[i] {
				m = &p.pen
			}
			m.X, m.Y, m.Names = append(m.X, oldN[i]), append(m.Y, sn[i]), append(m.Names, r.Models[i])
		}
		panels = append(panels, p)
	}
	return panels
}

// moTiles are the tiles of panels in rows and cols.
func moTiles(rows, cols int) draw.Tiles {
	return draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(8), PadY: vg.Points(4), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
}

// panelGrid lays panels out side by side, in as many columns as fit
// width w at their least size, in rows of those columns.
type panelGrid struct {
	plots  []*plot.Plot
	pw, ph vg.Length // a panel's least size
}

func newPanelGrid(plots []*plot.Plot) panelGrid {
	m := panelGrid{plots: plots}
	for _, p := range plots {
		w, h := plotMinSize(p)
		m.pw, m.ph = max(m.pw, w), max(m.ph, h)
	}
	return m
}

// grid returns the panels in rows on a canvas w wide, and their tiles.
func (m panelGrid) grid(w vg.Length) ([][]*plot.Plot, draw.Tiles) {
	n := len(m.plots)
	t := moTiles(1, n)
	cols := int((w - t.PadLeft - t.PadRight + t.PadX) / (m.pw + t.PadX))
	cols = min(max(cols, 1), n)
	rows := (n + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for c := range grid[r] {
			if k := r*cols + c; k < n {
				grid[r][c] = m.plots[k]
			}
		}
	}
	return grid, moTiles(rows, cols)
}

func (m panelGrid) draw(dc draw.Canvas) {
	grid, t := m.grid(dc.Size().X)
	canvases := plot.Align(grid, t, dc)
	for r, row := range grid {
		for c, p := range row {
			if p != nil {
				p.Draw(canvases[r][c])
			}
		}
	}
}

// dataAreas returns the panels' data areas.
func (m panelGrid) dataAreas(dc draw.Canvas) []vg.Rectangle {
	var out []vg.Rectangle
	grid, t := m.grid(dc.Size().X)
	canvases := plot.Align(grid, t, dc)
	for r, row := range grid {
		for c, p := range row {
			if p != nil {
				out = append(out, p.DataCanvas(canvases[r][c]).Rectangle)
			}
		}
	}
	return out
}

// minSize is one panel's least width, and at width w as many rows of
// panels at their least height as the columns that fit need.
func (m panelGrid) minSize(w vg.Length) (vg.Length, vg.Length) {
	t := moTiles(1, 1)
	grid, _ := m.grid(w)
	rows := vg.Length(len(grid))
	return m.pw + t.PadLeft + t.PadRight, rows*m.ph + (rows-1)*t.PadY + t.PadTop + t.PadBottom
}

func moJoin(c []multiobjective.Compare) string {
	var s []string
	for _, x := range c {
		s = append(s, fmt.Sprintf("%g", x.Importance))
	}
	return strings.Join(s, ", ")
}

// moFront draws the models of the first front in parallel coordinates,
// each metric min-max scaled over all models (higher is better, up).
func moFront(id string, r *multiobjective.Result) (Figure, bool, error) {
	s := MOFrontSpec(r)
	if s == nil {
		return Figure{}, false, nil
	}
	f, err := FigureOf(s, id+"-front", "First Pareto front", 420)
	return f, err == nil, err
}

// MOFrontSpec is the first front in parallel coordinates: a line per
// model over the metrics, each min-max scaled; nil without a front.
func MOFrontSpec(r *multiobjective.Result) *Spec {
	metrics := append([]string{r.Base}, r.Objectives...)
	var rows []int
	for i, f := range r.Front {
		if f == 1 {
			rows = append(rows, i)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	scaled := make([][]float64, len(metrics))
	for k, m := range metrics {
		scaled[k] = moNormalise(r.Oriented[m])
	}
	pn := Panel{X: Axis{Title: "", Min: Auto, Max: Auto, Categories: labelled(metrics, r.Naming.Metric)}, Y: NewAxis("min-max scaled value (0 = worst model, 1 = best)").Fixed(0, 1)}
	styles := StylesOf(r.Naming)
	for _, i := range rows {
		m := Mark{Kind: MarkLine, Series: r.Models[i], NoLegend: true, Style: styles.Method(r.Models[i]), Size: 1, Opacity: 0.7}
		for a := range metrics {
			m.X, m.Y = append(m.X, float64(a)), append(m.Y, scaled[a][i])
		}
		pn.Marks = append(pn.Marks, m)
	}
	return &Spec{Panels: []Panel{pn}, Width: 0.9 * float64(max(6, len(metrics))), Height: 4.4,
		Subject: fmt.Sprintf("parallel coordinates of the %d models of the first Pareto front over %d metrics", len(rows), len(metrics)),
		Caption: fmt.Sprintf("The %d models of the first front of the non-dominated sorting over %s and the %d objectives, in parallel coordinates: each line is a model, each axis a metric min-max scaled over all models (higher is better). No model of this front is beaten on every axis by another model.", len(rows), r.Naming.Metric(r.Base), len(r.Objectives))}
}
