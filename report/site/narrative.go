package site

import (
	"fmt"
	"html"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/evalbook/evalbook/analyses"
)

// Narrative pages cite results instead of copying them:
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
// FORMAT is one of %.Nf, %.Ne, %.Ng, %.N% (percent), %d or %s, N ≤ 15.
// Directives in code (spans, fenced and indented blocks) and in math are
// left alone, and \{{ is a literal "{{". A broken reference, an unknown
// or unterminated directive and a bad format are build errors naming the
// page and line.

var (
	inlineMathRe = regexp.MustCompile(`\$([^$\s](?:[^$]*?[^$\s\\])?)\$([^0-9]|$)`)
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

// anchor is the HTML id of the target's element: fig-<id> for a
// figure, tab-<id> for a table (a figure and a table may share an id).
func (t refTarget) anchor() string {
	if t.Kind == "Table" {
		return "tab-" + t.ID
	}
	return "fig-" + t.ID
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
	// embedded counts the figures and tables embedded so far, by anchor
	embedded map[string]int
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

// directiveNames are the known directives, in the order errors list them.
var directiveNames = []string{"figure", "table", "ref", "value"}

// expand replaces directives and citations in src. In HTML mode they
// become placeholder tokens (goldmark then escapes nothing of ours) that
// fill() swaps for HTML after rendering; in Markdown mode they become
// Markdown. Code (spans, fenced and indented blocks, as goldmark parses
// them) and math are left as written.
func (n *narrative) expand(src string) string {
	blocks, spans := n.codeRanges(src)
	lines := strings.Split(src, "\n")
	// closes[k] is the first line at or after k that ends with $$ (len
	// when none): display math is found in one pass, not by reading on
	// from every line that opens it (a page of unclosed $$ lines cost
	// time growing with the cube of its length).
	closes := make([]int, len(lines)+1)
	closes[len(lines)] = len(lines)
	for k := len(lines) - 1; k >= 0; k-- {
		closes[k] = closes[k+1]
		if strings.HasSuffix(strings.TrimSpace(lines[k]), "$$") {
			closes[k] = k
		}
	}
	for i := 0; i < len(lines); i++ {
		if blocks[i] {
			continue
		}
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "$$") && len(spans[i]) == 0 {
			// display math: up to the line that ends with $$
			j := i
			body := strings.TrimPrefix(trimmed, "$$")
			if !strings.HasSuffix(strings.TrimSpace(body), "$$") && i+1 < len(lines) && closes[i+1] < len(lines) {
				j = closes[i+1]
				body += "\n" + strings.Join(lines[i+1:j+1], "\n")
			}
			if strings.HasSuffix(strings.TrimSpace(body), "$$") {
				if n.format == "html" {
					tex := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body), "$$"))
					n.math = true
					lines[i] = n.token(`<div class="math display" data-tex="` + html.EscapeString(tex) + `">` + html.EscapeString(tex) + `</div>`)
					for k := i + 1; k <= j; k++ {
						lines[k] = ""
					}
				}
				i = j
				continue
			}
		}
		lines[i] = n.expandLine(line, i+1, spans[i])
	}
	return strings.Join(lines, "\n")
}

