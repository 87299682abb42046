package model

import (
	"encoding/json"
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

// TestChartsKeepFigureColours: the site no longer restyles a chart by
// the order names first appear on the site (which gave a method one
// colour on the site and another in the PDF): a series keeps its
// figure's colour; the legend is never paged, and each panel's grid of a
// multi-panel chart leaves room for it.
func TestChartsKeepFigureColours(t *testing.T) {
	t.Parallel()
	second := lineOption(t, [2]string{"ALS", "#0072b2"}, [2]string{"EASE", "#c85200"})
	h := 400
	apply(second, &h)
	colour := func(o map[string]any, i int) string {
		return o["series"].([]any)[i].(map[string]any)["itemStyle"].(map[string]any)["color"].(string)
	}
	if colour(second, 0) != "#0072b2" || colour(second, 1) != "#c85200" {
		t.Errorf("colours %s, %s: restyled", colour(second, 0), colour(second, 1))
	}
	if _, paged := second["legend"].(map[string]any)["type"]; paged {
		t.Error("the legend is still paged")
	}
	raw, _ := json.Marshal(map[string]any{"legend": map[string]any{"data": []any{map[string]any{"name": "a"}}},
		"grid": []any{map[string]any{"bottom": 10}, map[string]any{"bottom": 10}}, "series": []any{map[string]any{"type": "scatter", "name": "a"}}})
	panels, err := decodeOption(raw)
	if err != nil {
		t.Fatal(err)
	}
	apply(panels, &h)
	for i, g := range panels["grid"].([]any) {
		if b, _ := number(g.(map[string]any)["bottom"]); b < 40 {
			t.Errorf("grid %d: bottom %v leaves no room for the legend", i, b)
		}
	}
}

// TestRoundChartOption: float noise and long digits leave chart options;
// integers, strings and key order of content stay.
func TestRoundChartOption(t *testing.T) {
	t.Parallel()
	option, err := decodeOption([]byte(`{"yAxis":{"min":0.6799999999999999,"max":1},"series":[{"name":"a<b","data":[[0.3522804456660098,1.4095823078410374],[12345678,1e-20]]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := encodeOption(option)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"series":[{"data":[[0.35228,1.40958],[12345678,1e-20]],"name":"a<b"}],"yAxis":{"max":1,"min":0.68}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if _, err := decodeOption([]byte(`{"a":`)); err == nil {
		t.Error("a broken option is not an error")
	}
}
