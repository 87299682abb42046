package site

import "testing"

// TestInlineCode: a note's `spans` become <code> in HTML and stay code
// spans in Markdown; the text around them is escaped for each (HTML's
// <, Markdown's * and _), and an unpaired backtick stays text.
func TestInlineCode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, html, md string }{
		{"counted in `undefined`", "counted in <code>undefined</code>", "counted in `undefined`"},
		{"a <b> `x` and ` alone", "a &lt;b&gt; <code>x</code> and ` alone", "a &lt;b&gt; `x` and \\` alone"},
		{"plain", "plain", "plain"},
		{"`drop_methods`, `copeland`: counted in `undefined`", "<code>drop_methods</code>, <code>copeland</code>: counted in <code>undefined</code>",
			"`drop_methods`, `copeland`: counted in `undefined`"},
		{"a *b* `x_y` and ` alone", "a *b* <code>x_y</code> and ` alone", "a \\*b\\* `x_y` and \\` alone"},
		{"plain_text", "plain_text", "plain\\_text"},
	} {
		if got := string(inlineCode(c.in)); got != c.html {
			t.Errorf("inlineCode(%q) = %q, want %q", c.in, got, c.html)
		}
		if got := mdInline(c.in); got != c.md {
			t.Errorf("mdInline(%q) = %q, want %q", c.in, got, c.md)
		}
	}
}
