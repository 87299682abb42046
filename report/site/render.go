package site

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/figures/model"
	"github.com/evalbook/evalbook/report/site/explore"
	"github.com/evalbook/evalbook/themes"
)

// maxHTMLRows is how many rows a table shows on its page; every row is in
// its CSV.
const maxHTMLRows = explore.MaxRows

// siteBuild renders a Model into files (path → bytes).
type siteBuild struct {
	m      *Model
	study  *Study
	assets Assets
	files  map[string][]byte
	tmpl   *template.Template
	md     goldmark.Markdown
	views  []*analysisView
	refs   map[string][]refTarget // figure and table ids → targets
	docs   map[string]*Object     // analysis id → data/<id>.json, for {{value}}
	// shown says, by analysis id, how its tables print a number
	// (shownIn): for its macros and for {{value}} without a format
	shown map[string]func(key string, v float64) (string, bool)
}

// Render renders the site of a finished build: every file of the site,
// by its path relative to the site's root. It reads no file: the pages,
// the bibliography and every output are in m.
func Render(m Model) (map[string][]byte, error) {
	b := &siteBuild{m: &m, study: &m.Study, assets: m.Assets}
	return b.render()
}

type navItem struct {
	Title, Href, Slug, Kind string
}

type linkView struct{ Name, URL string }

type findingView struct {
	Title, Href, Text string
}

type pageData struct {
	Study     *Study
	PageTitle string
	Current   string
	Root      string
	Nav       []navItem
	CSS       template.CSS
	JS        template.JS
	Scripts   []string
	Version   string
	// single file
	InlineScripts []template.JS
	// index
	Abstract template.HTML
	BibTeX   string // citation.bib, shown in "Cite this study"
	Links    []linkView
	Findings []findingView
	Pages    []navItem
	Analyses []navItem
	// narrative
	Body template.HTML
	// analysis
	Analysis *analysisView
	// provenance
	Prov *Provenance
	// explore
	Explore *exploreView
}

type analysisView struct {
	ID, Kind, Title, Caption string
	JSONHref                 string
	Notes                    []string
	Figures                  []figureView
	Tables                   []tableView
	Method                   template.HTML
	Params                   []paramView
	ParamsFrom               string // where the manifest writes them
	Seed                     uint64
	Macros                   []macroView // its macros in paper/evalbook.tex ("Cite in LaTeX")
	ReportTeXHref            string      // data/reports/<id>.tex, when the result reports itself
	a                        *Analysis
}

// macroView is one macro of paper/evalbook.tex: its name with the
// backslash, and the LaTeX it expands to.
type macroView struct{ Name, Value string }

type figureView struct {
	ID, Title, Caption string
	Alt                string // the static figure's alt text (from its spec; else its title)
	Num                int
	Src, SVGHref       string
	PDFHref, PNGHref   string // "" when the figure has no drawing (paper.go)
	Chart              string
	Height             int
	PreferStatic       bool   // the SVG first, the chart on request
	KeepColours        bool   // shown as drawn on a dark page (figures.Figure.KeepColours)
	ChartSrc           string // a large chart's option, as a script of its own
	svg                []byte // the static figure recoloured by the site's colour map (nil: as drawn)
	fig                figures.Figure
}

type tableView struct {
	ID, Title, CSVHref string
	TeXHref            string // data/<id>.tex (paper.go)
	Num                int
	Columns            []columnView
	Compact            bool // many columns: tighter cells
	Rows               [][]cellView
	// Body is Rows as the page's <tbody> holds them (rowsHTML).
	Body      template.HTML
	More      int
	Collapsed bool // secondary tables with many rows start folded
	// Notes explain the table's marks (tableNotes); Hint is what only a
	// page can do with it ("hover a rank for its score").
	Notes []string
	Hint  string
	table analyses.Table
	spec  *model.Table
}

type cellView struct {
	Text, Full, Sort string
	Num              bool
	Best             bool   // the best value of its column, alone
	Second           bool   // the second, alone
	Tied             bool   // tied for the best: no win
	Sig              bool   // a significant p-value
	Count            string // "d/n": a summary over only d of n defined values
}

// columnView is a column header: the display label, and the id it
// stands for (a title) when they differ.
type columnView struct {
	Label, Title, ID string
	Num              bool // its numbers are right-aligned, and so is its header
}

// paramView is one parameter as the page shows it.
type paramView = Param

