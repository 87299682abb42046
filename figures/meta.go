package figures

// The forest plot of a meta-analysis (Sertkan et al. 2023, Figs. 1–5),
// laid out as metafor's forest() lays it out: aligned text columns of
// dataset and n on the left, effect [CI] and weight on the right, the
// graphical column between them, subgroup blocks with their own diamonds,
// the overall diamond with its prediction interval, and which side of
// zero favours which method (from the metric's direction).

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/meta"
)

// forestLine is one line of the forest plot's table.
type forestLine struct {
	label, n, effect, weight string
	bold, summary            bool
	row                      *ForestRow
	tooltip                  string
}

// forestMaxRows is the most datasets a forest plot draws.
const forestMaxRows = 100

// forestKeep returns which rows a forest plot of at most max datasets
// draws: the included ones with the largest weights (earlier rows first
// among equal weights); nil when every row fits.
func forestKeep(rows []meta.Row, max int) map[int]bool {
	if len(rows) <= max {
		return nil
	}
	idx := make([]int, 0, len(rows))
	for i, row := range rows {
		if row.Included && !math.IsNaN(row.Weight) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return rows[idx[a]].Weight > rows[idx[b]].Weight })
	keep := map[int]bool{}
	for _, i := range idx[:min(max, len(idx))] {
		keep[i] = true
	}
	return keep
}

// Meta draws the forest plot of a meta-analysis and, when the result
// has a sensitivity analysis, its funnel plot.
func Meta(id, title string, r *meta.Result) ([]Figure, error) {
	if len(r.Rows) == 0 || r.Summary.Effect == nil {
		return nil, nil
	}
	r = metaLabelled(r)
	b := newForestBuilder(r)
	model := forestModel(r)
	b.blocks()
	b.summary(model, r.Summary, color.Black, b.pct(1)) // "100.0%", as the table
	lines := b.lines
	nl := len(lines)
	var rows []ForestRow
	for i := range lines {
		if lines[i].row != nil {
			lines[i].row.Y = float64(nl - i)
			rows = append(rows, *lines[i].row)
		}
	}

	spec := forestSpec(r, lines, b.lvl, forestCaption(r, model, b.lvl, b.keep))
	static := func() (Drawing, error) { return forestDrawing(r, lines, rows, b.lvl), nil }
	f, err := FigureDrawn(spec, static, id, title, 80+26*nl)
	if err != nil {
		return nil, err
	}
	f.PreferStatic = true
	figs := []Figure{f}
	funnel, ok, err := MetaFunnel(id, title, r)
	if err != nil {
		return nil, err
	}
	if ok {
		figs = append(figs, funnel)
	}
	if contour, ok, err := MetaFunnelContour(id, title, r); err != nil {
		return nil, err
	} else if ok {
		figs = append(figs, contour)
	}
	if bub, ok, err := MetaBubble(id, title, r); err != nil {
		return nil, err
	} else if ok {
		figs = append(figs, bub)
	}
	if cum, ok, err := MetaCumulative(id, title, r); err != nil {
		return nil, err
	} else if ok {
		figs = append(figs, cum)
	}
	return figs, nil
}

// metaLabelled is a copy of r whose methods, metric and datasets are
// named by their labels (r.Naming), for the words of its figures; the
// copy shares r's numbers.
func metaLabelled(r *meta.Result) *meta.Result {
	l := *r
	n := r.Naming
	l.Treatment, l.Control = n.Method(r.Treatment), n.Method(r.Control)
	if r.Metric != "" {
		l.Metric = n.Metric(r.Metric)
	}
	l.Rows = append([]meta.Row(nil), r.Rows...)
	for i := range l.Rows {
		l.Rows[i].Dataset = n.Dataset(r.Rows[i].Dataset)
	}
	l.Influence = append([]meta.Influence(nil), r.Influence...)
	for i := range l.Influence {
		l.Influence[i].Dataset = n.Dataset(r.Influence[i].Dataset)
	}
	return &l
}

