package report

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// Narrative pages cite results instead of copying them (SPEC §7):
//
//	{{figure leaderboard}}            the figure, numbered, with its caption (on a line of its own)
//	{{table leaderboard-pairs}}       the table, numbered, with its title (on a line of its own)
//	{{ref leaderboard}}               "Figure 3" (or "Table 2"), linked; fig:ID / tab:ID pick one
//	{{value meta summary.effect %.3f}} a number from data/meta.json, formatted
//	[@key] or [@a; @b]                citations from the manifest's bibliography
//
// Paths into the JSON are dotted; [n] indexes a list and [col=value]
// picks the row of a table whose column has that value:
// {{value leaderboard tables.leaderboard[method=EASE].mean_rank %.2f}}.
// Directives in code spans and fenced code blocks are left alone. A
// broken reference is a build error naming the page and line.

var (
	inlineMathRe = regexp.MustCompile(`\$([^$\s](?:[^$]*?[^$\s\\])?)\$([^0-9]|$)`)
	directiveRe  = regexp.MustCompile(`\{\{\s*(figure|table|ref|value)\s+([^{}]*?)\s*\}\}`)
	citeRe       = regexp.MustCompile(`\[(@[A-Za-z0-9_:.#$%&+?<>~/-]+(?:\s*;\s*@[A-Za-z0-9_:.#$%&+?<>~/-]+)*)\]`)
)

// refTarget is a numbered figure or table somewhere on the site.
type refTarget struct {
	Kind    string // "Figure" or "Table"
	ID      string
	Num     int
	Page    string // analysis id whose page holds it
	fig     *figureView
	tab     *tableView
	caption string
}

// narrative resolves directives for one page.
type narrative struct {
	b       *siteBuild
	page    string // manifest path of the page, for errors
	format  string // "html" or "md"
	root    string // prefix of links to other pages
	tokens  map[string]string
	n       int
	errs    Errors
	cited   []string
	citeNum map[string]int
	math    bool // the page has math: load KaTeX
}

// targets indexes every figure and table of the site by id.
func (b *siteBuild) targets() map[string][]refTarget {
	if b.refs != nil {
		return b.refs
	}
	b.refs = map[string][]refTarget{}
	for _, v := range b.views {
		for i := range v.Figures {
			f := &v.Figures[i]
			b.refs[f.ID] = append(b.refs[f.ID], refTarget{Kind: "Figure", ID: f.ID, Num: f.Num, Page: v.ID, fig: f, caption: f.Caption})
		}
		for i := range v.Tables {
			t := &v.Tables[i]
			b.refs[t.ID] = append(b.refs[t.ID], refTarget{Kind: "Table", ID: t.ID, Num: t.Num, Page: v.ID, tab: t, caption: t.Title})
		}
	}
	return b.refs
}

// resolve picks the target of a reference: "fig:ID", "tab:ID", or an id
// that names one figure or one table (a figure when it names both).
func (b *siteBuild) resolve(ref, want string) (refTarget, error) {
	kind := want
	switch {
	case strings.HasPrefix(ref, "fig:"):
		kind, ref = "Figure", ref[4:]
	case strings.HasPrefix(ref, "tab:"):
		kind, ref = "Table", ref[4:]
	}
	all := b.targets()
	for _, t := range all[ref] {
		if kind == "" || t.Kind == kind {
			return t, nil
		}
	}
	var ids []string
	for id, ts := range all {
		for _, t := range ts {
			if kind == "" || t.Kind == kind {
				ids = append(ids, id)
				break
			}
		}
	}
	sort.Strings(ids)
	what := "figure or table"
	if kind != "" {
		what = strings.ToLower(kind)
	}
	return refTarget{}, fmt.Errorf("unknown %s %q%s", what, ref, analyses.DidYouMean(ref, ids))
}

// expand replaces directives and citations in src. In HTML mode they
// become placeholder tokens (goldmark then escapes nothing of ours) that
// fill() swaps for HTML after rendering; in Markdown mode they become
// Markdown.
func (n *narrative) expand(src string) string {
	lines := strings.Split(src, "\n")
	fence := ""
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if fence == "" && strings.HasPrefix(trimmed, "$$") && n.format == "html" {
			// display math: up to the line that ends with $$
			j := i
			body := strings.TrimPrefix(trimmed, "$$")
			for !strings.HasSuffix(strings.TrimSpace(body), "$$") && j+1 < len(lines) {
				j++
				body += "\n" + lines[j]
			}
			if strings.HasSuffix(strings.TrimSpace(body), "$$") {
				tex := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body), "$$"))
				n.math = true
				lines[i] = n.token(`<div class="math display" data-tex="` + html.EscapeString(tex) + `">` + html.EscapeString(tex) + `</div>`)
				for k := i + 1; k <= j; k++ {
					lines[k] = ""
				}
				i = j
				continue
			}
		}
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		lines[i] = n.expandLine(line, i+1)
	}
	return strings.Join(lines, "\n")
}

