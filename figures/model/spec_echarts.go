package model

// The ECharts backend of a figure spec: one grid per panel (side by
// side), one series per mark in the mark's style, the legend under the
// plot, and axis bounds that are round numbers or not labelled.

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
)

// echartsSymbol is a symbol's ECharts name (a path for the cross and the
// plus, which ECharts lacks).
func echartsSymbol(s Symbol) string {
	switch s {
	case Square:
		return "rect"
	case Triangle:
		return "triangle"
	case Diamond:
		return "diamond"
	case Cross:
		return "path://M2,0L5,3L8,0L10,2L7,5L10,8L8,10L5,7L2,10L0,8L3,5L0,2Z"
	case Plus:
		return "path://M3.5,0H6.5V3.5H10V6.5H6.5V10H3.5V6.5H0V3.5H3.5Z"
	case Ring:
		// a ring with a hole (its two circles wound opposite ways), drawn
		// in the series' colour: ECharts' emptyCircle fills its inside
		// white, which hid the point a ring marks (a cluster's
		// representative) and showed as a white disc on a dark page
		return ringPath
	}
	return "circle"
}

// ringPath is the ring symbol: a circle of radius 10 less one of 7.
const ringPath = "path://M10,0A10,10 0 1,1 10,20A10,10 0 1,1 10,0ZM10,3A7,7 0 1,0 10,17A7,7 0 1,0 10,3Z"

// SymbolOfECharts is the figure spec symbol an ECharts symbol name draws ("" for
// none it knows).
func SymbolOfECharts(name string) Symbol {
	for _, s := range symbolCycle {
		if echartsSymbol(s) == name {
			return s
		}
	}
	return ""
}

// px is a length in points as CSS pixels.
func px(pt float64) float64 { return pt * 4 / 3 }

// EChartsOption is the spec's ECharts option.
func (s *Spec) EChartsOption() map[string]any {
	n := len(s.Panels)
	var grids, xs, ys, titles, series []any
	lineOnly := true
	for i, pn := range s.Panels {
		left, width := float64(i)*100/float64(n), 100/float64(n)
		g := map[string]any{"containLabel": true, "top": 40, "bottom": 50}
		// containLabel keeps the tick labels inside; the y axis's title,
		// nameGap left of its line, needs room of its own
		if n == 1 {
			// text marks beside the data (a CD diagram's names) need
			// room of their own beyond the axes' labels
			left, right := pn.textRoom()
			g["left"], g["right"] = max(44, left), max(30, right)
		} else {
			g["left"] = fmt.Sprintf("%.4g%%", left+4)
			g["width"] = fmt.Sprintf("%.4g%%", width-6)
		}
		if pn.Title != "" {
			g["top"] = 50
			t := map[string]any{"text": pn.Title, "top": 8, "textStyle": map[string]any{"fontSize": 13, "fontWeight": "normal"}}
			if n > 1 {
				t["left"] = fmt.Sprintf("%.4g%%", left+width/2)
				t["textAlign"] = "center"
			} else {
				t["left"] = "center"
			}
			titles = append(titles, t)
		}
		grids = append(grids, g)
		xs = append(xs, echartsAxis(pn.X, i, false))
		ys = append(ys, echartsAxis(pn.Y, i, true))
		var bands []any
		for k, m := range pn.Marks {
			ss := s.echartsSeries(m, i, k)
			if m.Kind != MarkLine && m.Kind != MarkArea && m.Kind != MarkRefLine {
				lineOnly = false
			}
			if m.Kind == MarkArea {
				bands = append(bands, ss...)
			} else {
				series = append(series, ss...)
			}
		}
		// bands after the lines: a legend entry's icon is its first
		// series', the line with its dash and symbol
		series = append(series, bands...)
	}
	opt := map[string]any{
		"color":  paletteHex(),
		"grid":   one(grids),
		"xAxis":  one(xs),
		"yAxis":  one(ys),
		"series": series,
	}
	if len(titles) > 0 {
		opt["title"] = one(titles)
	}
	trigger := "item"
	if lineOnly {
		trigger = "axis"
	}
	opt["tooltip"] = map[string]any{"show": true, "trigger": trigger}
	if l := s.echartsLegend(); l != nil {
		opt["legend"] = l
	}
	if v := s.echartsScale(); v != nil {
		opt["visualMap"] = v
	}
	return opt
}

// echartsRegion marks the series and the legend entry of an opaque
// region: the site's script (themes/static/site.js) keeps their colours
// as they are where it moves other marks' colours to 3:1 contrast with
// the page.
const echartsRegion = "evalbookRegion"

