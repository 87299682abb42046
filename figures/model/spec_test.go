package model

import (
	"image/color"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestRoundAxisBounds: chart bounds that are not round numbers are not
// labelled; RoundRange widens to round ones.
func TestRoundAxisBounds(t *testing.T) {
	t.Parallel()
	if _, hi := RoundRange(0, 0.0560505); hi != 0.06 {
		t.Errorf("RoundRange(0, 0.0560505) ends at %v", hi)
	}
	for _, v := range []float64{0.0560505, 1.03, 0.123} {
		if IsRound(v) {
			t.Errorf("%v is round", v)
		}
	}
	for _, v := range []float64{0.06, 1, 0.25, -0.5, 120} {
		if !IsRound(v) {
			t.Errorf("%v is not round", v)
		}
	}
	ax := echartsAxis(NewAxis("x").Fixed(-0.03, 1.03), 0, false)
	if l, _ := ax["axisLabel"].(map[string]any); l["showMinLabel"] != false || l["showMaxLabel"] != false {
		t.Errorf("axis %v labels its ends", ax)
	}
}

// TestEChartsRegionKeepsItsColour: an opaque region (the contour
// funnel's p-value regions) is marked for the page to leave its colour
// as it is, and its legend key is a box of that colour with an outline;
// a translucent band is not marked.
func TestEChartsRegionKeepsItsColour(t *testing.T) {
	t.Parallel()
	white := Style{Colour: color.NRGBA{0xff, 0xff, 0xff, 0xff}}
	s := &Spec{Legend: LegendBelow, Panels: []Panel{{Marks: []Mark{
		{Kind: MarkArea, Series: "p > 0.1", Opacity: 1, Style: white, X: []float64{0, 1}, Y: []float64{0, 1}, Y2: []float64{1, 2}},
		{Kind: MarkArea, Series: "band", X: []float64{0, 1}, Y: []float64{0, 1}, Y2: []float64{1, 2}},
	}}}}
	o := s.EChartsOption()
	regions := map[string]int{}
	for _, se := range o["series"].([]any) {
		m := se.(map[string]any)
		if m[echartsRegion] == true {
			regions[m["name"].(string)]++
		}
	}
	if regions["p > 0.1"] != 2 || regions["band"] != 0 {
		t.Errorf("series marked as regions: %v; want both of the opaque region's, none of the band's", regions)
	}
	keys := o["legend"].(map[string]any)["data"].([]any)
	key := keys[0].(map[string]any)
	sty, _ := key["itemStyle"].(map[string]any)
	if key["icon"] != "rect" || key[echartsRegion] != true || sty["color"] != "#ffffff" || sty["borderColor"] == nil {
		t.Errorf("the region's legend key %v; want a white box with an outline, marked", key)
	}
	if band := keys[1].(map[string]any); band[echartsRegion] != nil || band["icon"] != nil {
		t.Errorf("the band's legend key %v is marked", band)
	}
}

// TestHeatmapCellsPrintAsTheFigure: the interactive heatmap printed a
// cell's rounded value as a JavaScript number, "0.9", "1" and "0" beside
// "0.96", where the static figure prints "0.90", "1.00" and "0.00"; and
// both printed a small negative value as "-0.00". A cell's text is now
// the figure's wherever the number's own would differ.
func TestHeatmapCellsPrintAsTheFigure(t *testing.T) {
	t.Parallel()
	cells := [][]float64{{0.9, 1, -0.004, 0.956}}
	s := &Spec{Panels: []Panel{{Marks: []Mark{{Kind: MarkCells, Cells: cells, Format: "%.2f"}}}}}
	var got []string
	for _, se := range s.EChartsOption()["series"].([]any) {
		for _, d := range se.(map[string]any)["data"].([]any) {
			d := d.(map[string]any)
			text, _ := d["label"].(map[string]any)["formatter"].(string)
			if text == "" {
				text = strconv.FormatFloat(d["value"].([]any)[2].(float64), 'f', -1, 64) // as ECharts prints it
			}
			got = append(got, text)
		}
	}
	if want := []string{"0.90", "1.00", "0.00", "0.96"}; !slices.Equal(got, want) {
		t.Errorf("the chart's cells print %q, want %q", got, want)
	}
	for i, v := range cells[0] {
		if s := HeatmapText("%.2f", v); s != got[i] {
			t.Errorf("the static figure prints %v as %q, the chart as %q", v, s, got[i])
		}
	}
}

// TestRingIsHollow: a ring (a cluster's representative, a rule's
// points) is drawn as a ring with a hole in the series' colour, never as
// ECharts' emptyCircle, which fills its inside white: it hid the point
// the ring marks and showed as a white disc on a dark page.
func TestRingIsHollow(t *testing.T) {
	t.Parallel()
	s := &Spec{Panels: []Panel{{Marks: []Mark{
		{Kind: MarkPoints, Series: "representative", Style: Style{Symbol: Ring}, X: []float64{0}, Y: []float64{0}},
		{Kind: MarkLine, Series: "copeland", WithPoints: true, Style: Style{Symbol: Ring}, X: []float64{0, 1}, Y: []float64{0, 1}},
	}}}}
	for _, se := range s.EChartsOption()["series"].([]any) {
		sym, _ := se.(map[string]any)["symbol"].(string)
		if sym == "emptyCircle" || !strings.HasPrefix(sym, "path://") || strings.Count(sym, "M") != 2 {
			t.Errorf("%v: a ring drawn as %q, want a path of two circles (a hole)", se.(map[string]any)["name"], sym)
		}
	}
}

// TestKeepsColours: a heatmap and an opaque region keep their colours
// (their captions name them); lines, points and a translucent band do
// not.
func TestKeepsColours(t *testing.T) {
	t.Parallel()
	spec := func(m Mark) *Spec { return &Spec{Panels: []Panel{{Marks: []Mark{{Kind: MarkLine}, m}}}} }
	for _, c := range []struct {
		name string
		mark Mark
		want bool
	}{
		{"heatmap", Mark{Kind: MarkCells}, true},
		{"opaque region", Mark{Kind: MarkArea, Opacity: 1}, true},
		{"translucent band", Mark{Kind: MarkArea}, false},
		{"points", Mark{Kind: MarkPoints}, false},
	} {
		if got := spec(c.mark).KeepsColours(); got != c.want {
			t.Errorf("%s: KeepsColours %v, want %v", c.name, got, c.want)
		}
	}
}