// forestBuilder collects the lines of a forest plot's table.
type forestBuilder struct {
	r     *meta.Result
	dec   int
	lvl   string
	lines []forestLine
	// keep is which datasets are drawn (nil: all); omitted counts those
	// left out since the last "… more" line.
	keep    map[int]bool
	omitted int
}

// newForestBuilder starts the table of r's forest plot. A forest plot of
// thousands of rows is unreadable and heavy: beyond forestMaxRows
// datasets only those with the largest weights are drawn, in their order,
// and a line says how many more the table holds.
func newForestBuilder(r *meta.Result) *forestBuilder {
	return &forestBuilder{
		r:    r,
		dec:  r.Decimals(),
		lvl:  strconv.FormatFloat(100*(1-r.Alpha), 'f', -1, 64),
		keep: forestKeep(r.Rows, forestMaxRows),
	}
}

// f formats an effect.
func (b *forestBuilder) f(x float64) string { return fmtSigned(x, b.dec) }

// ci formats an effect with its interval.
func (b *forestBuilder) ci(e, lo, hi float64) string {
	return fmt.Sprintf("%s [%s, %s]", b.f(e), b.f(lo), b.f(hi))
}

// pct formats a weight as a percentage ("" for NaN).
func (b *forestBuilder) pct(w float64) string {
	if math.IsNaN(w) {
		return ""
	}
	return strconv.FormatFloat(100*w, 'f', analyses.PercentDecimals, 64) + "%"
}

