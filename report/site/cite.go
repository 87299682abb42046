package site

import (
	"fmt"
	"html"
	"sort"
	"strings"
	"unicode"

	"github.com/evalbook/evalbook/analyses"
)

// surnames returns the family names of the authors ("Last, First" or
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

// CiteLabel is an entry's author–year label: "Surname Year", "A & B
// Year" or "A et al. Year", "A & B Year" or "A et al. Year".
func CiteLabel(e *BibEntry) string {
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
	bib := n.b.m.Bibliography
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
			parts = append(parts, fmt.Sprintf("[%s](#ref-%s)", mdText(CiteLabel(e)), mdAnchor(key)))
		} else {
			parts = append(parts, fmt.Sprintf(`<a class="cite" href="#ref-%s">%s</a>`, html.EscapeString(anchor(key)), html.EscapeString(CiteLabel(e))))
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
		a, b := n.b.m.Bibliography[keys[i]], n.b.m.Bibliography[keys[j]]
		la, lb := strings.ToLower(CiteLabel(a)), strings.ToLower(CiteLabel(b))
		if la != lb {
			return la < lb
		}
		return keys[i] < keys[j]
	})
	var buf strings.Builder
	if n.format == "md" {
		buf.WriteString("\n\n## References\n\n")
		for _, k := range keys {
			e := n.b.m.Bibliography[k]
			fmt.Fprintf(&buf, "- <a id=\"ref-%s\"></a>%s\n", mdAnchor(k), mdText(referenceText(e)))
		}
		return buf.String()
	}
	buf.WriteString(`<section class="references"><h2>References</h2><ol>`)
	for _, k := range keys {
		e := n.b.m.Bibliography[k]
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
