package site

import (
	"html"
	"html/template"
	"strings"
)

// inlineCode is text for a page with `code spans` set as <code>: notes
// and captions name columns and options that way.
func inlineCode(s string) template.HTML {
	return template.HTML(codeSpans(s, html.EscapeString, func(c string) string { return "<code>" + html.EscapeString(c) + "</code>" }))
}

// mdInline is a note (of an analysis or a table) in Markdown as
// inlineCode is in HTML: its paired `spans` stay code spans, the rest is
// escaped text (mdText), so a note reads the same in both formats (not
// with escaped, visible backticks).
func mdInline(s string) string {
	return codeSpans(s, mdText, func(c string) string {
		if c == "" {
			return mdText("``") // an empty span is two backticks of text
		}
		return "`" + c + "`" // a span holds no backtick: it ends at the next one
	})
}

// codeSpans writes s with its paired `spans` through code and the text
// around them through text; an unpaired backtick stays text.
func codeSpans(s string, text, code func(string) string) string {
	parts := strings.Split(s, "`")
	if len(parts) < 3 {
		return text(s)
	}
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i%2 == 1 && i < len(parts)-1:
			b.WriteString(code(p))
		case i%2 == 1: // an unpaired backtick stays as written
			b.WriteString(text("`" + p))
		default:
			b.WriteString(text(p))
		}
	}
	return b.String()
}