// nText is the n column: empty for effects given without sample sizes.
func (b *forestBuilder) nText(n int) string {
	if b.r.Form == meta.Generic && n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// study adds one dataset's line.
func (b *forestBuilder) study(row meta.Row) {
	l := forestLine{label: row.Dataset, n: b.nText(row.N)}
	if !row.Included {
		l.effect = "left out"
		l.tooltip = row.Dataset + ": left out (" + row.Reason + ")"
		b.lines = append(b.lines, l)
		return
	}
	l.effect, l.weight = b.ci(row.Effect, row.CILow, row.CIHigh), b.pct(row.Weight)
	l.row = &ForestRow{Effect: row.Effect, Low: row.CILow, High: row.CIHigh, Weight: row.Weight, Colour: Colour(4)}
	l.tooltip = fmt.Sprintf("%s (n = %d): %s, weight %s, %s", row.Dataset, row.N, l.effect, l.weight, pClause(row.P))
	if b.r.Form == meta.Generic && row.N == 0 {
		l.tooltip = fmt.Sprintf("%s: %s, weight %s, %s", row.Dataset, l.effect, l.weight, pClause(row.P))
	}
	b.lines = append(b.lines, l)
}

// summary adds a summary's line (a diamond).
func (b *forestBuilder) summary(label string, s meta.Summary, colour color.Color, weight string) {
	if s.Effect == nil {
		b.lines = append(b.lines, forestLine{label: label, effect: "no defined effect", summary: true})
		return
	}
	lo, hi := val(s.CILow), val(s.CIHigh)
	l := forestLine{label: label, n: b.nText(s.N), bold: true, summary: true, weight: weight}
	if s.CILow == nil || s.CIHigh == nil {
		// Knapp–Hartung with one dataset: no interval (t on 0 df);
		// the diamond shrinks to the effect.
		l.effect = b.f(*s.Effect) + " [no interval]"
		lo, hi = *s.Effect, *s.Effect
	} else {
		l.effect = b.ci(*s.Effect, lo, hi)
	}
	l.row = &ForestRow{Summary: true, Effect: *s.Effect, Low: lo, High: hi, PILow: val(s.PILow), PIHigh: val(s.PIHigh), Colour: colour}
	l.tooltip = fmt.Sprintf("%s (k = %d, n = %d): %s, %s", label, s.K, s.N, l.effect, pClause(val(s.P)))
	if s.Tau2 != nil && s.I2 != nil {
		l.tooltip += "; τ² = " + b.r.HetText("tau2", *s.Tau2) + ", I² = " + b.r.HetText("I2", *s.I2) + "%"
	}
	if s.PILow != nil && b.r.Model == "random" {
		l.tooltip += fmt.Sprintf("; %s%% prediction interval [%s, %s]", b.lvl, b.f(*s.PILow), b.f(*s.PIHigh))
	}
	b.lines = append(b.lines, l)
}

// block adds dataset i's line, or counts it as omitted.
func (b *forestBuilder) block(row meta.Row, i int) {
	if b.keep != nil && !b.keep[i] {
		b.omitted++
		return
	}
	b.study(row)
}

// more adds the "… more datasets" line after omitted ones.
func (b *forestBuilder) more() {
	if b.omitted > 0 {
		b.lines = append(b.lines, forestLine{label: fmt.Sprintf("… %d more datasets (smaller weights; all are in the table)", b.omitted)})
		b.omitted = 0
	}
}

// blocks adds the datasets' lines: all of them, or subgroup by subgroup
// each with its summary.
func (b *forestBuilder) blocks() {
	r := b.r
	if r.Subgroup == "" {
		for i, row := range r.Rows {
			b.block(row, i)
		}
		b.more()
		b.lines = append(b.lines, forestLine{})
		return
	}
	for _, g := range r.SubgroupOrder {
		b.lines = append(b.lines, forestLine{label: g, bold: true})
		for i, row := range r.Rows {
			if row.Group == g {
				b.block(row, i)
			}
		}
		b.more()
		b.summary("Summary of "+g, r.Subgroups[g], Colour(1), "")
		b.lines = append(b.lines, forestLine{})
	}
}

// forestModel names the model of the overall summary.
func forestModel(r *meta.Result) string {
	model := "Random-effects model (" + r.Tau2Method + ")"
	if r.Model == "fixed" {
		model = "Fixed-effect model"
	}
	if r.Tau2Fixed != nil && r.Model == "random" {
		model = fmt.Sprintf("Random-effects model (τ² fixed at %g)", *r.Tau2Fixed)
	}
	switch r.Test {
	case "knha":
		model += ", Knapp–Hartung"
	case "t":
		model += ", t test"
	}
	return model
}

// forestCaption is the forest plot's caption.
func forestCaption(r *meta.Result, model, lvl string, keep map[int]bool) string {
	caption := fmt.Sprintf("Forest plot: %s of %s, %s (treatment) − %s (control), per dataset with %s%% confidence intervals; squares grow with the weight in the %s. The diamond spans the summary's confidence interval",
		r.EffectLabel(), metricName(r), r.Treatment, r.Control, lvl, lowerFirst(model))
	if r.Model == "random" && r.Summary.PILow != nil {
		caption += ", the dashed line its prediction interval"
	}
	caption += "; the dotted line marks no effect."
	if keep != nil {
		caption += fmt.Sprintf(" Of the %d datasets, the %d with the largest weights are drawn; every dataset is in the table.", len(r.Rows), len(keep))
	}
	switch {
	case r.Subgroup != "" && r.QBetween != nil && r.DFBetween2 > 0:
		caption += fmt.Sprintf(" Subgroups by %s, one model with a common τ²; test of subgroup differences F = %s, df = (%d, %d), %s.", r.Subgroup, analyses.ValueText(*r.QBetween), r.DFBetween, r.DFBetween2, pClause(val(r.PBetween)))
	case r.Subgroup != "" && r.QBetween != nil:
		common := ""
		if r.Within != nil {
			common = ", one model with a common τ²"
		}
		caption += fmt.Sprintf(" Subgroups by %s%s; test of subgroup differences Q = %s, df = %d, %s.", r.Subgroup, common, analyses.ValueText(*r.QBetween), r.DFBetween, pClause(val(r.PBetween)))
	}
	switch r.Test {
	case "knha":
		caption += " Intervals of the summaries use the Knapp–Hartung adjustment (t distribution)."
	case "t":
		caption += " Intervals of the summaries use the t distribution on k − 1 degrees of freedom (test = \"t\")."
	}
	return caption
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]|0x20) + s[1:]
}

