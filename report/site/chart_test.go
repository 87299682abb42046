package site

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func lineOption(t *testing.T, series ...[2]string) map[string]any {
	t.Helper()
	var list []any
	for _, s := range series {
		list = append(list, map[string]any{"type": "line", "name": s[0], "itemStyle": map[string]any{"color": s[1]},
			"lineStyle": map[string]any{"color": s[1]}})
	}
	raw, _ := json.Marshal(map[string]any{"legend": map[string]any{"type": "scroll"}, "series": list})
	o, err := decodeOption(raw)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestColourMap: a name keeps its colour from chart to chart whatever its
// place in each; the static SVG's colours are swapped to match, all at
// once; a legend is never paged; names past the palette get another dash.
func TestColourMap(t *testing.T) {
	t.Parallel()
	first := lineOption(t, [2]string{"EASE (AUC 0.1)", "#0072b2"}, [2]string{"ALS (AUC 0.2)", "#c85200"})
	second := lineOption(t, [2]string{"ALS", "#0072b2"}, [2]string{"EASE", "#c85200"})
	m := newColourMap()
	m.see(first)
	m.see(second)
	mapping := m.recolouring(second)
	if mapping["#0072B2"] != "#C85200" || mapping["#C85200"] != "#0072B2" {
		t.Errorf("recolouring %v", mapping)
	}
	svg := recolourSVG([]byte(`<path style="stroke:#0072B2;fill:none"/><path style="stroke:#C85200"/><rect style="fill:#0072B2"/>`), mapping)
	if want := `<path style="stroke:#C85200;fill:none"/><path style="stroke:#0072B2"/><rect style="fill:#C85200"/>`; string(svg) != want {
		t.Errorf("recoloured SVG %s, want %s", svg, want)
	}
	h := 400
	m.apply(second, &h)
	colour := func(o map[string]any, i int) string {
		return o["series"].([]any)[i].(map[string]any)["itemStyle"].(map[string]any)["color"].(string)
	}
	m.apply(first, nil)
	if colour(first, 0) != colour(second, 1) || colour(first, 1) != colour(second, 0) || colour(first, 0) == colour(first, 1) {
		t.Errorf("EASE %s then %s, ALS %s then %s", colour(first, 0), colour(second, 1), colour(first, 1), colour(second, 0))
	}
	if _, paged := second["legend"].(map[string]any)["type"]; paged {
		t.Error("the legend is still paged")
	}

	// Nine names: the ninth shares the first's colour, with a dash of its
	// own; its chart's SVG cannot be recoloured one to one.
	var many [][2]string
	for i := 0; i < 9; i++ {
		many = append(many, [2]string{fmt.Sprintf("m%d", i), fmt.Sprintf("#%06x", i+1)})
	}
	big := lineOption(t, many...)
	m2 := newColourMap()
	m2.see(big)
	if m2.recolouring(big) != nil {
		t.Error("a recolouring with two names on one colour")
	}
	m2.apply(big, &h)
	s0 := big["series"].([]any)[0].(map[string]any)
	s8 := big["series"].([]any)[8].(map[string]any)
	if colour(big, 0) != colour(big, 8) || s0["lineStyle"].(map[string]any)["type"] == s8["lineStyle"].(map[string]any)["type"] {
		t.Errorf("m0 and m8: %v and %v", s0, s8)
	}
	if out, _ := encodeOption(big); !strings.Contains(string(out), `"type":"dashed"`) {
		t.Errorf("no dashed line in %s", out)
	}
}
