package report

import (
	"fmt"
	"html"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/evalbook/evalbook/analyses"

	"github.com/evalbook/evalbook/report/input"
)

// BibEntry is one BibTeX entry: its key, type and fields (lower-case
// names, braces and quotes removed).
type BibEntry struct {
	Key    string
	Type   string
	Fields map[string]string
	Line   int
}

// ParseBibTeX reads the entries of a .bib file: @type{key, name = {…} |
// "…" | number, …}. @comment, @preamble and @string are skipped. It is
// enough for reference lists, not a full BibTeX implementation (no
// macros, no crossref).
func ParseBibTeX(file, src string) (map[string]*BibEntry, error) {
	out := map[string]*BibEntry{}
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
		e := &BibEntry{Key: strings.TrimSpace(body[:comma]), Type: typ, Fields: map[string]string{}, Line: entryLine}
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

// surname returns the family name of the first author ("Last, First" or
// "First Last").
func surnames(authors string) []string {
	var out []string
	for _, a := range strings.Split(authors, " and ") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if c := strings.IndexByte(a, ','); c >= 0 {
			out = append(out, strings.TrimSpace(a[:c]))
			continue
		}
		f := strings.Fields(a)
		out = append(out, f[len(f)-1])
	}
	return out
}

// citeLabel is "Surname Year", "A & B Year" or "A et al. Year".
func citeLabel(e *BibEntry) string {
	names := surnames(e.Fields["author"])
	var who string
	switch len(names) {
	case 0:
		who = e.Key
	case 1:
		who = names[0]
	case 2:
		who = names[0] + " & " + names[1]
	default:
		who = names[0] + " et al."
	}
	if y := e.Fields["year"]; y != "" {
		return who + " " + y
	}
	return who
}

// cite renders "[@a; @b]" as an author–year citation linking to the
// page's reference list.
func (n *narrative) cite(body string) (string, error) {
	bib := n.b.bib
	if bib == nil {
		return "", fmt.Errorf("a citation, but the manifest has no bibliography")
	}
	var parts []string
	for _, k := range strings.Split(body, ";") {
		key := strings.TrimPrefix(strings.TrimSpace(k), "@")
		e, ok := bib[key]
		if !ok {
			return "", fmt.Errorf("no bibliography entry %q%s", key, analyses.DidYouMean(key, analyses.SortedKeys(bib)))
		}
		if n.citeNum[key] == 0 {
			n.cited = append(n.cited, key)
			n.citeNum[key] = len(n.cited)
		}
		if n.format == "md" {
			parts = append(parts, fmt.Sprintf("[%s](#ref-%s)", mdText(citeLabel(e)), mdAnchor(key)))
		} else {
			parts = append(parts, fmt.Sprintf(`<a class="cite" href="#ref-%s">%s</a>`, html.EscapeString(anchor(key)), html.EscapeString(citeLabel(e))))
		}
	}
	if n.format == "md" {
		return "(" + strings.Join(parts, "; ") + ")", nil
	}
	return n.token("(" + strings.Join(parts, "; ") + ")"), nil
}

// references renders the page's reference list, sorted by first author
// and year.
func (n *narrative) references() string {
	if len(n.cited) == 0 {
		return ""
	}
	keys := append([]string(nil), n.cited...)
	sort.SliceStable(keys, func(i, j int) bool {
		a, b := n.b.bib[keys[i]], n.b.bib[keys[j]]
		la, lb := strings.ToLower(citeLabel(a)), strings.ToLower(citeLabel(b))
		if la != lb {
			return la < lb
		}
		return keys[i] < keys[j]
	})
	var buf strings.Builder
	if n.format == "md" {
		buf.WriteString("\n\n## References\n\n")
		for _, k := range keys {
			e := n.b.bib[k]
			fmt.Fprintf(&buf, "- <a id=\"ref-%s\"></a>%s\n", mdAnchor(k), mdText(referenceText(e)))
		}
		return buf.String()
	}
	buf.WriteString(`<section class="references"><h2>References</h2><ol>`)
	for _, k := range keys {
		e := n.b.bib[k]
		fmt.Fprintf(&buf, `<li id="ref-%s">%s`, html.EscapeString(anchor(k)), html.EscapeString(referenceText(e)))
		if doi := e.Fields["doi"]; doi != "" {
			fmt.Fprintf(&buf, ` <a href="https://doi.org/%s">doi:%s</a>`, html.EscapeString(doi), html.EscapeString(doi))
		} else if u := e.Fields["url"]; u != "" {
			fmt.Fprintf(&buf, ` <a href="%s">%s</a>`, html.EscapeString(u), html.EscapeString(u))
		}
		buf.WriteString("</li>")
	}
	buf.WriteString("</ol></section>")
	return buf.String()
}

// referenceText is "Authors (Year). Title. Venue."
func referenceText(e *BibEntry) string {
	f := e.Fields
	var s strings.Builder
	if a := f["author"]; a != "" {
		s.WriteString(strings.ReplaceAll(a, " and ", ", "))
	}
	if y := f["year"]; y != "" {
		fmt.Fprintf(&s, " (%s)", y)
	}
	if t := f["title"]; t != "" {
		fmt.Fprintf(&s, ". %s", t)
	}
	for _, k := range []string{"journal", "booktitle", "publisher"} {
		if v := f[k]; v != "" {
			fmt.Fprintf(&s, ". %s", v)
			break
		}
	}
	s.WriteString(".")
	return strings.TrimPrefix(s.String(), ". ")
}

func anchor(key string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, key)
}

func mdAnchor(key string) string { return strings.ToLower(anchor(key)) }