func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// pClause is a p-value in a caption or tooltip, as the tables and the
// findings write it ("p = 0.0373", "p = 9.7e-39"), or "p undefined".
func pClause(p float64) string {
	if math.IsNaN(p) {
		return "p undefined"
	}
	return analyses.PClause(p)
}

// fmtSigned formats x with dec decimals, as the tables do
// (analyses.FixedText: a non-zero that rounds to zero in e-notation), and
// a true minus sign.
func fmtSigned(x float64, dec int) string {
	s := analyses.FixedText(x, dec)
	if s[0] == '-' {
		return "−" + s[1:]
	}
	return s
}

// favours returns the labels left and right of zero: effects are
// x_T − x_C, so for a higher-is-better metric the right favours the
// treatment, for a lower-is-better one the left.
func favours(r *meta.Result) (left, right string) {
	if r.FavoursTreatmentRight() {
		return "favours " + r.Control, "favours " + r.Treatment
	}
	return "favours " + r.Treatment, "favours " + r.Control
}

// forestDrawing is the forest plot's drawing: the text columns around
// the plot of the intervals. At its natural width (9.5 in) the columns
// are 2.7 in and 2.5 in wide, or as wide as their text when that is
// wider; laid out at another width they are as wide as their text, and
// the plot takes the rest, never less than its tick and "favours" labels
// need. The height is the rows' (17 pt each) at any width.
func forestDrawing(r *meta.Result, lines []forestLine, rows []ForestRow, lvl string) Drawing {
	return forestDrawingHeads(r, lines, rows, lvl, forestHeads(lvl))
}

// forestHeads are the column heads of a forest plot's table: name, n,
// effect with its interval, weight.
func forestHeads(lvl string) [4]string {
	return [4]string{"Dataset", "n", "Effect [" + lvl + "% CI]", "Weight"}
}

// forestDrawingHeads is forestDrawing with the given column heads. A
// column no line has text in (n of generic effects, which give no sample
// size) has no head either.
func forestDrawingHeads(r *meta.Result, lines []forestLine, rows []ForestRow, lvl string, heads [4]string) Drawing {
	if !slices.ContainsFunc(lines, func(l forestLine) bool { return l.n != "" }) {
		heads[1] = ""
	}
	nl := len(lines)
	rowH := vg.Points(17)
	w := 9.5 * vg.Inch
	h := rowH*vg.Length(nl+2) + vg.Points(58)

	p := plot.New()
	p.X.Label.Text = effectAxis(r)
	p.X.Label.TextStyle.Font = Font(9)
	p.X.Tick.Label.Font = Font(8)
	p.X.Tick.Marker = RoundTicks{}
	p.HideY()
	p.Y.Padding = 0
	fp := NewForest(rows)
	p.Add(fp)
	p.Y.Min, p.Y.Max = 0.2, float64(nl)+1.6 // room for the header and the favours labels
	p.X.Min, p.X.Max, _, _ = fp.DataRange()

	fl := forestLayout{r: r, p: p, lines: lines, lvl: lvl, natural: w, heads: heads}
	fl.leftText, fl.rightText = fl.columns()
	w += max(fl.leftText-forestLeftW, 0) + max(fl.rightText-forestRightW, 0)
	fl.natural = w
	return Drawing{Width: w, Height: h, Draw: fl.draw,
		dataAreas: func(dc draw.Canvas) []vg.Rectangle {
			l, rt := fl.widths(dc.Size().X)
			return []vg.Rectangle{fl.plotAt(dc.Size().X).DataCanvas(draw.Crop(dc, l, -rt, 0, 0)).Rectangle}
		},
		minSize: func(vg.Length) (vg.Length, vg.Length) { return fl.minSize(h) }}
}

// forestLeftW and forestRightW are the text columns' widths at the forest
// plot's natural width.
const (
	forestLeftW  = 2.7 * vg.Inch
	forestRightW = 2.5 * vg.Inch
	forestPad    = vg.Length(8)
	forestGap    = vg.Length(12)
)

// forestLayout is what a forest plot's drawing needs to lay itself out
// at any width.
type forestLayout struct {
	r                   *meta.Result
	p                   *plot.Plot
	lines               []forestLine
	lvl                 string
	heads               [4]string // column heads: name, n, effect, weight
	natural             vg.Length
	leftText, rightText vg.Length // the text columns' least widths
}