// codeRanges finds the code of src as goldmark parses it: blocks[i] marks
// a line (0-based) of a fenced or indented code block, spans[i] the byte
// ranges of code spans on line i.
func (n *narrative) codeRanges(src string) (blocks map[int]bool, spans map[int][][2]int) {
	blocks, spans = map[int]bool{}, map[int][][2]int{}
	starts := []int{0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	lineOf := func(pos int) int { return sort.SearchInts(starts, pos+1) - 1 }
	mark := func(seg text.Segment) {
		for l := lineOf(seg.Start); l < len(starts) && starts[l] < seg.Stop; l++ {
			from, to := max(seg.Start, starts[l])-starts[l], seg.Stop-starts[l]
			if l+1 < len(starts) {
				to = min(to, starts[l+1]-1-starts[l])
			}
			if to > from {
				spans[l] = append(spans[l], [2]int{from, to})
			}
		}
	}
	md := n.b.md
	if md == nil {
		md = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote))
	}
	source := []byte(src)
	doc := md.Parser().Parse(text.NewReader(source))
	ast.Walk(doc, func(node ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch x := node.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			segs := x.Lines()
			for k := 0; k < segs.Len(); k++ {
				blocks[lineOf(segs.At(k).Start)] = true
			}
			if f, ok := x.(*ast.FencedCodeBlock); ok && f.Info != nil {
				blocks[lineOf(f.Info.Segment.Start)] = true
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			for c := x.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					mark(t.Segment)
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	for l := range spans {
		sort.Slice(spans[l], func(i, j int) bool { return spans[l][i][0] < spans[l][j][0] })
	}
	return blocks, spans
}

// expandLine handles one line outside code blocks, leaving its code
// spans (byte ranges of the line) as written.
func (n *narrative) expandLine(line string, lineNo int, code [][2]int) string {
	var out strings.Builder
	at := 0
	for _, r := range code {
		if r[0] < at || r[1] > len(line) {
			continue
		}
		out.WriteString(n.expandText(line[at:r[0]], lineNo))
		out.WriteString(line[r[0]:r[1]])
		at = r[1]
	}
	out.WriteString(n.expandText(line[at:], lineNo))
	return out.String()
}

// expandText handles text outside code: inline math is kept (HTML: a
// KaTeX token), directives and citations are expanded.
func (n *narrative) expandText(s string, lineNo int) string {
	var out strings.Builder
	for {
		loc := inlineMathRe.FindStringSubmatchIndex(s)
		if loc == nil {
			out.WriteString(n.expandDirectives(s, lineNo))
			return out.String()
		}
		out.WriteString(n.expandDirectives(s[:loc[0]], lineNo))
		tex := s[loc[2]:loc[3]]
		if n.format == "html" {
			n.math = true
			out.WriteString(n.token(`<span class="math" data-tex="` + html.EscapeString(tex) + `">` + html.EscapeString(tex) + `</span>`))
		} else {
			out.WriteString(s[loc[0] : loc[3]+1])
		}
		s = s[loc[3]+1:]
	}
}

// expandDirectives replaces the {{…}} directives and [@…] citations of
// text that holds neither code nor math. A malformed or unknown directive
// is an error at the page's line; \{{ is a literal "{{" (Markdown then
// drops the backslash).
func (n *narrative) expandDirectives(s string, lineNo int) string {
	var out strings.Builder
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			out.WriteString(n.expandCites(s, lineNo))
			return out.String()
		}
		if i > 0 && s[i-1] == '\\' {
			out.WriteString(n.expandCites(s[:i+2], lineNo))
			s = s[i+2:]
			continue
		}
		out.WriteString(n.expandCites(s[:i], lineNo))
		d, err := parseDirective(s[i:])
		if err != nil {
			n.errs = append(n.errs, pageErrorf(n.page, lineNo, "%v", err))
			out.WriteString(s[i : i+len(d.text)])
			s = s[i+len(d.text):]
			continue
		}
		repl, err := n.directive(d.name, d.args)
		if err != nil {
			n.errs = append(n.errs, pageErrorf(n.page, lineNo, "%s: %v", shownDirective(d.text), err))
			repl = d.text
		}
		out.WriteString(repl)
		s = s[i+len(d.text):]
	}
}

func (n *narrative) expandCites(s string, lineNo int) string {
	return citeRe.ReplaceAllStringFunc(s, func(m string) string {
		out, err := n.cite(m[1 : len(m)-1])
		if err != nil {
			n.errs = append(n.errs, pageErrorf(n.page, lineNo, "%s: %v", shownDirective(m), err))
			return m
		}
		return out
	})
}

