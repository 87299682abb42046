package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/report/manifest"
)

// Ids stay in data/*.csv and data/*.json and in title attributes; every
// other output shows labels (analyses.Naming, the one place names come
// from). This file walks every output of the demo for a raw id that has
// a label.

// leakOwnedElsewhere are the places where an id may still show, reported
// and not failed: none (every output of the demo shows labels).
var leakOwnedElsewhere = map[string]string{}

// leak is one raw id found where its label belongs.
type leak struct {
	file, where, id, label, context string
}

// namesOfPeople are ids whose label only capitalises them, but which are
// names and so never lower-case in prose ("spearman 0.98" is an id).
var namesOfPeople = map[string]bool{"spearman": true, "pearson": true, "kendall": true, "borda": true,
	"copeland": true, "dowdall": true, "pratt": true, "wilcoxon": true, "welch": true}

// ordinaryWords are ids that are also words of prose ("the test is not
// recommended"): they cannot be told from the prose around them.
var ordinaryWords = map[string]bool{"recommended": true, "sign": true, "beta": true, "core": true, "hat": true,
	"chosen": true, "included": true, "significant": true, "influential": true, "checked": true}

// checkable reports whether an id is looked for in text: an id of one
// or two characters ("a", "p", "df") cannot be told from prose, and
// neither can an ordinary word its label only capitalises ("mean" →
// "Mean", "random" → "Random") or extends (ordinaryWords); an acronym
// ("rmse" → "RMSE") and a person's name are looked for.
func checkable(id, label string) bool {
	if label == id || len(id) < 3 || ordinaryWords[id] {
		return false
	}
	if strings.EqualFold(id, label) && strings.ToLower(id) == id && isWord(id) && !namesOfPeople[id] {
		return strings.ToUpper(label) == label // an acronym
	}
	return true
}

// labelledIDs are the ids of the site's data with a label other than
// themselves: every header (Naming.Column) and every text cell, named by
// its column (Naming.Cell) of data/*.csv, and every declared label.
func labelledIDs(t *testing.T, site string, n analyses.Naming) map[string]string {
	t.Helper()
	ids := map[string]string{}
	add := func(id, label string) {
		if checkable(id, label) {
			ids[id] = label
		}
	}
	files, err := filepath.Glob(filepath.Join(site, "data", "*.csv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no data/*.csv in %s (%v)", site, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil || len(rows) == 0 {
			t.Fatalf("%s: %v", f, err)
		}
		for _, h := range rows[0] {
			add(h, n.Column(h))
		}
		for _, row := range rows[1:] {
			for j, c := range row {
				if j < len(rows[0]) && c != "" && !isNumber(c) {
					add(c, n.Cell(rows[0][j], c))
				}
			}
		}
	}
	for _, m := range []map[string]string{n.Metrics, n.Methods, n.Datasets, n.Rules} {
		for id, l := range m {
			add(id, l)
		}
	}
	return ids
}

// isWord reports whether s is letters only.
func isWord(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

func isNumber(s string) bool {
	if strings.TrimLeft(s, "+-.0123456789eE") != "" {
		return false // (most text: decided before fmt's scanner is started)
	}
	_, err := fmt.Sscan(s, new(float64))
	return err == nil
}

// idRune is a character that continues an id: an id is found only
// where the text around it does not continue it.
func idRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '@' || r == '-'
}

// findIDs returns every id of ids found as a whole word in text, with
// the place of its first such occurrence.
func findIDs(text string, ids map[string]string) map[string]int {
	found := map[string]int{}
	for id := range ids {
		for i := 0; ; {
			k := strings.Index(text[i:], id)
			if k < 0 {
				break
			}
			at, end := i+k, i+k+len(id)
			i = at + 1
			if at > 0 {
				r := lastRune(text[:at])
				if idRune(r) || r == '.' || r == '/' || r == '#' || r == '\\' {
					continue
				}
			}
			if end < len(text) {
				r := firstRune(text[end:])
				if idRune(r) || (r == '.' && end+1 < len(text) && unicode.IsDigit(firstRune(text[end+1:]))) {
					continue
				}
			}
			found[id] = at
			break
		}
	}
	return found
}

func lastRune(s string) rune {
	r := []rune(s[max(0, len(s)-4):])
	return r[len(r)-1]
}

func firstRune(s string) rune {
	for _, r := range s {
		return r
	}
	return 0
}

// scanner collects the leaks of one site.
type scanner struct {
	ids    map[string]string
	author []string // the manifest's own words (titles, captions): the author's, not ours
	leaks  []leak
}

func (s *scanner) check(file, where, text string) {
	for _, a := range s.author {
		text = strings.ReplaceAll(text, a, " ")
	}
	for id, i := range findIDs(text, s.ids) {
		from, to := max(0, i-40), min(len(text), i+len(id)+40)
		for from > 0 && !utf8.RuneStart(text[from]) {
			from--
		}
		for to < len(text) && !utf8.RuneStart(text[to]) {
			to++
		}
		ctx := text[from:to]
		s.leaks = append(s.leaks, leak{file: file, where: where, id: id, label: s.ids[id], context: strings.Join(strings.Fields(ctx), " ")})
	}
}

var (
	reComment   = regexp.MustCompile(`(?s)<!--.*?-->`)
	reTypeSpan  = regexp.MustCompile(`<span class="type">[^<]*</span>`)
	reStyle     = regexp.MustCompile(`(?s)<style[^>]*>.*?</style>`)
	reScript    = regexp.MustCompile(`(?s)<script[^>]*>(.*?)</script>`)
	reTag       = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>`)
	reShownAttr = regexp.MustCompile(`\s(alt|aria-label|placeholder)="([^"]*)"`)
	reOption    = regexp.MustCompile(`\sdata-option="([^"]*)"`)
	reChartJSON = regexp.MustCompile(`(?s)EVALBOOK_CHARTS[^=]*\]\s*=\s*(\{.*?\});?\s*(?:$|\(window)`)
)

