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

// TestMarkdownInlineCode: a note's `spans` stay code spans in Markdown,
// as they are <code> in HTML, and the text around them is escaped.
func TestMarkdownInlineCode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"`drop_methods`, `copeland`: counted in `undefined`": "`drop_methods`, `copeland`: counted in `undefined`",
		"a *b* `x_y` and ` alone":                            "a \\*b\\* `x_y` and \\` alone",
		"plain_text":                                         "plain\\_text",
	} {
		if got := mdInline(in); got != want {
			t.Errorf("mdInline(%q) = %q, want %q", in, got, want)
		}
	}
}