// echartsLegend is the chart's legend under the plot (nil for none).
func (s *Spec) echartsLegend() map[string]any {
	es := s.LegendEntries()
	if len(es) == 0 {
		return nil
	}
	var data []any
	for _, e := range es {
		d := map[string]any{"name": e.Name}
		if len(e.Kinds) == 1 && e.Kinds[0] == MarkPoints {
			d["icon"] = echartsSymbol(e.Style.Symbol)
		}
		if len(e.Kinds) == 1 && e.Kinds[0] == MarkArea && e.Opacity >= 1 {
			// a region's key is a box of its colour with a grey outline,
			// as the static legend draws it (a white one would not show)
			d["icon"], d[echartsRegion] = "rect", true
			d["itemStyle"] = map[string]any{"color": e.Style.Hex(), "borderColor": "#999999", "borderWidth": 1}
		}
		data = append(data, d)
	}
	return map[string]any{"data": data, "bottom": 0}
}

// echartsScale is a heatmap's colour scale (nil for none).
func (s *Spec) echartsScale() map[string]any {
	if s.Scale == nil {
		return nil
	}
	colours := []string{HexOf(s.Scale.Low), HexOf(s.Scale.High)}
	if s.Scale.HasMid {
		colours = []string{HexOf(s.Scale.Low), HexOf(s.Scale.Mid), HexOf(s.Scale.High)}
	}
	if s.Scale.Reverse {
		for i, j := 0, len(colours)-1; i < j; i, j = i+1, j-1 {
			colours[i], colours[j] = colours[j], colours[i]
		}
	}
	// the scale's ends written once, beside the bar (no handles
	// repeating them), under the plot
	return map[string]any{"min": s.Scale.Min, "max": s.Scale.Max, "calculable": false,
		"orient": "horizontal", "left": "center", "bottom": 0, "itemWidth": 12, "itemHeight": 140,
		"text":    []string{strconv.FormatFloat(s.Scale.Max, 'g', 3, 64), strconv.FormatFloat(s.Scale.Min, 'g', 3, 64)},
		"inRange": map[string]any{"color": colours}}
}

// one is a single element itself, else the list.
func one(l []any) any {
	if len(l) == 1 {
		return l[0]
	}
	return l
}

func paletteHex() []string {
	out := make([]string, len(Palette))
	for i := range out {
		out[i] = Hex(i)
	}
	return out
}

// echartsAxis is an axis of grid i.
func echartsAxis(a Axis, grid int, vertical bool) map[string]any {
	ax := map[string]any{"type": "value", "name": a.Title, "nameLocation": "middle", "gridIndex": grid}
	if vertical {
		ax["nameGap"] = 45
	} else {
		ax["nameGap"] = 30
	}
	if len(a.Categories) > 0 {
		ax["type"] = "category"
		ax["data"] = a.Categories
		label := map[string]any{"interval": 0}
		if !vertical && len(a.Categories) > 2 {
			long := false
			for _, c := range a.Categories {
				long = long || len([]rune(c)) > 4
			}
			if long {
				label["rotate"] = 45
				ax["nameGap"] = 80
			}
		}
		ax["axisLabel"] = label
		if a.Inverse {
			ax["inverse"] = true
		}
		if vertical {
			ax["nameGap"] = 110
		}
		return ax
	}
	label := map[string]any{}
	// a bound is labelled only where a tick of the axis's round step
	// falls (ECharts labels a set bound whatever it is: "0.0560505")
	round := IsRound
	if finite(a.Min) && finite(a.Max) && a.Max > a.Min {
		step := NiceStep(a.Max-a.Min, 5)
		round = func(v float64) bool { q := v / step; return math.Abs(q-math.Round(q)) < 1e-6 }
	}
	if finite(a.Min) {
		ax["min"] = a.Min
		if !round(a.Min) {
			label["showMinLabel"] = false
		}
	} else {
		ax["scale"] = true
	}
	if finite(a.Max) {
		ax["max"] = a.Max
		if !round(a.Max) {
			label["showMaxLabel"] = false
		}
	}
	if len(a.Ticks) > 0 {
		// the spec's ticks are the only ones, labelled and marked where
		// the static figure puts them (ECharts' customValues)
		ticks := slices.Clone(a.Ticks)
		label = map[string]any{"customValues": ticks}
		ax["axisTick"] = map[string]any{"customValues": ticks}
	}
	if len(label) > 0 {
		ax["axisLabel"] = label
	}
	if a.Inverse {
		ax["inverse"] = true
	}
	if a.Hidden {
		ax["show"] = false
	}
	if a.Top {
		ax["position"] = "top"
		ax["nameGap"] = 25
	}
	return ax
}

