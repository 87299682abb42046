package site

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/plot/vg"

	"github.com/evalbook/evalbook/figures/model"
	"github.com/evalbook/evalbook/report/paper"
)

// writePaperFiles adds what a manuscript takes from the site (issue 17,
// package report/paper): data/<table-id>.tex beside every table's CSV;
// figures/<id>.pdf and .png beside every SVG drawn from a drawing;
// paper/evalbook.tex, the key numbers of every analysis as LaTeX macros
// read from the same documents as data/<id>.json (doc.go) (and listed on
// each analysis page); CITATION.cff and citation.bib from the manifest.
// With --format latex (Options.Paper), paper/ also holds every table
// (paper/tables/<table-id>.tex), every PDF figure (paper/figures/), the
// citation and an example document that inputs them all.
func (b *siteBuild) writePaperFiles() error {
	tables := b.writeTablesTeX()
	b.writeReportsTeX()
	figs := b.writeFigureExports()
	if err := b.writeMacros(); err != nil {
		return err
	}
	s := b.study
	cite := paper.Study{Title: s.Title, Subtitle: s.Subtitle, Date: s.Date, DOI: s.DOI, License: s.License,
		Abstract: s.Abstract, Authors: s.Authors, Links: s.Links}
	b.files["CITATION.cff"] = paper.CFF(cite)
	b.files["citation.bib"] = paper.BibTeX(cite)
	if b.m.Options.Paper {
		b.files["paper/citation.bib"] = b.files["citation.bib"]
		b.files["paper/example.tex"] = exampleTeX(s.Title, paper.BibKey(cite), tables, figs)
	}
	return nil
}

// Reporter is a Result that writes its own report: sentences that state
// the procedure and the result (critical_difference's automatic choice),
// plain Unicode text with labels.
type Reporter interface {
	Report() []string
}

// writeReportsTeX writes data/reports/<id>.tex, the LaTeX paragraph of
// every analysis whose result reports itself (and its copy in
// paper/reports/ with --format latex), linked from the analysis's page.
func (b *siteBuild) writeReportsTeX() {
	for _, v := range b.views {
		r, ok := v.a.Result.(Reporter)
		if !ok {
			continue
		}
		sentences := r.Report()
		if len(sentences) == 0 {
			continue
		}
		var esc []string
		for _, s := range sentences {
			esc = append(esc, paper.Prose(s))
		}
		tex := []byte("% " + v.ID + ": the report of the analysis, written by evalbook from data/" + v.ID + ".json\n" + strings.Join(esc, "\n") + "\n")
		b.files["data/reports/"+v.ID+".tex"] = tex
		v.ReportTeXHref = "data/reports/" + v.ID + ".tex"
		if b.m.Options.Paper {
			b.files["paper/reports/"+v.ID+".tex"] = tex
		}
	}
}

// writeTablesTeX writes data/<table-id>.tex for every table, the paper
// view of its presentation (paper.LaTeX), and with --format latex its
// copy in paper/tables/ (a float) or paper/appendix/ (a longtable, for a
// one-column appendix, never in tables/); it links the file beside the
// CSV and returns the paper/ paths without ".tex", in site order.
func (b *siteBuild) writeTablesTeX() []string {
	var tables []string
	for _, v := range b.views {
		for i := range v.Tables {
			t := &v.Tables[i]
			var tex []byte // left unmade for validate (Options.Check)
			if !b.m.Options.Check {
				tex = paper.LaTeX(t.spec)
			}
			b.files["data/"+t.ID+".tex"] = tex
			t.TeXHref = "data/" + t.ID + ".tex"
			if b.m.Options.Paper {
				path := paper.TableDir(t.spec) + "/" + t.ID
				b.files["paper/"+path+".tex"] = tex
				tables = append(tables, path)
			}
		}
	}
	return tables
}