func (b *siteBuild) render() (map[string][]byte, error) {
	b.files = map[string][]byte{}
	var err error
	b.tmpl, err = themes.Templates(template.FuncMap{"inline": inlineCode})
	if err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	b.md = newMarkdown(b.study.UnsafeHTML)
	if err := b.buildViews(); err != nil {
		return nil, err
	}
	if err := b.writeData(); err != nil {
		return nil, err
	}
	if err := b.writePaperFiles(); err != nil { // paper.go
		return nil, err
	}
	if b.m.Options.Format != "md" {
		if err := b.writeHTML(); err != nil {
			return nil, err
		}
	}
	if b.m.Options.Format != "html" {
		if err := b.writeMarkdown(); err != nil {
			return nil, err
		}
	}
	return b.files, nil
}

// emailRe is what the Markdown renderer links as an e-mail address: a
// domain that ends in letters. A metric name such as iprec@0.0 or
// ndcg@10 is text, never a mailto: link.
var emailRe = regexp.MustCompile(`^[A-Za-z0-9._%+\-]+@(?:[A-Za-z0-9\-]+\.)+[A-Za-z]{2,}\b`)

// newMarkdown is the site's Markdown renderer: GitHub-flavoured (tables,
// strikethrough, task lists, bare links; e-mail addresses only as emailRe
// says), with footnotes and heading ids; raw HTML only when the manifest
// allows it.
func newMarkdown(unsafe bool) goldmark.Markdown {
	gmOpts := []renderer.Option{}
	if unsafe {
		gmOpts = append(gmOpts, gmhtml.WithUnsafe())
	}
	return goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList,
			extension.NewLinkify(extension.WithLinkifyEmailRegexp(emailRe)), extension.Footnote),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
		goldmark.WithRendererOptions(gmOpts...),
	)
}

// buildViews numbers figures and tables across the site, in the order of
// the analyses, and formats every cell once.
func (b *siteBuild) buildViews() error {
	figNum, tabNum := 0, 0
	for i := range b.m.Analyses {
		a := &b.m.Analyses[i]
		v := &analysisView{ID: a.ID, Kind: a.Type, Title: a.Title, Caption: a.Caption,
			JSONHref: "data/" + a.ID + ".json", Notes: a.Notes, Seed: a.Seed, a: a,
			Params: a.Params, ParamsFrom: a.ParamsFrom}
		for _, f := range a.Figures {
			figNum++
			v.Figures = append(v.Figures, b.figureView(f, figNum))
		}
		for _, t := range a.Tables {
			tabNum++
			v.Tables = append(v.Tables, b.tableView(a, t, tabNum))
		}
		b.views = append(b.views, v)
		if b.shown == nil {
			b.shown = map[string]func(string, float64) (string, bool){}
		}
		b.shown[v.ID] = shownIn(v.Tables)
	}
	return b.styleCharts()
}

// figureView is a figure as its page shows it, numbered num.
func (b *siteBuild) figureView(f figures.Figure, num int) figureView {
	fv := figureView{ID: f.ID, Title: f.Title, Caption: f.Caption, Num: num,
		Src: "figures/" + f.ID + ".svg", SVGHref: "figures/" + f.ID + ".svg", Height: f.Height, PreferStatic: f.PreferStatic, KeepColours: f.KeepColours, fig: f, Alt: f.Alt}
	if fv.Height == 0 {
		fv.Height = 420
	}
	if b.assets.hasECharts() && len(f.Chart) > 0 {
		fv.Chart = string(f.Chart) // styled and rounded by styleCharts
	}
	return fv
}

