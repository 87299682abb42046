package site

import (
	"encoding/json"
	"html"
	"sort"
	"strings"
)

// searchEntry is one searchable page (or name) of the site.
type searchEntry struct {
	Title string `json:"t"`
	URL   string `json:"u"`
	Kind  string `json:"k"`
	Text  string `json:"x"`
}

// plainText strips HTML to searchable text.
func plainText(h string) string {
	return strings.TrimSpace(collapseSpace(html.UnescapeString(stripTags(h))))
}

// stripTags replaces every script and style element (from its opening
// tag to the first closing tag of either) and every other tag with a
// space, as the regular expression
// (?s)<(script|style)[^>]*>.*?</(script|style)>|<[^>]+> does (the
// search test holds them equal), without the regexp engine: it was most
// of the search index's time, run on every build.
func stripTags(h string) string {
	var b strings.Builder
	last := 0
	for i := 0; ; {
		j := strings.IndexByte(h[i:], '<')
		if j < 0 {
			break
		}
		p := i + j
		end := tagEnd(h, p)
		if end < 0 {
			i = p + 1
			continue
		}
		if b.Cap() == 0 {
			b.Grow(len(h))
		}
		b.WriteString(h[last:p])
		b.WriteByte(' ')
		last, i = end, end
	}
	if last == 0 {
		return h
	}
	b.WriteString(h[last:])
	return b.String()
}

// tagEnd is the end of the tag, or the script or style element, that
// starts at h[p] == '<'; -1 if none does.
func tagEnd(h string, p int) int {
	gt := strings.IndexByte(h[p+1:], '>')
	if gt < 0 {
		return -1
	}
	if rest := h[p+1:]; strings.HasPrefix(rest, "script") || strings.HasPrefix(rest, "style") {
		body := p + 1 + gt + 1
		end := -1
		for _, closing := range []string{"</script>", "</style>"} {
			if k := strings.Index(h[body:], closing); k >= 0 && (end < 0 || body+k+len(closing) < end) {
				end = body + k + len(closing)
			}
		}
		if end >= 0 {
			return end
		}
	}
	if gt == 0 { // "<>": no tag
		return -1
	}
	return p + 1 + gt + 1
}

// collapseSpace replaces each run of ASCII white space (\t \n \f \r and
// the space: the regular expression \s) with one space.
func collapseSpace(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		if !isSpace(s[i]) {
			if b != nil {
				b = append(b, s[i])
			}
			continue
		}
		j := i + 1
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		if b == nil {
			if s[i] == ' ' && j == i+1 {
				continue // a lone space stays as it is
			}
			b = append(make([]byte, 0, len(s)), s[:i]...)
		}
		b = append(b, ' ')
		i = j - 1
	}
	if b == nil {
		return s
	}
	return string(b)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// searchIndex builds assets/search.js: a script (not JSON, so it loads
// from file:// where fetch cannot) that sets window.EVALBOOK_INDEX. Every
// page, analysis, method, dataset and metric name is findable.
func (b *siteBuild) searchIndex(pageText map[string]string) []byte {
	var entries []searchEntry
	entries = append(entries, searchEntry{Title: b.study.Title, URL: "index.html", Kind: "overview", Text: plainText(b.study.Abstract)})
	for _, p := range b.m.Pages {
		entries = append(entries, searchEntry{Title: p.Title, URL: p.Slug + ".html", Kind: "page", Text: pageText[p.Slug]})
	}
	names := map[string]map[string]string{"method": {}, "dataset": {}, "metric": {}}
	for _, v := range b.views {
		var text strings.Builder
		text.WriteString(v.Caption + " " + v.Kind + " ")
		for _, n := range v.Notes {
			text.WriteString(n + " ")
		}
		for _, f := range v.Figures {
			text.WriteString(f.Title + " " + f.Caption + " ")
		}
		for _, t := range v.Tables {
			text.WriteString(t.Title + " " + strings.Join(t.table.Columns, " ") + " ")
			seen := map[string]bool{}
			for _, row := range t.table.Rows {
				for c, cell := range row {
					s, ok := cell.(string)
					if !ok || seen[s] {
						continue
					}
					seen[s] = true
					text.WriteString(s + " ")
					col := t.table.Columns[c]
					for _, kind := range []string{"method", "dataset", "metric"} {
						if (col == kind || col == "model" && kind == "method") && names[kind][s] == "" {
							names[kind][s] = v.ID + ".html"
						}
					}
				}
			}
		}
		text.WriteString(plainText(string(v.Method)))
		entries = append(entries, searchEntry{Title: v.Title, URL: v.ID + ".html", Kind: "analysis", Text: collapseSpace(text.String())})
	}
	for _, kind := range []string{"method", "dataset", "metric"} {
		keys := make([]string, 0, len(names[kind]))
		for k := range names[kind] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			entries = append(entries, searchEntry{Title: k, URL: names[kind][k], Kind: kind})
		}
	}
	js, _ := json.Marshal(entries)
	return append(append([]byte("window.EVALBOOK_INDEX="), js...), ";\n"...)
}