// paperFigure is a figure of paper/example.tex: its id, title and width.
type paperFigure struct {
	ID string
	// Caption is the figure's caption, as its page prints it under the
	// figure (its title when it has none).
	Caption string
	Width   vg.Length
}

// writeFigureExports writes figures/<id>.pdf and figures/<id>.png (300
// dpi) beside the SVG of every figure that has a drawing, laid out at
// figureWidth, and links them beside the SVG; with --format latex the PDF
// goes to paper/figures/ too. It returns the figures of paper/.
func (b *siteBuild) writeFigureExports() []paperFigure {
	var out []paperFigure
	for _, e := range b.renderExports() {
		f := e.f
		f.PDFHref, f.PNGHref = "figures/"+f.ID+".pdf", "figures/"+f.ID+".png"
		b.files[f.PDFHref], b.files[f.PNGHref] = e.pdf, e.png
		if b.m.Options.Paper {
			b.files["paper/"+f.PDFHref] = e.pdf
			caption := f.Caption
			if caption == "" {
				caption = f.Title
			}
			out = append(out, paperFigure{ID: f.ID, Caption: caption, Width: e.width})
		}
	}
	return out
}

// figureExport is one figure's PDF and PNG.
type figureExport struct {
	f        *figureView
	pdf, png []byte
	width    vg.Length
}

// renderExports collects the PDF and PNG of every figure that has them
// (rendered when its analysis ran: figures.Render), in site order.
func (b *siteBuild) renderExports() []figureExport {
	var out []figureExport
	for _, v := range b.views {
		for i := range v.Figures {
			if f := v.Figures[i].fig; f.PDF != nil {
				out = append(out, figureExport{f: &v.Figures[i], pdf: f.PDF, png: f.PNG, width: vg.Length(f.PDFWidth)})
			}
		}
	}
	return out
}