// tableView is a table of analysis id as its page shows it, numbered
// num: its first maxHTMLRows rows, from the table's presentation
// (model.NewTable: labels, one format per column, marks), which the
// Markdown and LaTeX outputs render too.
func (b *siteBuild) tableView(a *Analysis, t analyses.Table, num int) tableView {
	alpha, _ := a.Resolved["alpha"].(float64)
	spec := model.NewTable(t, a.ID, model.TableOptions{Naming: b.study.Naming, Alpha: alpha, Siblings: a.Tables})
	tv := tableView{ID: spec.ID, Title: spec.Title, Num: num, CSVHref: "data/" + spec.ID + ".csv", table: t, spec: spec,
		Notes: tableNotes(spec)}
	for _, c := range spec.Columns {
		cv := columnView{Label: c.Header(), ID: c.ID, Num: c.Numeric()}
		if cv.Label != c.ID {
			cv.Title = c.ID
		}
		if c.Role == model.RoleInterval {
			cv.Title = c.ID + ", " + c.HighID
		}
		tv.Columns = append(tv.Columns, cv)
	}
	rows := spec.Rows
	if len(rows) > maxHTMLRows {
		tv.More = len(rows)
		rows = rows[:maxHTMLRows]
	}
	for _, r := range rows {
		cells := make([]cellView, len(r))
		for j, c := range r {
			cells[j] = cellView{Text: c.Text, Full: c.Title, Sort: c.Sort, Num: c.Num,
				Best: c.Mark == model.MarkBest, Second: c.Mark == model.MarkSecond, Tied: c.Mark == model.MarkTied,
				Sig: c.Sig, Count: c.CountText()}
			if c.Num && c.Sort == "" {
				cells[j].Sort = strconv.FormatFloat(c.Value, 'g', -1, 64)
			}
		}
		tv.Rows = append(tv.Rows, cells)
	}
	tv.Body = rowsHTML(tv.Rows)
	tv.Compact = len(tv.Columns) > 8
	if spec.RankNote != "" {
		tv.Hint = "hover a rank for its score"
	}
	tv.Collapsed = t.Name != "" && len(t.Rows) > 20
	return tv
}

// rowsHTML writes a table's rows, one <tr> a line, each cell as the
// "table" template wrote it with an action per attribute and mark: its
// text and attribute values escaped as html/template escapes a string
// in either place (htmlEscape). In the template, the demo's 22,000
// cells were 8% of a demo build's CPU (a field found by reflection and
// an escaper called through reflect for every value).
func rowsHTML(rows [][]cellView) template.HTML {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString("<tr>")
		for i := range r {
			c := &r[i]
			b.WriteString("<td")
			if c.Num {
				b.WriteString(` class="num`)
				if c.Best {
					b.WriteString(" best")
				}
				if c.Second {
					b.WriteString(" second")
				}
				if c.Tied {
					b.WriteString(" tied")
				}
				b.WriteString(`" data-v="`)
				htmlEscape(&b, c.Sort)
				b.WriteByte('"')
			}
			if c.Full != "" {
				b.WriteString(` title="`)
				htmlEscape(&b, c.Full)
				b.WriteByte('"')
			}
			b.WriteByte('>')
			switch {
			case c.Best:
				b.WriteString("<strong>")
				htmlEscape(&b, c.Text)
				b.WriteString("</strong>")
			case c.Second:
				b.WriteString("<u>")
				htmlEscape(&b, c.Text)
				b.WriteString("</u>")
			default:
				htmlEscape(&b, c.Text)
			}
			if c.Tied {
				b.WriteString(`<sup class="mark" title="tied for the best">=</sup>`)
			}
			if c.Sig {
				b.WriteString(`<sup class="mark" title="significant">*</sup>`)
			}
			if c.Count != "" {
				b.WriteString(` <span class="count" title="defined values of all">(`)
				htmlEscape(&b, c.Count)
				b.WriteString(")</span>")
			}
			b.WriteString("</td>")
		}
		b.WriteString("</tr>\n")
	}
	return template.HTML(b.String())
}

// htmlEscape writes s as html/template writes a string in text or in a
// quoted attribute value: NUL as U+FFFD, and " & ' + < > as character
// references (its htmlReplacementTable), every other byte kept.
func htmlEscape(b *strings.Builder, s string) {
	htmlReplacer.WriteString(b, s)
}

var htmlReplacer = strings.NewReplacer("\x00", "\uFFFD", `"`, "&#34;", "&", "&amp;", "'", "&#39;", "+", "&#43;", "<", "&lt;", ">", "&gt;")

// tableNotes are the notes under a table, in words every output shares:
// what each mark means, the counts of partial summaries, the cells
// without a value, what a table of ranks leaves out.
func tableNotes(t *model.Table) []string {
	var n, marks []string
	if t.HasMark(model.MarkBest) {
		marks = append(marks, "bold: best in its column")
	}
	if t.HasMark(model.MarkSecond) {
		marks = append(marks, "underlined: second")
	}
	if t.HasMark(model.MarkTied) {
		marks = append(marks, "=: tied for the best (no single best)")
	}
	if len(marks) > 0 {
		s := strings.Join(marks, "; ")
		n = append(n, strings.ToUpper(s[:1])+s[1:]+".")
	}
	for _, s := range []string{t.SigNote, t.CountNote, t.UndefinedNote, t.RankNote} {
		if s != "" {
			n = append(n, s)
		}
	}
	return n
}