func forestStyle(size float64, bold bool, xa draw.XAlignment) draw.TextStyle {
	fnt := Font(size)
	if bold {
		fnt.Weight = xfont.WeightBold
	}
	return draw.TextStyle{Color: color.Black, Font: fnt, Handler: plot.DefaultTextHandler, XAlign: xa, YAlign: draw.YCenter}
}

// columns returns the least widths of the left (dataset, n) and right
// (effect, weight) text columns: their widest texts, padded.
func (fl forestLayout) columns() (left, right vg.Length) {
	hs := forestStyle(9, true, draw.XLeft)
	name, n := hs.Width(fl.heads[0]), hs.Width(fl.heads[1])
	eff, wt := hs.Width(fl.heads[2]), hs.Width(fl.heads[3])
	for _, l := range fl.lines {
		st := forestStyle(9, l.bold, draw.XLeft)
		name, n = max(name, st.Width(l.label)), max(n, st.Width(l.n))
		eff, wt = max(eff, st.Width(l.effect)), max(wt, st.Width(l.weight))
	}
	return forestPad + name + forestGap + n + forestPad, forestPad + vg.Points(6) + eff + forestGap + wt + forestPad
}

// widths returns the text columns' widths on a canvas w wide: below
// the natural width as wide as their text and the "favours" labels
// (which stand below the rows, beside zero, and may reach over a
// column).
func (fl forestLayout) widths(w vg.Length) (left, right vg.Length) {
	if w >= fl.natural {
		return max(forestLeftW, fl.leftText), max(forestRightW, fl.rightText)
	}
	lf, rt := favours(fl.r)
	st := forestStyle(8, false, draw.XLeft)
	return max(fl.leftText, st.Width("← "+lf)+vg.Points(4)+forestPad), max(fl.rightText, st.Width(rt+" →")+vg.Points(4)+forestPad)
}

// minSize is the least size of a forest plot laid out again: its text
// columns, an interval plot of 1.5 in or as wide as its tick labels
// need, and its effect axis's label inside the canvas; its rows' height.
func (fl forestLayout) minSize(h vg.Length) (vg.Length, vg.Length) {
	l, r := fl.widths(0)
	w := l + r + max(1.5*vg.Inch, tickSpan(fl.p.X, false)+vg.Points(10))
	return max(w, labelWidth(fl.p.X)+2*forestPad), h
}

// plotAt returns the plot to draw on a canvas w wide: below the natural
// width a copy whose effect axis's label is a blank of the same height,
// the label being drawn by draw under the plot and the columns (where
// it may be wider than the plot), as gonum/plot would narrow the plot
// to the label's width.
func (fl forestLayout) plotAt(w vg.Length) *plot.Plot {
	if w >= fl.natural {
		return fl.p
	}
	q := *fl.p
	q.X.Label.Text = " "
	return &q
}

// drawAxisLabel draws the effect axis's label where gonum/plot draws it
// (centred under the plot pc, its descent above pc's bottom), moved
// inwards as little as keeps it inside dc.
func (fl forestLayout) drawAxisLabel(dc, pc draw.Canvas) {
	sty := fl.p.X.Label.TextStyle
	lw := sty.Width(fl.p.X.Label.Text)
	x := pc.Center().X
	x = max(x, dc.Min.X+forestPad+lw/2)
	x = min(x, dc.Max.X-forestPad-lw/2)
	dc.FillText(sty, vg.Point{X: x, Y: pc.Min.Y + sty.FontExtents().Descent}, fl.p.X.Label.Text)
}