// writeMacros writes paper/evalbook.tex and gives each analysis page its
// own macros, for its "Cite in LaTeX" box.
func (b *siteBuild) writeMacros() error {
	docs := make([]paper.Doc, len(b.views))
	for i, v := range b.views {
		docs[i] = paper.Doc{ID: v.ID, Value: macroDoc(b.docs[v.ID]), Naming: b.study.Labels.Naming, Shown: b.shown[v.ID]}
	}
	macros, err := paper.Macros(docs)
	if err != nil {
		return err
	}
	b.files["paper/evalbook.tex"] = paper.MacrosTeX(b.study.Title, macros)
	byID := map[string][]macroView{}
	for _, m := range macros {
		byID[m.ID] = append(byID[m.ID], macroView{Name: `\` + m.Name, Value: m.Value})
	}
	for _, v := range b.views {
		v.Macros = byID[v.ID]
	}
	return nil
}

// shownIn is paper.Doc.Shown for an analysis's tables: the text a
// number column (or an interval's bound) prints v with, where it holds
// exactly v; not a column of its own scale (a share in percent), of
// p-values or Monte Carlo estimates (the macros write those as
// analyses.FormatP does), or of text; false where two print v apart.
func shownIn(tables []tableView) func(key string, v float64) (string, bool) {
	type col struct {
		f    model.NumberFormat
		vals map[float64]bool
	}
	by := map[string][]col{}
	for _, tv := range tables {
		if tv.spec == nil {
			continue
		}
		at := map[string]int{}
		for j, id := range tv.table.Columns {
			at[id] = j
		}
		for _, c := range tv.spec.Columns {
			switch c.Format.Kind {
			case model.NumInteger, model.NumFixed, model.NumScientific, model.NumSignificant:
			default:
				continue
			}
			if c.Scale != 0 && c.Scale != 1 {
				continue
			}
			for _, id := range []string{c.ID, c.HighID} {
				j, ok := at[id]
				if id == "" || !ok {
					continue
				}
				vals := map[float64]bool{}
				for _, r := range tv.table.Rows {
					if x, ok := r[j].(float64); ok {
						vals[x] = true
					}
				}
				by[id] = append(by[id], col{c.Format, vals})
			}
		}
	}
	return func(key string, v float64) (string, bool) {
		text := ""
		for _, c := range by[key] {
			if !c.vals[v] {
				continue
			}
			if t := c.f.Format(v); text == "" {
				text = t
			} else if t != text {
				return "", false
			}
		}
		return text, text != ""
	}
}

// exampleTextWidth is the text width of example.tex (letter paper,
// 0.75 in margins, as ACM's and IEEE's two-column formats): wider
// figures are scaled down to the line.
const exampleTextWidth = 7 * vg.Inch

// exampleTeX is paper/example.tex: a two-column document that loads the
// macros, shows every PDF figure and inputs every table float, with the
// longtables in a one-column appendix, to see them typeset as a
// conference paper would (pdflatex example.tex). A figure is as wide as
// its column (or both, figure*), or less where that would leave no room
// on the page for its caption (a forest plot of many datasets). The
// caption is the one its page prints under it.
func exampleTeX(title, key string, tables []string, figs []paperFigure) []byte {
	var b strings.Builder
	b.WriteString("% example.tex: written by evalbook. Compile in this directory (bibtex resolves the citation):\n%   pdflatex example && bibtex example && pdflatex example && pdflatex example\n")
	b.WriteString("\\documentclass[twocolumn]{article}\n\\usepackage[letterpaper,margin=0.75in]{geometry}\n\\usepackage{booktabs,longtable,graphicx}\n\\input{evalbook.tex}\n")
	fmt.Fprintf(&b, "\\title{%s}\n\\begin{document}\n\\maketitle\n", paper.Escape(title))
	fmt.Fprintf(&b, "The tables and figures below are the study's \\cite{%s}.\n\n", key)
	for _, f := range figs {
		env, width, line := "figure", "\\linewidth", exampleTextWidth/2
		if f.Width > exampleTextWidth/2 {
			env, line = "figure*", exampleTextWidth
		}
		// the caption's lines (10 pt text, about 5 pt a character) and
		// the space around it stay on the page below the figure
		lines := 1 + vg.Length(utf8.RuneCountInString(f.Caption))*5/line
		fmt.Fprintf(&b, "\\begin{%s}[tbp]\n\\centering\n\\includegraphics[width=%s,height=\\dimexpr\\textheight-%dpt\\relax,keepaspectratio]{figures/%s.pdf}\n\\caption{%s}\\label{fig:%s}\n\\end{%s}\n\\clearpage\n",
			env, width, int(12*(lines+2)), f.ID, paper.Escape(f.Caption), f.ID, env)
	}
	var appendix []string
	for _, p := range tables {
		if strings.HasPrefix(p, paper.DirAppendix+"/") {
			appendix = append(appendix, p)
			continue
		}
		fmt.Fprintf(&b, "\\input{%s}\n\\clearpage\n", p)
	}
	b.WriteString("\\clearpage\n\\onecolumn\n\\appendix\n")
	for _, p := range appendix {
		fmt.Fprintf(&b, "\\input{%s}\n\\clearpage\n", p)
	}
	b.WriteString("\\bibliographystyle{plain}\n\\bibliography{citation}\n\\end{document}\n")
	return []byte(b.String())
}

// macroDoc is an analysis's document as paper.Macros reads it, without
// the top-level keys it skips (paper.MacroSkipped): the tables are most
// of a large analysis's document (58 of 81 MB for 10 000 ranked-list
// runs), and decoded into Go values they took gigabytes to be ignored.
func macroDoc(doc any) map[string]any {
	o, ok := doc.(*Object)
	if !ok {
		m, _ := decoded(doc).(map[string]any)
		return m
	}
	out := make(map[string]any, len(o.keys))
	for i, k := range o.keys {
		if !paper.MacroSkipped(k) {
			out[k] = decoded(o.vals[i])
		}
	}
	return out
}