// csvCell formats a cell for CSV: numbers in Go 'g' -1 format, missing
// values empty.
func csvCell(c any) string {
	switch x := c.(type) {
	case nil:
		return ""
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return fmt.Sprint(c)
}

// writeData writes data/<id>.json, data/<table-id>.csv, figures/*.svg and
// data/provenance.json, and keeps each analysis's document for {{value}}.
//
// Two analyses may not write one file: a table or figure is named
// <analysis id>-<name>, so the ids "cd" and "cd-ranks" can name the same
// data/cd-ranks.csv, and one analysis's table would silently replace the
// other's. That is an error naming both.
func (b *siteBuild) writeData() error {
	b.docs = map[string]*Object{}
	owner := map[string]string{"data/provenance.json": "the provenance record"}
	// put claims file for analysis id and stores what make makes, unless
	// the site is rendered for validate (Options.Check).
	put := func(id, file string, make func() []byte) error {
		if prev, ok := owner[file]; ok && prev != id {
			return fmt.Errorf("analyses %q and %q both write %s (a table or figure is named <analysis id>-<name>): rename one of the ids", prev, id, file)
		}
		owner[file] = id
		b.files[file] = nil
		if !b.m.Options.Check {
			b.files[file] = make()
		}
		return nil
	}
	for _, v := range b.views {
		a := v.a
		doc, notes, err := analysisDoc(a)
		if err != nil {
			return fmt.Errorf("%s: %w", a.ID, err)
		}
		if len(notes) > 0 { // never append into the cached result's own list
			v.Notes = append(v.Notes[:len(v.Notes):len(v.Notes)], notes...)
		}
		b.docs[a.ID] = doc
		if err := put(a.ID, "data/"+a.ID+".json", func() []byte { return writeDoc(doc) }); err != nil {
			return err
		}
		for _, t := range v.Tables {
			if err := put(a.ID, "data/"+t.ID+".csv", func() []byte { return tableCSV(t.table) }); err != nil {
				return err
			}
		}
		// Tables too long for a page (per-user values) are data files only.
		for _, t := range a.DataTables {
			if err := put(a.ID, "data/"+t.ID(a.ID)+".csv", func() []byte { return tableCSV(t) }); err != nil {
				return err
			}
		}
		for _, f := range v.Figures {
			svg := f.fig.SVG
			if f.svg != nil {
				svg = f.svg
			}
			if err := put(a.ID, "figures/"+f.ID+".svg", func() []byte { return svg }); err != nil {
				return err
			}
			if f.ChartSrc != "" {
				if err := put(a.ID, f.ChartSrc, func() []byte { return chartScript(f.ID, f.Chart) }); err != nil {
					return err
				}
			}
		}
	}
	b.files["data/provenance.json"] = b.m.ProvenanceJSON
	return nil
}

// tableCSV writes a table with a header row; fields are quoted when needed.
func tableCSV(t analyses.Table) []byte {
	var buf bytes.Buffer
	buf.Grow(10 * len(t.Columns) * (len(t.Rows) + 1)) // (the demo's cells average 8 bytes: a buffer grows once, if at all)
	writeRow := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				buf.WriteByte(',')
			}
			if csvQuoted(c) || len(cells) == 1 && c == "" {
				// (a row of one empty cell is "": an empty line is no row
				// to a CSV reader)
				c = `"` + strings.ReplaceAll(c, `"`, `""`) + `"`
			}
			buf.WriteString(c)
		}
		buf.WriteByte('\n')
	}
	writeRow(t.Columns)
	var cells []string
	for _, row := range t.Rows {
		cells = cells[:0]
		for _, c := range row {
			cells = append(cells, csvCell(c))
		}
		writeRow(cells)
	}
	return buf.Bytes()
}

// csvQuoted reports whether a CSV cell is written in quotes: it holds a
// comma, a quote or a line break, or begins or ends with white space
// (which some readers trim).
func csvQuoted(c string) bool {
	for i := 0; i < len(c); i++ {
		switch c[i] {
		case ',', '"', '\n', '\r':
			return true
		}
	}
	return strings.TrimSpace(c) != c
}