// html checks a page: its text, its shown attributes (alt, aria-label;
// never title, href, id) and its charts' options. Text inside code and
// pre is code; text inside a table is the tables' (html-table).
func (s *scanner) html(file, page string) {
	page = reComment.ReplaceAllString(page, " ")
	page = reStyle.ReplaceAllString(page, " ")
	// an analysis's type is shown as the manifest writes it (type =
	// "critical_difference"), a name of the tool like an option's
	page = reTypeSpan.ReplaceAllString(page, " ")
	for _, m := range reScript.FindAllStringSubmatch(page, -1) {
		s.charts(file, m[1])
	}
	page = reScript.ReplaceAllString(page, " ")
	var text strings.Builder
	where := func(code, table int, caption bool) string {
		switch {
		case table > 0:
			return "html-table"
		case caption:
			return "html-figcaption"
		}
		return "html-text"
	}
	code, table, caption := 0, 0, false
	flush := func() {
		if code == 0 {
			s.check(file, where(code, table, caption), html.UnescapeString(text.String()))
		}
		text.Reset()
	}
	last := 0
	for _, m := range reTag.FindAllStringSubmatchIndex(page, -1) {
		text.WriteString(page[last:m[0]])
		last = m[1]
		closing, name, attrs := page[m[2]:m[3]] == "/", strings.ToLower(page[m[4]:m[5]]), page[m[6]:m[7]]
		flush()
		for _, a := range reShownAttr.FindAllStringSubmatch(attrs, -1) {
			s.check(file, "html-"+a[1], html.UnescapeString(a[2]))
		}
		for _, a := range reOption.FindAllStringSubmatch(attrs, -1) {
			s.option(file, html.UnescapeString(a[1]))
		}
		d := 1
		if closing {
			d = -1
		}
		switch name {
		case "code", "pre", "kbd", "samp":
			code = max(0, code+d)
		case "table":
			table = max(0, table+d)
		case "figcaption":
			caption = !closing
		case "br", "p", "li", "td", "th", "div", "h1", "h2", "h3", "dt", "dd":
			text.WriteString(" ")
		}
	}
	text.WriteString(page[last:])
	flush()
}

