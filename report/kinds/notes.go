package kinds

// Method notes. Each analysis kind's method note — what was computed, the
// papers and reference implementations it follows, and the choices the
// tool makes where they leave something open — is a Markdown text/template
// in notes/<type>.md beside the kinds, embedded in the binary and parsed
// once. A kind's Go code only gathers the data its note reads (a small
// struct of options and result fields, or nil) and calls methodNote.
// Sub-templates a note defines are named "<type>/<name>", as every file
// shares one namespace.
//
// Layout of a note: Markdown, one paragraph or list item per line where it
// has no conditions. Where a paragraph's sentences depend on the data,
// each optional piece starts a new line with an action that trims the
// line break before it ({{- if …}}, {{- else}}, {{- end}}) and the text
// after the action brings its own leading space; {{- ""}} joins an
// unconditional sentence the same way, and {{" "}} writes a space the
// trimming would otherwise lose.
//
// notes_test.go parses every note, checks that each registered kind has
// one and each file belongs to a kind, and executes them on the demo
// study, so a broken note fails the tests rather than a user's build.
//
// Key findings (the one-sentence highlights of the overview page) stay
// where they are computed, in the analyses' Highlight methods: they are
// short format strings put together piece by piece from the numbers, and a
// template would only move the pieces away from the choices between them.

import (
	"embed"
	"fmt"
	"math"
	"strings"
	"sync"
	"text/template"
	"unicode"

	"github.com/evalbook/evalbook/analyses"
)

//go:embed notes/*.md
var NotesFS embed.FS

// noteFuncs are the functions notes may call besides text/template's own.
var noteFuncs = template.FuncMap{
	"join": func(sep string, s []string) string { return strings.Join(s, sep) },
	"md":   markdownText,
	// p is a p-value as the tables and findings write it ("p = 0.0373")
	"p": func(x float64) string {
		if math.IsNaN(x) {
			return "p undefined"
		}
		return analyses.PClause(x)
	},
	// sig is a number in a sentence with n significant digits, its
	// significant zeros kept (-1.690, not -1.69), as findings write it
	"sig": func(n int, x float64) string { return analyses.FormatSig(x, n) },
}

// markdownText escapes the characters Markdown would read as markup, so
// a sentence an analysis wrote (with method labels in it) stays text. An
// underscore inside a word (mred_country) is no markup and stays as it
// is, so an id in a note reads as the id.
func markdownText(s string) string {
	var b strings.Builder
	rs := []rune(s)
	word := func(i int) bool {
		return i >= 0 && i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i]))
	}
	for i, r := range rs {
		switch {
		case r == '_' && word(i-1) && word(i+1):
		case strings.ContainsRune("\\`*_[]<>#|~", r):
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ParseNotes parses every notes/*.md into one template set, each note
// named by its file name (aggregate.md, …).
func ParseNotes() (*template.Template, error) {
	return template.New("notes").Option("missingkey=error").Funcs(noteFuncs).ParseFS(NotesFS, "notes/*.md")
}

var notes = sync.OnceValues(ParseNotes)

// methodNote executes notes/<typ>.md on data and returns the Markdown,
// without the file's final newline. A note that does not parse or execute
// is a bug the tests catch; should one slip through, the panic becomes
// the analysis's "internal error" (the build recovers it), not a crash.
func methodNote(typ string, data any) string {
	t, err := notes()
	if err == nil {
		var b strings.Builder
		if err = t.ExecuteTemplate(&b, typ+".md", data); err == nil {
			return strings.TrimSuffix(b.String(), "\n")
		}
	}
	panic(fmt.Sprintf("method note of %s: %v", typ, err))
}