func (b *siteBuild) nav() []navItem {
	var nav []navItem
	for _, p := range b.m.Pages {
		nav = append(nav, navItem{Title: p.Title, Href: p.Slug + ".html", Slug: p.Slug, Kind: "page"})
	}
	for _, v := range b.views {
		nav = append(nav, navItem{Title: v.Title, Href: v.ID + ".html", Slug: v.ID, Kind: "analysis"})
	}
	if b.hasExplore() {
		nav = append(nav, navItem{Title: "Explore", Href: ExplorePage, Slug: "explore", Kind: "explore"})
	}
	return nav
}

func (b *siteBuild) base(title, current string) *pageData {
	d := &pageData{Study: b.study, PageTitle: title, Current: current, Nav: b.nav(),
		CSS: template.CSS(themes.CSS()), JS: template.JS(themes.JS()), Version: b.m.Options.Version}
	d.Scripts = []string{"assets/search.js"}
	return d
}

// execPage executes template name with d, for file; it may run beside
// other pages' (it writes nothing of the build's).
func (b *siteBuild) execPage(name, file string, d *pageData) ([]byte, error) {
	var buf bytes.Buffer
	if err := b.tmpl.ExecuteTemplate(&buf, name, d); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return buf.Bytes(), nil
}

// htmlPage is one page of the HTML site before it is written: its file
// name, templates and data.
type htmlPage struct {
	slug, file, title string
	body              string // name of the body template
	data              *pageData
	math              bool
}

