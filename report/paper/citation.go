package paper

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// Study is what the citation files say about a study (the manifest's
// title, authors, date, DOI, license, links and abstract).
type Study struct {
	Title, Subtitle, Date, DOI, License, Abstract string
	Authors                                       []string
	Links                                         map[string]string
}

var (
	isoDate     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	leadingYear = regexp.MustCompile(`^\d{4}`)
)

// yamlString is s as a YAML double-quoted scalar: JSON's string syntax,
// which YAML 1.2 reads as is, with the characters YAML may not hold raw
// (DEL, the C1 controls, among them NEL, which YAML 1.1 reads as a line
// break, and U+FFFE, U+FFFF) written as \u escapes too. Invalid UTF-8
// becomes U+FFFD, as in JSON.
func yamlString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	out := strings.TrimSuffix(buf.String(), "\n")
	if !strings.ContainsFunc(out, yamlUnprintable) {
		return out
	}
	var b strings.Builder
	for _, r := range out {
		if yamlUnprintable(r) {
			fmt.Fprintf(&b, "\\u%04X", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// yamlUnprintable reports a character YAML 1.2 does not allow raw in a
// stream (outside its c-printable set) or that YAML 1.1 takes for a line
// break, of those JSON's encoder leaves raw.
func yamlUnprintable(r rune) bool {
	return r >= 0x7F && r <= 0x9F || r == 0xFFFE || r == 0xFFFF || r == 0x2028 || r == 0x2029
}

// bibEscape is text for a braced BibTeX field: Escape, but with braces
// as \textbraceleft{} and \textbraceright{}. BibTeX counts every brace,
// escaped or not, to find a field's end, so Escape's \{ and \} would
// let a value close its field and add others (a DOI of
// "10.1/z}, publisher = {Evil"); what bibEscape writes always has
// balanced braces.
func bibEscape(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexAny(s, "{}")
		if i < 0 {
			b.WriteString(Escape(s))
			return b.String()
		}
		b.WriteString(Escape(s[:i]))
		if s[i] == '{' {
			b.WriteString(`\textbraceleft{}`)
		} else {
			b.WriteString(`\textbraceright{}`)
		}
		s = s[i+1:]
	}
}

// bibURL is a URL for BibTeX's url field, which styles print verbatim
// (\url): the characters that would end the field or the command —
// braces, the backslash, spaces and control characters — are
// percent-encoded, as a browser sends them; the rest stays as written.
func bibURL(u string) string {
	var b strings.Builder
	for _, c := range []byte(u) {
		if c == '{' || c == '}' || c == '\\' || c <= ' ' || c == 0x7F {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// CFF writes CITATION.cff (Citation File Format 1.2.0) for the study as
// a dataset. Authors are written as they are in the manifest (`name`),
// never split into given and family names by guesswork; a date that is
// not YYYY-MM-DD is left out (CFF allows no other form) rather than
// changed.
func CFF(s Study) []byte {
	var b strings.Builder
	b.WriteString("# CITATION.cff: written by evalbook from the study's manifest.\n")
	b.WriteString("cff-version: 1.2.0\n")
	b.WriteString("message: " + yamlString("If you use this study, please cite it as below.") + "\n")
	b.WriteString("type: dataset\n")
	b.WriteString("title: " + yamlString(s.Title) + "\n")
	b.WriteString("authors:\n")
	if len(s.Authors) == 0 {
		b.WriteString("  - name: " + yamlString("anonymous") + "\n")
	}
	for _, a := range s.Authors {
		b.WriteString("  - name: " + yamlString(a) + "\n")
	}
	if s.Abstract != "" {
		b.WriteString("abstract: " + yamlString(strings.Join(strings.Fields(s.Abstract), " ")) + "\n")
	}
	if isoDate.MatchString(s.Date) {
		b.WriteString("date-released: " + yamlString(s.Date) + "\n")
	}
	if s.DOI != "" {
		b.WriteString("doi: " + yamlString(s.DOI) + "\n")
	}
	switch {
	case strings.Contains(s.License, "://"):
		b.WriteString("license-url: " + yamlString(s.License) + "\n")
	case s.License != "":
		b.WriteString("license: " + yamlString(s.License) + "\n")
	}
	if u, ok := s.Links["code"]; ok {
		b.WriteString("repository-code: " + yamlString(u) + "\n")
	}
	if u, ok := s.Links["paper"]; ok {
		b.WriteString("url: " + yamlString(u) + "\n")
	}
	if len(s.Links) > 0 {
		b.WriteString("identifiers:\n")
		for _, k := range sortedStrings(s.Links) {
			b.WriteString("  - type: url\n    value: " + yamlString(s.Links[k]) + "\n    description: " + yamlString(k) + "\n")
		}
	}
	return []byte(b.String())
}

// BibKey is the study's BibTeX key: the first author's last name, the
// year and the first word of the title of four letters or more, ASCII
// letters and digits only, lower case (e.g. researcher2024twelve).
func BibKey(s Study) string {
	var parts []string
	if len(s.Authors) > 0 {
		f := strings.Fields(s.Authors[0])
		if len(f) > 0 {
			parts = append(parts, f[len(f)-1])
		}
	}
	if len(s.Date) >= 4 {
		parts = append(parts, s.Date[:4])
	}
	for _, w := range strings.Fields(s.Title) {
		if len([]rune(w)) >= 4 {
			parts = append(parts, w)
			break
		}
	}
	var b strings.Builder
	for _, r := range strings.ToLower(strings.Join(parts, "")) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "study"
	}
	return b.String()
}

// BibTeX writes citation.bib: one @misc entry for the study, every field
// escaped for LaTeX with balanced braces (bibEscape), the url field
// percent-encoded where it would break (bibURL), authors joined with
// "and". No manifest value can end its field or add another.
func BibTeX(s Study) []byte {
	var b strings.Builder
	b.WriteString("% citation.bib: written by evalbook from the study's manifest.\n")
	fmt.Fprintf(&b, "@misc{%s,\n", BibKey(s))
	field := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "  %s = {%s},\n", k, v)
		}
	}
	title := s.Title
	if s.Subtitle != "" {
		title += ": " + s.Subtitle
	}
	field("title", "{"+bibEscape(title)+"}") // double braces keep its capitals
	var authors []string
	for _, a := range s.Authors {
		authors = append(authors, "{"+bibEscape(a)+"}")
	}
	field("author", strings.Join(authors, " and "))
	if y := leadingYear.FindString(s.Date); y != "" {
		field("year", y)
	}
	if isoDate.MatchString(s.Date) {
		field("month", strings.TrimLeft(s.Date[5:7], "0"))
	}
	field("doi", bibEscape(s.DOI))
	if u, ok := s.Links["paper"]; ok {
		field("url", bibURL(u))
	} else if s.DOI != "" {
		// The DOI is a path on doi.org: its own % ? # are characters
		// of the DOI, so they are encoded too.
		field("url", bibURL("https://doi.org/"+strings.ReplaceAll(url.PathEscape(s.DOI), "%2F", "/")))
	}
	if s.License != "" {
		field("note", "License: "+bibEscape(s.License))
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

func sortedStrings(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
