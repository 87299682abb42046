package site

import "testing"

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