// expandLine handles one line outside fenced code, skipping code spans.
func (n *narrative) expandLine(line string, lineNo int) string {
	var out strings.Builder
	for len(line) > 0 {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			out.WriteString(n.expandText(line, lineNo))
			break
		}
		out.WriteString(n.expandText(line[:i], lineNo))
		run := 1
		for i+run < len(line) && line[i+run] == '`' {
			run++
		}
		ticks := line[i : i+run]
		end := strings.Index(line[i+run:], ticks)
		if end < 0 {
			out.WriteString(line[i:])
			break
		}
		out.WriteString(line[i : i+run+end+run])
		line = line[i+run+end+run:]
	}
	return out.String()
}

func (n *narrative) expandText(s string, lineNo int) string {
	if n.format == "html" {
		s = inlineMathRe.ReplaceAllStringFunc(s, func(m string) string {
			sub := inlineMathRe.FindStringSubmatch(m)
			n.math = true
			return n.token(`<span class="math" data-tex="`+html.EscapeString(sub[1])+`">`+html.EscapeString(sub[1])+`</span>`) + sub[2]
		})
	}
	s = directiveRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := directiveRe.FindStringSubmatch(m)
		out, err := n.directive(sub[1], strings.Fields(sub[2]))
		if err != nil {
			n.errs = append(n.errs, fmt.Errorf("%s:%d: %s: %v", n.page, lineNo, strings.TrimSpace(m), err))
			return m
		}
		return out
	})
	return citeRe.ReplaceAllStringFunc(s, func(m string) string {
		out, err := n.cite(m[1 : len(m)-1])
		if err != nil {
			n.errs = append(n.errs, fmt.Errorf("%s:%d: %s: %v", n.page, lineNo, m, err))
			return m
		}
		return out
	})
}

// token stores HTML for fill() and returns its placeholder.
func (n *narrative) token(htmlText string) string {
	n.n++
	t := fmt.Sprintf("EVALBOOKTOKEN%04dX", n.n)
	n.tokens[t] = htmlText
	return t
}

func (n *narrative) directive(name string, args []string) (string, error) {
	b := n.b
	switch name {
	case "figure", "table":
		if len(args) != 1 {
			return "", fmt.Errorf("want {{%s ID}}", name)
		}
		want := "Figure"
		if name == "table" {
			want = "Table"
		}
		t, err := b.resolve(args[0], want)
		if err != nil {
			return "", err
		}
		if n.format == "md" {
			if t.fig != nil {
				return fmt.Sprintf("![%s](figures/%s.svg)\n\n**Figure %d.** %s", mdText(t.fig.Title), t.ID, t.Num, mdText(t.caption)), nil
			}
			return fmt.Sprintf("**Table %d.** %s ([CSV](data/%s.csv))\n\n%s", t.Num, mdText(t.caption), t.ID, mdTable(*t.tab)), nil
		}
		var buf strings.Builder
		tmpl := "figure"
		var data any = t.fig
		if t.tab != nil {
			tmpl, data = "table", t.tab
		}
		if err := b.tmpl.ExecuteTemplate(&buf, tmpl, data); err != nil {
			return "", err
		}
		return n.token(buf.String()), nil
	case "ref":
		if len(args) != 1 {
			return "", fmt.Errorf("want {{ref ID}}")
		}
		t, err := b.resolve(args[0], "")
		if err != nil {
			return "", err
		}
		label := fmt.Sprintf("%s %d", t.Kind, t.Num)
		if n.format == "md" {
			return fmt.Sprintf("[%s](%s.md#%s)", label, t.Page, t.ID), nil
		}
		return n.token(fmt.Sprintf(`<a class="xref" href="%s%s.html#%s">%s</a>`, n.root, html.EscapeString(t.Page), html.EscapeString(t.ID), label)), nil
	case "value":
		if len(args) < 2 || len(args) > 3 {
			return "", fmt.Errorf("want {{value ANALYSIS PATH [FORMAT]}}")
		}
		v, err := b.lookup(args[0], args[1])
		if err != nil {
			return "", err
		}
		format := ""
		if len(args) == 3 {
			format = args[2]
		}
		s, err := formatValue(v, format)
		if err != nil {
			return "", err
		}
		if n.format == "md" {
			return mdText(s), nil
		}
		return n.token(`<span class="value" title="` + html.EscapeString(args[0]+" "+args[1]) + `">` + html.EscapeString(s) + `</span>`), nil
	}
	return "", fmt.Errorf("unknown directive %q", name)
}

