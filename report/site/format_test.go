package site

import "testing"

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

// TestInlineCode: `spans` in notes become <code>, HTML is escaped and an
// unpaired backtick stays.
func TestInlineCode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"counted in `undefined`": "counted in <code>undefined</code>",
		"a <b> `x` and ` alone":  "a &lt;b&gt; <code>x</code> and ` alone",
		"plain":                  "plain",
	} {
		if got := string(inlineCode(in)); got != want {
			t.Errorf("inlineCode(%q) = %q, want %q", in, got, want)
		}
	}
}