// charts checks the ECharts options a script sets (data/charts/*.js).
func (s *scanner) charts(file, script string) {
	for _, m := range reChartJSON.FindAllStringSubmatch(script, -1) {
		s.option(file, m[1])
	}
}

// option checks an ECharts option: every string of it, as the chart
// shows it, but for the keys that hold no text (type, colour, place).
func (s *scanner) option(file, src string) {
	{
		var v any
		if err := json.Unmarshal([]byte(src), &v); err != nil {
			s.leaks = append(s.leaks, leak{file: file, where: "echarts", id: "(an option that is not JSON)", context: src[:min(len(src), 80)]})
			return
		}
		var walk func(key string, v any)
		walk = func(key string, v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					walk(k, e)
				}
			case []any:
				for _, e := range x {
					walk(key, e)
				}
			case string:
				switch key {
				case "type", "id", "symbol", "color", "trigger", "position", "orient", "align", "verticalAlign", "left", "right", "top", "bottom", "fontFamily":
					return
				}
				s.check(file, "echarts", x)
			}
		}
		walk("", v)
	}
}

var (
	reSVGText  = regexp.MustCompile(`(?s)<text[^>]*>(.*?)</text>`)
	reTeXLabel = regexp.MustCompile(`\\(label|ref|input|includegraphics|cite|citep|citet|begin|end|usepackage|documentclass|newcommand|renewcommand)(\[[^\]]*\])?\{[^}]*\}`)
	reTeXCmd   = regexp.MustCompile(`\\[A-Za-z]+`)
	reMDCode   = regexp.MustCompile("(?s)```.*?```|`[^`\n]*`")
	reMDLink   = regexp.MustCompile(`\]\([^)]*\)`)
	reMDTag    = regexp.MustCompile(`<[^>]*>`)
	reMDEscape = regexp.MustCompile("\\\\([!-/:-@\\[-`{-~])")
)

// svg checks the text a figure draws (never its <title>).
func (s *scanner) svg(file, src string) {
	for _, m := range reSVGText.FindAllStringSubmatch(src, -1) {
		s.check(file, "svg", html.UnescapeString(reMDTag.ReplaceAllString(m[1], "")))
	}
}

// latex checks a LaTeX file without its comments, labels, references
// and command names.
func (s *scanner) latex(file, where, src string) {
	var b strings.Builder
	for _, line := range strings.Split(src, "\n") {
		for i := 0; i < len(line); i++ {
			if line[i] == '%' && (i == 0 || line[i-1] != '\\') {
				line = line[:i]
				break
			}
		}
		b.WriteString(line + "\n")
	}
	text := reTeXLabel.ReplaceAllString(b.String(), " ")
	text = strings.NewReplacer(`\_`, "_", `\&`, "&", `\%`, "%", `\#`, "#", `\@`, "@", "{", " ", "}", " ").Replace(text)
	s.check(file, where, reTeXCmd.ReplaceAllString(text, " "))
}

// markdown checks a Markdown file without its code, link targets and
// tags; table rows are the tables' (md-table).
func (s *scanner) markdown(file, src string) {
	src = reMDCode.ReplaceAllString(src, " ")
	src = reMDLink.ReplaceAllString(src, "] ")
	for _, m := range reShownAttr.FindAllStringSubmatch(src, -1) {
		s.check(file, "md-"+m[1], html.UnescapeString(m[2]))
	}
	src = reMDTag.ReplaceAllString(src, " ")
	src = reMDEscape.ReplaceAllString(src, "$1") // d\_optimal reads d_optimal
	var text, table strings.Builder
	for _, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "|") {
			table.WriteString(line + "\n")
		} else {
			text.WriteString(line + "\n")
		}
	}
	s.check(file, "md-text", html.UnescapeString(text.String()))
	s.check(file, "md-table", html.UnescapeString(table.String()))
}