// htmlPages builds every page's data: overview, narrative pages, analyses
// and provenance, in navigation order.
func (b *siteBuild) htmlPages() ([]htmlPage, map[string]string, error) {
	var pages []htmlPage
	d := b.base("Overview", "index")
	math := false
	if b.study.Abstract != "" {
		n := b.newNarrative(b.study.Manifest+" (abstract)", "html")
		body := n.fill(string(b.markdown([]byte(n.expand(b.study.Abstract)))))
		if len(n.errs) > 0 {
			return nil, nil, n.errs
		}
		d.Abstract = template.HTML(body)
		math = n.math
	}
	d.BibTeX = string(b.files["citation.bib"])
	for _, k := range analyses.SortedKeys(b.study.Links) {
		d.Links = append(d.Links, linkView{Name: k, URL: b.study.Links[k]})
	}
	for _, n := range d.Nav {
		if n.Kind == "page" {
			d.Pages = append(d.Pages, n)
		}
	}
	for _, v := range b.views {
		d.Analyses = append(d.Analyses, navItem{Title: v.Title, Href: v.ID + ".html", Kind: v.Kind})
		if f := finding(v.Title, v.a.Highlight); f != "" {
			d.Findings = append(d.Findings, findingView{Title: v.Title, Href: v.ID + ".html", Text: f})
		}
	}
	pages = append(pages, htmlPage{slug: "index", file: "index.html", title: "Overview", body: "index-body", data: d, math: math})

	var errs Errors
	pageText := map[string]string{}
	for _, p := range b.m.Pages {
		body, err := b.narrativeHTML(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		pageText[p.Slug] = plainText(string(body.html))
		d := b.base(p.Title, p.Slug)
		d.Body = body.html
		pages = append(pages, htmlPage{slug: p.Slug, file: p.Slug + ".html", title: p.Title, body: "page-body", data: d, math: body.math})
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	for _, v := range b.views {
		d := b.base(v.Title, v.ID)
		d.Analysis = v
		pageMath := false
		if m := v.a.Method; m != "" {
			v.Method, pageMath = b.methodHTML(v.ID, m)
		}
		pages = append(pages, htmlPage{slug: v.ID, file: v.ID + ".html", title: v.Title, body: "analysis-body", data: d, math: pageMath})
	}
	if b.hasExplore() {
		p, err := b.explorePage()
		if err != nil {
			return nil, nil, err
		}
		pages = append(pages, p)
	}
	d = b.base("Provenance", "provenance")
	d.Prov = &b.m.Provenance
	pages = append(pages, htmlPage{slug: "provenance", file: "provenance.html", title: "Provenance", body: "provenance-body", data: d})
	return pages, pageText, nil
}

func (b *siteBuild) writeHTML() error {
	pages, pageText, err := b.htmlPages()
	if err != nil {
		return err
	}
	search := b.searchIndex(pageText)
	if b.m.Options.SingleFile {
		return b.writeSingleFile(pages, search)
	}
	if b.assets.hasECharts() {
		b.files["assets/echarts.min.js"] = b.assets.ECharts
	}
	for _, p := range pages {
		// ECharts (1.1 MB) only on pages that draw a chart.
		if b.assets.hasECharts() && hasChart(p.data) {
			p.data.Scripts = append(p.data.Scripts, "assets/echarts.min.js")
		}
		if p.math && len(b.assets.KaTeX) > 0 {
			p.data.Scripts = append(p.data.Scripts, "assets/katex.min.js")
			b.files["assets/katex.min.js"] = b.assets.KaTeX
		}
	}
	// The pages are executed side by side (each only reads its data
	// and the build's views): most of the rendering's time on a
	// study of a few analyses, on the build's critical path.
	out := make([][]byte, len(pages))
	errs := make([]error, len(pages))
	next := make(chan int, len(pages))
	for i := range pages {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(len(pages), runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p := &pages[i]
				out[i], errs[i] = b.execPage(strings.TrimSuffix(p.body, "-body")+".html", p.file, p.data)
			}
		}()
	}
	wg.Wait()
	for i, p := range pages {
		if errs[i] != nil {
			return errs[i]
		}
		b.files[p.file] = out[i]
	}
	b.files["assets/search.js"] = search
	return nil
}

// hasChart reports whether a page draws an interactive chart: an
// analysis with a chart option, or a narrative page embedding one.
func hasChart(d *pageData) bool {
	if d.Explore != nil && d.Explore.Charts {
		return true
	}
	if d.Analysis != nil {
		for _, f := range d.Analysis.Figures {
			if f.Chart != "" {
				return true
			}
		}
	}
	return strings.Contains(string(d.Body), `class="echart"`) || strings.Contains(string(d.Abstract), `class="echart"`)
}

// methodHTML renders a method note: Markdown, with its $…$ maths
// typeset by KaTeX on the page (math reports whether it has any).
func (b *siteBuild) methodHTML(id, note string) (template.HTML, bool) {
	n := b.newNarrative(id+" (method note)", "html")
	var src strings.Builder
	for i, line := range strings.Split(note, "\n") {
		if i > 0 {
			src.WriteByte('\n')
		}
		src.WriteString(n.expandText(line, i+1)) // maths only: a note has no directives
	}
	if len(n.errs) > 0 {
		return b.markdown([]byte(note)), false
	}
	return template.HTML(n.fill(string(b.markdown([]byte(src.String()))))), n.math
}

func (b *siteBuild) newNarrative(page, format string) *narrative {
	return &narrative{b: b, page: page, format: format, tokens: map[string]string{}, citeNum: map[string]int{}}
}

// narrativeHTML renders a page: directives expanded, Markdown rendered,
// placeholders filled, references appended.
type renderedPage struct {
	html template.HTML
	math bool
}

func (b *siteBuild) narrativeHTML(p Page) (renderedPage, error) {
	n := b.newNarrative(p.Source, "html")
	expanded := n.expand(string(p.Markdown))
	if len(n.errs) > 0 {
		return renderedPage{}, n.errs
	}
	return renderedPage{html: template.HTML(n.fill(string(b.markdown([]byte(expanded)))) + n.references()), math: n.math}, nil
}

// narrativeMarkdown renders a page for --format md.
func (b *siteBuild) narrativeMarkdown(p Page) (string, error) {
	n := b.newNarrative(p.Source, "md")
	out := n.expand(mdBlock(string(p.Markdown), b.study.UnsafeHTML))
	if len(n.errs) > 0 {
		return "", n.errs
	}
	return out + n.references(), nil
}

func (b *siteBuild) markdown(src []byte) template.HTML {
	var buf bytes.Buffer
	if err := b.md.Convert(src, &buf); err != nil {
		return template.HTML(template.HTMLEscapeString(string(src)))
	}
	return template.HTML(buf.String())
}

// finding is an analysis's key finding after its title: its highlight,
// less a lead that only restates the title ("MF-bias vs MF: RMSE", an
// untitled meta-analysis's, before "MF-bias vs MF on RMSE: summary …"
// reads "Summary …"). A written title keeps the lead, which then says
// what the title does not.
func finding(title, highlight string) string {
	lead, rest, ok := strings.Cut(highlight, ": ")
	if !ok || rest == "" || lead != title && lead != strings.Replace(title, ": ", " on ", 1) {
		return highlight
	}
	r := []rune(rest)
	return strings.ToUpper(string(r[:1])) + string(r[1:])
}
