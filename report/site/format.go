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