// lookup follows a path into an analysis's JSON document.
func (b *siteBuild) lookup(id, path string) (any, error) {
	doc, ok := b.docs[id]
	if !ok {
		ids := make([]string, 0, len(b.docs))
		for k := range b.docs {
			ids = append(ids, k)
		}
		sort.Strings(ids)
		return nil, fmt.Errorf("no analysis %q%s", id, analyses.DidYouMean(id, ids))
	}
	var cur any = doc
	walked := id
	for _, part := range splitPath(path) {
		switch {
		case strings.HasPrefix(part, "["):
			sel := part[1 : len(part)-1]
			list, ok := cur.([]any)
			if !ok {
				return nil, fmt.Errorf("%s is not a list", walked)
			}
			if k, err := strconv.Atoi(sel); err == nil {
				if k < 0 || k >= len(list) {
					return nil, fmt.Errorf("%s has %d entries, no [%d]", walked, len(list), k)
				}
				cur = list[k]
			} else if eq := strings.IndexByte(sel, '='); eq > 0 {
				col, want := sel[:eq], sel[eq+1:]
				var found any
				for _, row := range list {
					if m, ok := row.(map[string]any); ok && fmt.Sprint(m[col]) == want {
						found = row
						break
					}
				}
				if found == nil {
					return nil, fmt.Errorf("%s has no row with %s = %q", walked, col, want)
				}
				cur = found
			} else {
				return nil, fmt.Errorf("bad selector %q (want [n] or [column=value])", part)
			}
		default:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s has no key %q", walked, part)
			}
			next, ok := m[part]
			if !ok {
				keys := make([]string, 0, len(m))
				for k := range m {
					keys = append(keys, k)
				}
				return nil, fmt.Errorf("%s has no key %q%s", walked, part, analyses.DidYouMean(part, keys))
			}
			cur = next
		}
		walked += "." + part
	}
	return cur, nil
}

// splitPath splits "tables.lb[method=A].x" into "tables", "lb",
// "[method=A]", "x"; a key may contain dashes (table ids do).
func splitPath(p string) []string {
	var parts []string
	for len(p) > 0 {
		switch p[0] {
		case '.':
			p = p[1:]
		case '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return append(parts, p)
			}
			parts = append(parts, p[:end+1])
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			parts = append(parts, p[:end])
			p = p[end:]
		}
	}
	return parts
}

// formatValue prints a JSON value with a printf verb for numbers (default
// four significant digits).
func formatValue(v any, format string) (string, error) {
	switch x := v.(type) {
	case float64:
		if format == "" {
			return strconv.FormatFloat(x, 'g', 4, 64), nil
		}
		if !strings.HasPrefix(format, "%") || strings.Count(format, "%") != 1 {
			return "", fmt.Errorf("format %q: want one printf verb such as %%.3f", format)
		}
		if strings.HasSuffix(format, "d") {
			return fmt.Sprintf(format, int64(math.Round(x))), nil
		}
		return fmt.Sprintf(format, x), nil
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case nil:
		return "", fmt.Errorf("the value is missing (null)")
	}
	return "", fmt.Errorf("the value is a %s, not a number or text", jsonKind(v))
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "list"
	}
	return fmt.Sprintf("%T", v)
}

// fill swaps placeholder tokens in rendered HTML for their HTML; a token
// alone in a paragraph replaces the paragraph (figures and tables).
func (n *narrative) fill(out string) string {
	for t, h := range n.tokens {
		out = strings.ReplaceAll(out, "<p>"+t+"</p>", h)
		out = strings.ReplaceAll(out, t, h)
	}
	return out
}

// parseDoc decodes an analysis JSON document for value lookups.
func parseDoc(b []byte) (map[string]any, error) {
	var m map[string]any
	err := json.Unmarshal(b, &m)
	return m, err
}
