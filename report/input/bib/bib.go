// Package bib reads BibTeX files: a study's bibliography, the citation
// a build writes.
package bib

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/site"
)

// Entry is one BibTeX entry (the site renders them: site.BibEntry).
type Entry = site.BibEntry

// Parse reads the entries of a .bib file: @type{key, name = {…} |
// "…" | number, …}. @comment, @preamble and @string are skipped. It is
// enough for reference lists, not a full BibTeX implementation (no
// macros, no crossref).
func Parse(file, src string) (map[string]*Entry, error) {
	out := map[string]*Entry{}
	line := 1
	i := 0
	for i < len(src) {
		at := strings.IndexByte(src[i:], '@')
		if at < 0 {
			break
		}
		line += strings.Count(src[i:i+at], "\n")
		i += at + 1
		open := strings.IndexAny(src[i:], "{(")
		if open < 0 {
			return nil, input.Errorf(file, line, "@ without an entry body")
		}
		typ := strings.ToLower(strings.TrimSpace(src[i : i+open]))
		i += open + 1
		body, n, err := balanced(src[i:], src[i-1])
		if err != nil {
			return nil, input.Errorf(file, line, "%v", err)
		}
		entryLine := line
		line += strings.Count(src[i:i+n], "\n")
		i += n
		if typ == "comment" || typ == "preamble" || typ == "string" {
			continue
		}
		comma := strings.IndexByte(body, ',')
		if comma < 0 {
			return nil, input.Errorf(file, entryLine, "entry without fields")
		}
		e := &Entry{Key: strings.TrimSpace(body[:comma]), Type: typ, Fields: map[string]string{}, Line: entryLine}
		if e.Key == "" {
			return nil, input.Errorf(file, entryLine, "@%s entry without a key", typ)
		}
		if !validBibKey(e.Key) {
			return nil, input.Errorf(file, entryLine, "key %s: a citation key is letters, digits and :-_./+ only", bibQuote(e.Key))
		}
		if _, dup := out[e.Key]; dup {
			return nil, input.Errorf(file, entryLine, "key %q is defined twice", e.Key)
		}
		rest := body[comma+1:]
		for {
			rest = strings.TrimLeft(rest, " \t\r\n,")
			if rest == "" {
				break
			}
			eq := strings.IndexByte(rest, '=')
			if eq < 0 {
				return nil, input.Errorf(file, entryLine, "%s: field without '='", e.Key)
			}
			name := strings.ToLower(strings.TrimSpace(rest[:eq]))
			rest = strings.TrimLeft(rest[eq+1:], " \t\r\n")
			var val string
			switch {
			case strings.HasPrefix(rest, "{"):
				v, n, err := balanced(rest[1:], '{')
				if err != nil {
					return nil, input.Errorf(file, entryLine, "%s.%s: %v", e.Key, name, err)
				}
				val, rest = v, rest[1+n:]
			case strings.HasPrefix(rest, `"`):
				end := strings.IndexByte(rest[1:], '"')
				if end < 0 {
					return nil, input.Errorf(file, entryLine, "%s.%s: unterminated quote", e.Key, name)
				}
				val, rest = rest[1:1+end], rest[2+end:]
			default:
				end := strings.IndexAny(rest, ",\n")
				if end < 0 {
					end = len(rest)
				}
				val, rest = strings.TrimSpace(rest[:end]), rest[end:]
			}
			e.Fields[name] = cleanTeX(val)
		}
		out[e.Key] = e
	}
	return out, nil
}

// validBibKey reports whether a citation key is printable, with no space,
// brace, comma or quote, as BibTeX keys are.
func validBibKey(k string) bool {
	if !utf8.ValidString(k) {
		return false
	}
	for _, r := range k {
		if unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune("{}(),\"#%'=~", r) {
			return false
		}
	}
	return true
}

// bibQuote quotes a piece of input for a message: Go-quoted (so control
// characters and invalid bytes are visible, never sent to a terminal) and
// cut at about 200 bytes.
func bibQuote(s string) string {
	const limit = 200
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "…"
	}
	return strconv.Quote(s)
}

// balanced returns the text up to the bracket that closes an opening one,
// and how many bytes it consumed (the closer included).
func balanced(s string, open byte) (string, int, error) {
	closer := byte('}')
	if open == '(' {
		closer = ')'
	}
	depth := 1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{', '(':
			if s[i] == open || s[i] == '{' {
				depth++
			}
		case '}', ')':
			if s[i] == closer || s[i] == '}' {
				depth--
				if depth == 0 {
					return s[:i], i + 1, nil
				}
			}
		}
	}
	return "", 0, fmt.Errorf("unbalanced braces")
}

// texAccents maps accent commands to combining marks.
var texAccents = map[byte]rune{'\'': '\u0301', '`': '\u0300', '^': '\u0302', '"': '\u0308', '~': '\u0303',
	'=': '\u0304', '.': '\u0307', 'v': '\u030C', 'u': '\u0306', 'H': '\u030B', 'c': '\u0327', 'k': '\u0328'}

// cleanTeX removes braces, turns accent commands into letters (\v{s} → š)
// and the commonest escapes into text, collapsing space.
func cleanTeX(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			if mark, ok := texAccents[s[i+1]]; ok {
				j := i + 2
				for j < len(s) && (s[j] == '{' || s[j] == ' ') {
					j++
				}
				if j < len(s) {
					letter := s[j]
					if letter == '\\' && j+1 < len(s) && (s[j+1] == 'i' || s[j+1] == 'j') {
						j++
						letter = s[j]
					}
					b.WriteString(norm.NFC.String(string(letter) + string(mark)))
					i = j
					continue
				}
			}
		}
		b.WriteByte(s[i])
	}
	s = b.String()
	s = strings.NewReplacer(`\&`, "&", `\%`, "%", `\_`, "_", `{`, "", `}`, "", `~`, " ", "--", "–").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}