// echartsSeries are mark k of panel i's series.
func (s *Spec) echartsSeries(m Mark, i, k int) []any {
	switch m.Kind {
	case MarkPoints:
		return pointsSeries(m, i)
	case MarkLine, MarkRefLine, MarkInterval:
		return lineSeries(m, i)
	case MarkArea:
		return bandSeries(m, i, k)
	case MarkBars:
		return barSeries(m, i)
	case MarkText:
		return textSeries(m, i)
	case MarkCells:
		return s.cellsSeries(m, i)
	}
	return nil
}

// seriesBase is a series of type typ on grid i, named by the mark's series.
func seriesBase(m Mark, i int, typ string) map[string]any {
	se := map[string]any{"type": typ, "xAxisIndex": i, "yAxisIndex": i}
	if m.Series != "" {
		se["name"] = m.Series
	}
	return se
}

// seriesXY is point j of a mark with y, named when the mark names it.
func seriesXY(m Mark, j int, y float64) any {
	v := []any{jsonFloat(m.X[j]), jsonFloat(y)}
	if m.Names != nil && m.Names[j] != "" {
		return map[string]any{"name": m.Names[j], "value": v}
	}
	return v
}

// pointsSeries is a points mark as a scatter series.
func pointsSeries(m Mark, i int) []any {
	se := seriesBase(m, i, "scatter")
	data := make([]any, 0, len(m.X))
	for j := range m.X {
		if finite(m.X[j]) && finite(m.Y[j]) {
			d := seriesXY(m, j, m.Y[j])
			if m.Sizes != nil {
				item, ok := d.(map[string]any)
				if !ok {
					item = map[string]any{"value": d}
				}
				item["symbolSize"] = 2 * px(m.Sizes[j]) * 1.2
				d = item
			}
			data = append(data, d)
		}
	}
	se["data"] = data
	se["symbol"] = echartsSymbol(m.Style.Symbol)
	se["symbolSize"] = 2 * px(m.Radius()) * 1.2
	// opaque, as the static figure draws them (ECharts' default 0.8
	// mixes a dark colour with a dark page under 3:1)
	se["itemStyle"] = map[string]any{"color": m.Style.Hex(), "opacity": 1}
	return []any{se}
}

// lineSeries is a line, reference line or intervals (pairs of points broken by nulls) as a line series.
func lineSeries(m Mark, i int) []any {
	se := seriesBase(m, i, "line")
	var data []any
	if m.Kind == MarkInterval {
		for j := range m.X {
			data = append(data, []any{m.X[j], jsonFloat(m.Y[j])}, []any{m.X[j], jsonFloat(m.Y2[j])}, []any{m.X[j], nil})
		}
	} else {
		for j := range m.X {
			data = append(data, seriesXY(m, j, m.Y[j]))
		}
	}
	se["data"] = data
	// on a screen no line is thinner than 2 px: thinner, its antialiased
	// pixels fall under 3:1 contrast with a dark page
	least := 2.0
	line := map[string]any{"color": m.Style.Hex(), "width": math.Max(least, px(m.LineWidth())), "type": string(m.Style.Dash)}
	if m.Style.Dash == "" {
		line["type"] = string(Solid)
	}
	if m.Opacity > 0 && m.Opacity < 1 {
		line["opacity"] = m.Opacity
	}
	se["lineStyle"] = line
	se["itemStyle"] = map[string]any{"color": m.Style.Hex()}
	se["connectNulls"] = false
	if m.WithPoints {
		se["showSymbol"] = true
		se["symbol"] = echartsSymbol(m.Style.Symbol)
		se["symbolSize"] = 7
	} else {
		se["showSymbol"] = false
		se["symbol"] = echartsSymbol(m.Style.Symbol)
	}
	if m.Kind == MarkRefLine {
		se["silent"] = true
		se["symbol"] = "none"
		se["tooltip"] = map[string]any{"show": false}
	}
	return []any{se}
}