// scanSite walks every output of a built site but its data files and
// the author's own pages (skip: their slugs).
func (s *scanner) scanSite(t *testing.T, site string, skip map[string]bool) {
	t.Helper()
	err := filepath.WalkDir(site, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(site, path)
		rel = filepath.ToSlash(rel)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		src := string(b)
		if slug := strings.TrimSuffix(strings.TrimSuffix(rel, ".html"), ".md"); skip[slug] {
			return nil // the author's page: its words are theirs (other pages cover its navigation)
		}
		switch {
		case strings.HasPrefix(rel, "data/") && (strings.HasSuffix(rel, ".csv") || strings.HasSuffix(rel, ".json")):
			// ids stay in the data
		case strings.HasPrefix(rel, "assets/"):
			// the site's own scripts and styles
		case strings.HasPrefix(rel, "data/charts/"):
			s.charts(rel, src)
		case strings.HasSuffix(rel, ".html"):
			s.html(rel, src)
		case strings.HasSuffix(rel, ".svg"):
			s.svg(rel, src)
		case strings.HasSuffix(rel, ".md"):
			s.markdown(rel, src)
		case strings.HasSuffix(rel, ".tex"):
			where := "latex-table"
			switch rel {
			case "paper/evalbook.tex":
				where = "latex-macros"
			case "paper/example.tex":
				where = "latex-example"
			}
			s.latex(rel, where, src)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// report fails on every leak outside leakOwnedElsewhere and logs the
// others, one line per place, id and file.
func (s *scanner) report(t *testing.T) {
	t.Helper()
	type key struct{ where, id string }
	files := map[key][]string{}
	ctx := map[key]string{}
	for _, l := range s.leaks {
		k := key{l.where, l.id}
		if len(files[k]) == 0 {
			ctx[k] = l.context
		}
		files[k] = append(files[k], l.file)
	}
	keys := make([]key, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].where != keys[j].where {
			return keys[i].where < keys[j].where
		}
		return keys[i].id < keys[j].id
	})
	for _, k := range keys {
		f := files[k]
		more := ""
		if len(f) > 2 {
			more = fmt.Sprintf(" and %d more", len(f)-2)
			f = f[:2]
		}
		msg := fmt.Sprintf("%s: %q shown where its label %q belongs, in %s%s: …%s…", k.where, k.id, s.ids[k.id], strings.Join(f, ", "), more, ctx[k])
		if _, owned := leakOwnedElsewhere[k.where]; owned {
			t.Log("owned elsewhere: " + msg)
		} else {
			t.Error(msg)
		}
	}
}

// authorWords are the manifest's own titles and captions: words the
// author wrote ("LightGCN vs MostPop, by domain") are theirs to choose.
func authorWords(s *manifest.Study) []string {
	words := []string{s.Title, s.Subtitle}
	for _, a := range s.Analyses {
		words = append(words, a.Title, a.Caption)
	}
	for _, p := range s.Pages {
		words = append(words, p.Title)
	}
	var out []string
	for _, w := range words {
		if w = strings.TrimSpace(w); w != "" {
			out = append(out, w)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// TestDemoShowsNoIDs builds the demo once with the site, its Markdown
// and paper/ (--format both and --format paper in one build), and walks
// every output — page text and shown attributes (HTML and Markdown),
// key findings, ECharts options, SVG text, LaTeX tables, macros and the
// example document — for a raw id that has a label: a method, dataset,
// metric, rule, feature, strategy, perturbation, a table's column or a
// statistic (every header and text cell of data/*.csv, named through
// the study's Naming). Ids may stay in data/*.csv and data/*.json, in
// title attributes, in code and in link targets; the manifest's own
// titles and captions are the author's words. Leaks in the places
// leakOwnedElsewhere lists are logged, the rest fail.
func TestDemoShowsNoIDs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the whole demo study")
	}
	t.Parallel()
	study, site := builtDemo(t)
	s := &scanner{ids: labelledIDs(t, site, study.Naming()), author: authorWords(study)}
	for _, want := range []string{"MostPop", "ndcg@10", "friedman_statistic", "d_optimal", "LTku", "dm_auc_rank"} {
		if _, ok := s.ids[want]; !ok {
			t.Errorf("the walk does not look for %q", want)
		}
	}
	pages := map[string]bool{}
	for _, p := range study.Pages {
		pages[p.Slug] = true
	}
	s.scanSite(t, site, pages)
	for _, f := range []string{"index.html", "README.md", "paper/evalbook.tex", "paper/example.tex"} {
		if _, err := os.Stat(filepath.Join(site, f)); err != nil {
			t.Errorf("the walk misses %s: %v", f, err)
		}
	}
	s.report(t)
}

// TestLeakScanner plants ids in each kind of output: each is found where
// it is shown, and none where ids may stay (a title attribute, a link
// target, code, a LaTeX label or comment, an SVG title, the author's
// own title).
func TestLeakScanner(t *testing.T) {
	t.Parallel()
	ids := map[string]string{"MostPop": "Most popular", "ndcg@20": "nDCG@20", "d_optimal": "D-optimal", "rmse": "RMSE"}
	for _, c := range []struct {
		kind, src, want string
	}{
		{"html", `<p>EASE beats MostPop.</p>`, "html-text MostPop"},
		{"html", `<p title="MostPop">Most popular</p><a href="leaderboard-rmse.html#MostPop">x</a><code>ndcg@20</code>`, ""},
		{"html", `<img alt="nDCG@20 of d_optimal">`, "html-alt d_optimal"},
		{"html", `<table><tr><th>ndcg@20</th></tr></table>`, "html-table ndcg@20"},
		{"html", `<figure><figcaption>rmse by dataset</figcaption></figure>`, "html-figcaption rmse"},
		{"html", `<p>LightGCN vs MostPop, by domain</p>`, ""}, // the author's title
		{"html", `<p>ndcg@20.</p><p>rmse@10 and xrmse</p>`, "html-text ndcg@20"},
		{"html", `<script>(window.EVALBOOK_CHARTS=window.EVALBOOK_CHARTS||{})["a"]={"legend":{"data":["MostPop"]},"type":"rmse"};</script>`, "echarts MostPop"},
		{"html", `<div class="echart" data-option="{&#34;xAxis&#34;:{&#34;name&#34;:&#34;ndcg@20&#34;},&#34;type&#34;:&#34;rmse&#34;}"></div>`, "echarts ndcg@20"},
		{"svg", `<svg><title>MostPop</title><text x="1">ndcg@20</text></svg>`, "svg ndcg@20"},
		{"latex", "% MostPop\n\\label{tab:rmse}\\newcommand{\\ebX}{D-optimal}\nd\\_optimal wins", "latex-table d_optimal"},
		{"md", "See `rmse` and [x](rmse.md).\n\n| MostPop | 1 |\n\nd_optimal wins", "md-table MostPop,md-text d_optimal"},
		{"md", "a\\_optimal, d\\_optimal", "md-text d_optimal"},
	} {
		s := &scanner{ids: ids, author: []string{"LightGCN vs MostPop, by domain"}}
		switch c.kind {
		case "html":
			s.html("f", c.src)
		case "svg":
			s.svg("f", c.src)
		case "latex":
			s.latex("f", "latex-table", c.src)
		case "md":
			s.markdown("f", c.src)
		}
		var got []string
		for _, l := range s.leaks {
			got = append(got, l.where+" "+l.id)
		}
		sort.Strings(got)
		if g := strings.Join(got, ","); g != c.want {
			t.Errorf("%s %q: found %q, want %q", c.kind, c.src, g, c.want)
		}
	}
	if !checkable("spearman", "Spearman") || checkable("mean", "Mean") || !checkable("rmse", "RMSE") || checkable("df", "df") {
		t.Error("checkable: a name, an acronym or a word is misjudged")
	}
}