// draw draws the plot between the text columns of the forest plot's
// lines.
func (fl forestLayout) draw(dc draw.Canvas) {
	leftW, rightW := fl.widths(dc.Size().X)
	nl := len(fl.lines)
	pc := draw.Crop(dc, leftW, -rightW, 0, 0)
	p := fl.plotAt(dc.Size().X)
	p.Draw(pc)
	if p != fl.p {
		fl.drawAxisLabel(dc, pc)
	}
	da := p.DataCanvas(pc)
	tx, ty := p.Transforms(&da)

	xName := dc.Min.X + forestPad
	xN := dc.Min.X + leftW - forestPad
	xEff := da.Max.X + forestPad + vg.Points(6)
	xW := dc.Max.X - forestPad
	head := ty(float64(nl) + 1)
	hs := forestStyle(9, true, draw.XLeft)
	dc.FillText(hs, vg.Point{X: xName, Y: head}, fl.heads[0])
	hs.XAlign = draw.XRight
	dc.FillText(hs, vg.Point{X: xN, Y: head}, fl.heads[1])
	dc.FillText(hs, vg.Point{X: xW, Y: head}, fl.heads[3])
	hs.XAlign = draw.XLeft
	dc.FillText(hs, vg.Point{X: xEff, Y: head}, fl.heads[2])
	for i, l := range fl.lines {
		y := ty(float64(nl - i))
		dc.FillText(forestStyle(9, l.bold, draw.XLeft), vg.Point{X: xName, Y: y}, l.label)
		dc.FillText(forestStyle(9, l.bold, draw.XRight), vg.Point{X: xN, Y: y}, l.n)
		dc.FillText(forestStyle(9, l.bold, draw.XLeft), vg.Point{X: xEff, Y: y}, l.effect)
		dc.FillText(forestStyle(9, l.bold, draw.XRight), vg.Point{X: xW, Y: y}, l.weight)
	}
	lf, rt := favours(fl.r)
	fy := ty(0.35)
	x0 := tx(0)
	dc.FillText(forestStyle(8, false, draw.XRight), vg.Point{X: x0 - vg.Points(4), Y: fy}, "← "+lf)
	dc.FillText(forestStyle(8, false, draw.XLeft), vg.Point{X: x0 + vg.Points(4), Y: fy}, rt+" →")
}

// forestSpec is the forest plot's spec: its lines top to bottom on a
// category axis, each dataset's interval and square (growing with its
// weight), each summary's interval and diamond with its prediction
// interval dashed, and the dotted line of no effect. The static drawing
// (forestDrawing) adds the text columns the panels cannot hold.
func forestSpec(r *meta.Result, lines []forestLine, lvl, caption string) *Spec {
	black := color.NRGBA{0, 0, 0, 0xFF}
	labels := make([]string, len(lines))
	ci := Mark{Kind: MarkLine, Series: lvl + "% CI", Style: Style{Colour: black, Dash: Solid}, Size: 0.9}
	pi := Mark{Kind: MarkLine, Series: "prediction interval", Style: Style{Colour: black, Dash: Dashed}, Size: 0.9}
	squares := Mark{Kind: MarkPoints, Series: "datasets", Style: Style{Colour: Palette[4], Symbol: Square}}
	overall := Mark{Kind: MarkPoints, Series: "summary", Style: Style{Colour: black, Symbol: Diamond}, Size: 5}
	overallCI := Mark{Kind: MarkLine, Series: "summary", Style: Style{Colour: black, Dash: Solid, Symbol: Diamond}, Size: 2}
	groups := Mark{Kind: MarkPoints, Series: "subgroup summaries", Style: Style{Colour: Palette[1], Symbol: Diamond}, Size: 5}
	groupsCI := Mark{Kind: MarkLine, Series: "subgroup summaries", Style: Style{Colour: Palette[1], Dash: Solid, Symbol: Diamond}, Size: 2}
	seg := func(m *Mark, lo, hi, y float64) {
		m.X = append(m.X, lo, hi, math.NaN())
		m.Y = append(m.Y, y, y, math.NaN())
	}
	maxW := 0.0
	for _, l := range lines {
		if l.row != nil && !l.summary {
			maxW = math.Max(maxW, l.row.Weight)
		}
	}
	for i, l := range lines {
		labels[i] = l.label
		if l.label == "" {
			labels[i] = fmt.Sprintf("%*s", i+1, "") // distinct blank categories
		}
		if l.row == nil || !finite(l.row.Effect) {
			continue
		}
		rw, y := l.row, float64(i)
		if l.summary {
			pts, bar := &overall, &overallCI
			if rw.Colour != color.Black {
				pts, bar = &groups, &groupsCI
			}
			seg(bar, rw.Low, rw.High, y)
			pts.X, pts.Y, pts.Names = append(pts.X, rw.Effect), append(pts.Y, y), append(pts.Names, l.tooltip)
			if finite(rw.PILow) && finite(rw.PIHigh) {
				seg(&pi, rw.PILow, rw.PIHigh, y)
			}
			continue
		}
		seg(&ci, rw.Low, rw.High, y)
		side := 3.0
		if maxW > 0 && rw.Weight > 0 {
			side = math.Max(3, 11*math.Sqrt(rw.Weight/maxW))
		}
		squares.X, squares.Y, squares.Names = append(squares.X, rw.Effect), append(squares.Y, y), append(squares.Names, l.tooltip)
		squares.Sizes = append(squares.Sizes, side/2)
	}
	xlo, xhi := niceRange(forestXRange(lines))
	pn := Panel{X: NewAxis(effectAxis(r)).Fixed(xlo, xhi), Y: Axis{Min: Auto, Max: Auto, Categories: labels, Inverse: true}}
	pn.Marks = append(pn.Marks, Mark{Kind: MarkRefLine, Series: "no effect", Style: noEffectStyle,
		X: []float64{0, 0}, Y: []float64{-0.5, float64(len(lines)) - 0.5}, Size: 0.8})
	for _, m := range []Mark{ci, pi, overallCI, groupsCI, squares, overall, groups} {
		if len(m.X) > 0 {
			pn.Marks = append(pn.Marks, m)
		}
	}
	return &Spec{Panels: []Panel{pn}, Caption: caption,
		Subject: fmt.Sprintf("forest plot of %s over %d datasets", r.EffectLabel(), len(r.Rows))}
}

