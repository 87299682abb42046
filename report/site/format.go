package site

import (
	"html"
	"html/template"
	"strings"
)

// inlineCode is text for a page with `code spans` set as <code>: notes
// and captions name columns and options that way.
func inlineCode(s string) template.HTML {
	parts := strings.Split(s, "`")
	if len(parts) < 3 {
		return template.HTML(html.EscapeString(s))
	}
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i%2 == 1 && i < len(parts)-1:
			b.WriteString("<code>" + html.EscapeString(p) + "</code>")
		case i%2 == 1: // an unpaired backtick stays as written
			b.WriteString("`" + html.EscapeString(p))
		default:
			b.WriteString(html.EscapeString(p))
		}
	}
	return template.HTML(b.String())
}

// mdInline is a note (of an analysis or a table) in Markdown as
// inlineCode is in HTML: its paired
// `spans` stay code spans, the rest is escaped text (mdText), so a note
// reads the same in both formats (not with escaped, visible backticks).
func mdInline(s string) string {
	parts := strings.Split(s, "`")
	if len(parts) < 3 {
		return mdText(s)
	}
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i%2 == 1 && i < len(parts)-1 && p != "":
			b.WriteString("`" + p + "`") // a span holds no backtick: it ends at the next one
		case i%2 == 1:
			b.WriteString(mdText("`" + p))
		default:
			b.WriteString(mdText(p))
		}
	}
	return b.String()
}