// directiveNameRe finds the name a directive starts with, for messages.
var directiveNameRe = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_-]*)`)

// parsedDirective is one {{name args…}} directive; text is what it spans
// in the page.
type parsedDirective struct {
	name, text string
	args       []string
}

// parseDirective parses the directive at the start of s (which begins
// with "{{"). A directive is one line: "{{", a known name, its arguments
// separated by spaces, "}}". On an error, text is the part of s to keep
// as written before looking for the next directive.
func parseDirective(s string) (parsedDirective, error) {
	body := s[2:]
	end := strings.Index(body, "}}")
	if open := strings.Index(body, "{{"); end < 0 || (open >= 0 && open < end) {
		head := "{{"
		if m := directiveNameRe.FindStringSubmatch(body); m != nil {
			head += m[1]
		}
		return parsedDirective{text: "{{"}, fmt.Errorf("unterminated directive %q (a directive ends with \"}}\" on the same line)", head+" …")
	}
	d := parsedDirective{text: s[:2+end+2]}
	fields := strings.Fields(body[:end])
	if len(fields) == 0 {
		return d, fmt.Errorf("%s: empty directive (known: %s)", shownDirective(d.text), strings.Join(directiveNames, ", "))
	}
	d.name, d.args = fields[0], fields[1:]
	if !slices.Contains(directiveNames, d.name) {
		return d, fmt.Errorf("%s: unknown directive %q%s (known: %s; write \\{{ for literal braces)",
			shownDirective(d.text), d.name, analyses.DidYouMean(d.name, directiveNames), strings.Join(directiveNames, ", "))
	}
	return d, nil
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
		out := buf.String()
		// The same figure or table embedded twice on a page: the copies
		// get ids of their own (fig-x-2, …), so that ids stay unique.
		if n.embedded == nil {
			n.embedded = map[string]int{}
		}
		a := t.anchor()
		n.embedded[a]++
		if k := n.embedded[a]; k > 1 {
			out = strings.ReplaceAll(out, `"#`+a+`"`, fmt.Sprintf(`"#%s-%d"`, a, k))
			out = strings.Replace(out, `id="`+a+`"`, fmt.Sprintf(`id="%s-%d"`, a, k), 1)
		}
		return n.token(out), nil
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
		return n.token(fmt.Sprintf(`<a class="xref" href="%s%s.html#%s">%s</a>`, n.root, html.EscapeString(t.Page), html.EscapeString(t.anchor()), label)), nil
	case "value":
		return n.value(args)
	}
	return "", fmt.Errorf("unknown directive %q", name)
}

// value is {{value ANALYSIS PATH [FORMAT]}}: the value at PATH of the
// analysis's document, in FORMAT, or else as the analysis's table
// prints it (siteBuild.shown), or else with four significant digits.
func (n *narrative) value(args []string) (string, error) {
	b := n.b
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
	if x, ok := v.(float64); ok && format == "" && b.shown[args[0]] != nil {
		parts := splitPath(args[1])
		if text, ok := b.shown[args[0]](parts[len(parts)-1], x); ok {
			s = text // as the analysis's table prints it
		}
	}
	if n.format == "md" {
		return mdText(s), nil
	}
	return n.token(`<span class="value" title="` + html.EscapeString(args[0]+" "+args[1]) + `">` + html.EscapeString(s) + `</span>`), nil
}

// lookup follows a path into an analysis's document.
func (b *siteBuild) lookup(id, path string) (any, error) {
	doc, ok := b.docs[id]
	if !ok {
		return nil, fmt.Errorf("no analysis %q%s", id, analyses.DidYouMean(id, analyses.SortedKeys(b.docs)))
	}
	var cur any = doc
	walked := id
	for _, part := range splitPath(path) {
		var err error
		if strings.HasPrefix(part, "[") {
			cur, err = selectEntry(cur, part, walked)
		} else {
			cur, err = member(cur, part, walked)
		}
		if err != nil {
			return nil, err
		}
		walked += "." + part
	}
	return plain(cur), nil
}

// selectEntry is the entry of a list that a selector picks: [n], or
// [column=value] (the first row whose column shows that value).
func selectEntry(cur any, part, walked string) (any, error) {
	if len(part) < 2 || !strings.HasSuffix(part, "]") {
		return nil, fmt.Errorf("bad selector %q: no closing ]", part)
	}
	sel := part[1 : len(part)-1]
	list, ok := plain(cur).([]any)
	if !ok {
		return nil, fmt.Errorf("%s is not a list", walked)
	}
	if k, err := strconv.Atoi(sel); err == nil {
		if k < 0 || k >= len(list) {
			return nil, fmt.Errorf("%s has %d entries, no [%d]", walked, len(list), k)
		}
		return list[k], nil
	}
	eq := strings.IndexByte(sel, '=')
	if eq <= 0 {
		return nil, fmt.Errorf("bad selector %q (want [n] or [column=value])", part)
	}
	col, want := sel[:eq], sel[eq+1:]
	for _, row := range list {
		if v, ok := member(row, col, ""); ok == nil && fmt.Sprint(plain(v)) == want {
			return row, nil
		}
	}
	return nil, fmt.Errorf("%s has no row with %s = %q", walked, col, want)
}

// member is the value of key part of an object.
func member(cur any, part, walked string) (any, error) {
	var keys []string
	switch x := plain(cur).(type) {
	case *Object:
		if v, ok := x.get(part); ok {
			return v, nil
		}
		keys = x.keys
	case map[string]any: // inside a value that marshals itself
		if v, ok := x[part]; ok {
			return v, nil
		}
		keys = analyses.SortedKeys(x)
	default:
		return nil, fmt.Errorf("%s has no key %q", walked, part)
	}
	return nil, fmt.Errorf("%s has no key %q%s", walked, part, analyses.DidYouMean(part, keys))
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

// valueFormatRe is the FORMAT of {{value}}: an optional + sign, an
// optional precision, and one verb: f, e, g (fixed, exponent, significant
// digits), % (the value × 100 with a percent sign; needs a precision), d
// (rounded to an integer) or s (as text).
var valueFormatRe = regexp.MustCompile(`^%(\+?)(?:\.([0-9]{1,2}))?([feEgGd%s])$`)

// maxValuePrecision bounds the digits a {{value}} may ask for.
const maxValuePrecision = 15

const valueFormats = "%.Nf, %.Ne, %.Ng, %.N%, %d or %s (N ≤ 15, optionally %+…)"

// valueFormat is a checked FORMAT of {{value}}.
type valueFormat struct {
	plus      bool
	precision int // -1: none
	verb      byte
}

// parseValueFormat checks a FORMAT against the small set pages may use,
// so that a typo such as %q is an error instead of "%!q(float64=1.5)" on
// the site.
func parseValueFormat(format string) (valueFormat, error) {
	m := valueFormatRe.FindStringSubmatch(format)
	if m == nil {
		return valueFormat{}, fmt.Errorf("format %q: want one of %s", format, valueFormats)
	}
	f := valueFormat{plus: m[1] == "+", precision: -1, verb: m[3][0]}
	if m[2] != "" {
		f.precision, _ = strconv.Atoi(m[2])
		if f.precision > maxValuePrecision {
			return f, fmt.Errorf("format %q: precision %d is above the limit of %d", format, f.precision, maxValuePrecision)
		}
		if f.verb == 'd' || f.verb == 's' {
			return f, fmt.Errorf("format %q: %%%c takes no precision; want one of %s", format, f.verb, valueFormats)
		}
	}
	if f.verb == '%' && f.precision < 0 {
		return f, fmt.Errorf("format %q: a percentage needs its decimals, e.g. %%.1%%", format)
	}
	if f.plus && f.verb == 's' {
		return f, fmt.Errorf("format %q: %%s takes no sign; want one of %s", format, valueFormats)
	}
	return f, nil
}

// formatValue prints a JSON value with a FORMAT (see parseValueFormat;
// default four significant digits for numbers).
func formatValue(v any, format string) (string, error) {
	f := valueFormat{precision: -1}
	if format != "" {
		var err error
		if f, err = parseValueFormat(format); err != nil {
			return "", err
		}
	}
	switch x := v.(type) {
	case float64:
		if format == "" {
			return strconv.FormatFloat(x, 'g', 4, 64), nil
		}
		sign := ""
		if f.plus && x >= 0 {
			sign = "+"
		}
		switch f.verb {
		case 'd':
			r := math.Round(x)
			if r == 0 {
				r, sign = 0, "" // no "-0"
				if f.plus {
					sign = "+"
				}
			}
			return sign + strconv.FormatFloat(r, 'f', 0, 64), nil
		case 's':
			return strconv.FormatFloat(x, 'g', -1, 64), nil
		case '%':
			return sign + strconv.FormatFloat(100*x, 'f', f.precision, 64) + "%", nil
		}
		if f.precision < 0 && f.verb != 'g' && f.verb != 'G' {
			f.precision = 6 // printf's default for %f and %e
		}
		return sign + strconv.FormatFloat(x, f.verb, f.precision, 64), nil
	case string:
		if format != "" && f.verb != 's' {
			return "", fmt.Errorf("format %q needs a number, but the value is the text %q (use %%s or no format)", format, x)
		}
		return x, nil
	case bool:
		if format != "" && f.verb != 's' {
			return "", fmt.Errorf("format %q needs a number, but the value is %t (use %%s or no format)", format, x)
		}
		return strconv.FormatBool(x), nil
	case nil:
		return "", fmt.Errorf("the value is missing (null)")
	}
	return "", fmt.Errorf("the value is a %s, not a number or text", jsonKind(v))
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any, *Object:
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
