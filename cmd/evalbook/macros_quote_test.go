package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report/paper"
)

// TestDemoMacrosReadAsTables: a LaTeX macro of a number that a table of
// its analysis prints reads as that table prints it (one of its cells,
// or an interval's bound, holding exactly the macro's value): a paper
// that quotes \ebX beside the table says the same digits. The exact
// values are read from data/<id>.json at the macro's JSON Pointer, the
// cells' from their titles.
func TestDemoMacrosReadAsTables(t *testing.T) {
	t.Parallel()
	site := demoSite(t)
	pages := demoPages(t)
	macroRe := regexp.MustCompile(`<code>\\(eb[A-Za-z]+)</code></td><td><code>([^<]*)</code>`)
	tableRe := regexp.MustCompile(`(?s)<thead>(.*?)</thead>\s*<tbody>(.*?)</tbody>`)
	headRe := regexp.MustCompile(`(?s)<th([^>]*)>(.*?)</th>`)
	titleRe := regexp.MustCompile(` title="([^"]*)"`)
	title := func(attrs string) string {
		if m := titleRe.FindStringSubmatch(attrs); m != nil {
			return html.UnescapeString(m[1])
		}
		return ""
	}
	rowRe := regexp.MustCompile(`(?s)<tr[^>]*>(.*?)</tr>`)
	cellRe := regexp.MustCompile(`(?s)<t[dh]([^>]*)>(.*?)</t[dh]>`)
	boundsRe := regexp.MustCompile(`^\[(.+), (.+)\]$`)
	checked := 0
	docs, _ := filepath.Glob(filepath.Join(site, "data", "*.json"))
	for _, path := range docs {
		id := strings.TrimSuffix(filepath.Base(path), ".json")
		page, ok := pages[id+".html"]
		if !ok {
			continue // not an analysis document
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		macros, err := paper.Macros([]paper.Doc{{ID: id, JSON: raw}})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		// what the page's cells print each exact value of a column as
		printed := map[string]map[string]bool{} // key + " " + value → texts
		add := func(key, v, text string) {
			if x, err := strconv.ParseFloat(v, 64); err == nil {
				k := key + " " + strconv.FormatFloat(x, 'g', -1, 64)
				if printed[k] == nil {
					printed[k] = map[string]bool{}
				}
				printed[k][text] = true
			}
		}
		for _, tm := range tableRe.FindAllStringSubmatch(page, -1) {
			var ids []string
			for _, h := range headRe.FindAllStringSubmatch(tm[1], -1) {
				id := h[2]
				if tt := title(h[1]); tt != "" {
					id = tt
				}
				ids = append(ids, html.UnescapeString(tagRe.ReplaceAllString(id, "")))
			}
			for _, row := range rowRe.FindAllStringSubmatch(tm[2], -1) {
				for j, c := range cellRe.FindAllStringSubmatch(row[1], -1) {
					exact := title(c[1])
					if j >= len(ids) || exact == "" {
						continue
					}
					// the number without its marks (significant *, tied =)
					text := strings.TrimRight(strings.TrimSpace(html.UnescapeString(tagRe.ReplaceAllString(c[2], ""))), "*=")
					if lo, hi, ok := strings.Cut(exact, " to "); ok {
						keys := strings.Split(ids[j], ", ")
						if b := boundsRe.FindStringSubmatch(text); b != nil && len(keys) == 2 {
							add(keys[0], lo, b[1])
							add(keys[1], hi, b[2])
						}
						continue
					}
					add(ids[j], exact, text)
				}
			}
		}
		shown := map[string]string{}
		for _, m := range macroRe.FindAllStringSubmatch(page, -1) {
			shown[m[1]] = html.UnescapeString(m[2])
		}
		var doc any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		for _, m := range macros {
			if len(m.Pointers) != 1 {
				continue
			}
			n, ok := atPointer(doc, m.Pointers[0]).(json.Number)
			if !ok {
				continue
			}
			v, err := strconv.ParseFloat(string(n), 64)
			key := m.Pointers[0][strings.LastIndex(m.Pointers[0], "/")+1:]
			texts := printed[key+" "+strconv.FormatFloat(v, 'g', -1, 64)]
			if err != nil || len(texts) == 0 {
				continue
			}
			got, ok := shown[m.Name]
			if !ok {
				t.Errorf("%s.html: no macro \\%s in its Cite in LaTeX box", id, m.Name)
				continue
			}
			checked++
			var want []string
			for text := range texts {
				if got == texOf(text) {
					want = nil
					break
				}
				want = append(want, texOf(text))
			}
			if want != nil {
				t.Errorf("%s: \\%s (%s = %v) is %s; its table prints %s", id, m.Name, m.Pointers[0], v, got, strings.Join(want, " or "))
			}
		}
	}
	if checked < 30 {
		t.Errorf("only %d macros of numbers the tables print", checked)
	}
	t.Logf("%d macros of numbers the tables print", checked)
}

// texOf is a number as its macro writes it (paper's texMacro).
func texOf(s string) string {
	if m, e, ok := strings.Cut(s, "e"); ok {
		if n, err := strconv.Atoi(e); err == nil {
			s = fmt.Sprintf(`%s\times 10^{%d}`, m, n)
		}
	}
	return `\ensuremath{` + s + `}`
}

// atPointer is the value at a JSON Pointer (RFC 6901) of a decoded
// document, or nil.
func atPointer(doc any, ptr string) any {
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := doc.(type) {
		case map[string]any:
			doc = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			doc = x[i]
		default:
			return nil
		}
	}
	return doc
}