// metricName names the metric, or the outcome when the effects come from
// a summary file without a metric.
func metricName(r *meta.Result) string {
	if r.Metric == "" {
		return "the outcome"
	}
	return r.Metric
}

// forestXRange spans every interval drawn and zero.
func forestXRange(lines []forestLine) (lo, hi float64) {
	for _, l := range lines {
		if l.row == nil {
			continue
		}
		for _, x := range []float64{l.row.Low, l.row.High, l.row.PILow, l.row.PIHigh} {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
	}
	return lo, hi
}

// niceRange widens [lo, hi] outwards to multiples of a round step, so the
// interactive axis shows every interval whole with readable ticks.
func niceRange(lo, hi float64) (float64, float64) {
	if !(hi > lo) {
		return lo - 1, hi + 1
	}
	step := math.Pow(10, math.Floor(math.Log10((hi-lo)/5)))
	return math.Floor(lo/step) * step, math.Ceil(hi/step) * step
}

// effectAxis labels the effect axis: what the effect is, of which metric,
// and which way round.
// noEffectStyle draws the line of no effect, in the forest plot and the
// funnel alike (one name, one style: the browser tests hold every chart
// of a site to it).
var noEffectStyle = Style{Colour: color.NRGBA{0x55, 0x55, 0x55, 0xFF}, Dash: Dotted}

func effectAxis(r *meta.Result) string {
	if r.Measure != "" {
		// an escalc measure compares the groups in its own way (a log
		// odds ratio is not a difference): "vs", and the metric only when
		// the study names one
		of := ""
		if r.Metric != "" {
			of = " of " + metricName(r)
		}
		return fmt.Sprintf("%s%s (%s vs %s)", r.EffectLabel(), of, r.Treatment, r.Control)
	}
	if r.Effect == "rom" {
		return fmt.Sprintf("%s of %s (log of %s / %s)", r.EffectLabel(), metricName(r), r.Treatment, r.Control)
	}
	return fmt.Sprintf("%s of %s (%s − %s)", r.EffectLabel(), metricName(r), r.Treatment, r.Control)
}