// bandSeries is a band as two stacked line series, the second filled: the legend entry hides both.
func bandSeries(m Mark, i, k int) []any {
	lo, wd := seriesBase(m, i, "line"), seriesBase(m, i, "line")
	dl, dw := make([]any, len(m.X)), make([]any, len(m.X))
	for j := range m.X {
		if finite(m.Y[j]) && finite(m.Y2[j]) {
			dl[j] = []any{m.X[j], m.Y[j]}
			dw[j] = []any{m.X[j], m.Y2[j] - m.Y[j]}
		} else {
			dl[j] = []any{m.X[j], nil}
			dw[j] = []any{m.X[j], nil}
		}
	}
	stack := fmt.Sprintf("band-%d-%d-%s", i, k, m.Series)
	for _, se := range []map[string]any{lo, wd} {
		se["stack"] = stack
		se["symbol"] = "none"
		se["silent"] = true
		se["z"] = 1
		se["tooltip"] = map[string]any{"show": false}
		se["lineStyle"] = map[string]any{"opacity": 0}
		se["itemStyle"] = map[string]any{"color": m.Style.Hex()}
	}
	lo["data"], wd["data"] = dl, dw
	wd["areaStyle"] = map[string]any{"color": m.Style.Hex(), "opacity": m.AreaOpacity()}
	if m.Region() {
		// an opaque region (the contour funnel's p-value regions): its
		// colour is what it means (white, light and dark grey, as the
		// caption says), so the page's contrast adjustment leaves it
		lo[echartsRegion], wd[echartsRegion] = true, true
	}
	return []any{lo, wd}
}

// barSeries is a bars mark as a bar series.
func barSeries(m Mark, i int) []any {
	se := seriesBase(m, i, "bar")
	data := make([]any, len(m.X))
	for j := range m.X {
		data[j] = seriesXY(m, j, m.Y[j])
	}
	se["data"] = data
	se["itemStyle"] = map[string]any{"color": m.Style.Hex()}
	return []any{se}
}

// textSeries is a text mark as an unmarked scatter series with labels.
func textSeries(m Mark, i int) []any {
	se := seriesBase(m, i, "scatter")
	data := make([]any, len(m.X))
	for j := range m.X {
		data[j] = map[string]any{"name": m.Labels[j], "value": []any{m.X[j], m.Y[j]}}
	}
	se["data"] = data
	se["symbolSize"] = 0
	se["silent"] = true
	pos := "right"
	if m.LeftOf {
		pos = "left"
	}
	se["label"] = map[string]any{"show": true, "formatter": "{b}", "position": pos, "fontSize": 11}
	return []any{se}
}

// cellsSeries is a heatmap series, each cell's label black or white for contrast.
func (s *Spec) cellsSeries(m Mark, i int) []any {
	se := seriesBase(m, i, "heatmap")
	lo, hi, reverse := 0.0, 1.0, false
	if s.Scale != nil {
		lo, hi, reverse = s.Scale.Min, s.Scale.Max, s.Scale.Reverse
	}
	var data []any
	for r, row := range m.Cells {
		for c, v := range row {
			var cell any = "-"
			if finite(v) {
				cell = math.Round(v*100) / 100 // as the cell prints it; tables keep more
			}
			// each label black or white, whichever contrasts more with its cell
			text := "#000000"
			if CellText(CellColour(lo, hi, reverse, v)) == color.White {
				text = "#ffffff"
			}
			label := map[string]any{"color": text}
			if m.CellText != nil && finite(v) {
				label["formatter"] = m.CellText[r][c]
			} else if f := cellFormat(m, v); f != "" {
				label["formatter"] = f
			}
			data = append(data, map[string]any{"value": []any{c, r, cell}, "label": label})
		}
	}
	se["data"] = data
	se["label"] = map[string]any{"show": true, "fontSize": 12}
	return []any{se}
}

// cellFormat is a heatmap cell's text where ECharts would print its
// value otherwise than the static figure does (0.9, 1 and -0 for the
// figure's 0.90, 1.00 and 0.00: a number drops its trailing zeros), or
// "".
func cellFormat(m Mark, v float64) string {
	if !finite(v) {
		return ""
	}
	text := HeatmapText(m.Format, v)
	if text == strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) {
		return ""
	}
	return text
}

// textRoom is the room in pixels a panel's text marks need left and
// right of the plot: the widest label of each side (about 6.2 px a
// character at 11 px) and a gap.
func (pn Panel) textRoom() (left, right int) {
	for _, m := range pn.Marks {
		if m.Kind != MarkText {
			continue
		}
		for _, l := range m.Labels {
			w := int(6.2*float64(len([]rune(l)))) + 12
			if m.LeftOf {
				left = max(left, w)
			} else {
				right = max(right, w)
			}
		}
	}
	return left, right
}

// jsonFloat returns v, or nil when it is not finite, for chart data.
func jsonFloat(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}
