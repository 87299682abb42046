package site

import (
	"encoding/json"
	"html"
	"regexp"
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

var (
	tagRe   = regexp.MustCompile(`(?s)<(script|style)[^>]*>.*?</(script|style)>|<[^>]+>`)
	spaceRe = regexp.MustCompile(`\s+`)
)

// plainText strips HTML to searchable text.
func plainText(h string) string {
	return strings.TrimSpace(spaceRe.ReplaceAllString(html.UnescapeString(tagRe.ReplaceAllString(h, " ")), " "))
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
		entries = append(entries, searchEntry{Title: v.Title, URL: v.ID + ".html", Kind: "analysis", Text: spaceRe.ReplaceAllString(text.String(), " ")})
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
