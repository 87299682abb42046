package report

import (
	"fmt"
	"strings"

	"github.com/evalbook/evalbook/report/paper"
)

// writePaperFiles adds what a manuscript takes from the site (issue 17,
// package report/paper): data/<table-id>.tex beside every table's CSV;
// paper/evalbook.tex, the key numbers of every analysis as LaTeX macros
// read from the same data/<id>.json the site publishes; CITATION.cff and
// citation.bib from the manifest. With --format latex (Options.Paper),
// paper/ also holds every table (paper/tables/<table-id>.tex), the
// citation and an example document that inputs them all.
func (b *siteBuild) writePaperFiles() error {
	var docs []paper.Doc
	var tables []string
	for _, v := range b.views {
		for _, t := range v.Tables {
			caption := t.Title
			if caption == "" {
				caption = v.Title
			}
			tex := paper.LaTeX(paper.Table{ID: t.ID, Caption: caption, Table: t.table})
			b.files["data/"+t.ID+".tex"] = tex
			if b.opts.Paper {
				b.files["paper/tables/"+t.ID+".tex"] = tex
				tables = append(tables, t.ID)
			}
		}
		docs = append(docs, paper.Doc{ID: v.ID, JSON: b.files["data/"+v.ID+".json"]})
	}
	macros, err := paper.Macros(docs)
	if err != nil {
		return err
	}
	b.files["paper/evalbook.tex"] = paper.MacrosTeX(b.study.Title, macros)
	s := b.study
	cite := paper.Study{Title: s.Title, Subtitle: s.Subtitle, Date: s.Date, DOI: s.DOI, License: s.License,
		Abstract: s.Abstract, Authors: s.Authors, Links: s.Links}
	b.files["CITATION.cff"] = paper.CFF(cite)
	b.files["citation.bib"] = paper.BibTeX(cite)
	if b.opts.Paper {
		b.files["paper/citation.bib"] = b.files["citation.bib"]
		b.files["paper/example.tex"] = exampleTeX(s.Title, paper.BibKey(cite), tables)
	}
	return nil
}

// exampleTeX is paper/example.tex: a document that loads the macros and
// inputs every table, to see them typeset (pdflatex example.tex).
func exampleTeX(title, key string, tables []string) []byte {
	var b strings.Builder
	b.WriteString("% example.tex: written by evalbook. Compile in this directory: pdflatex example.tex\n")
	b.WriteString("\\documentclass{article}\n\\usepackage{booktabs,longtable}\n\\input{evalbook.tex}\n")
	fmt.Fprintf(&b, "\\title{%s}\n\\begin{document}\n\\maketitle\n", paper.Escape(title))
	fmt.Fprintf(&b, "The tables below are the study's \\cite{%s}.\n\n", key)
	for _, id := range tables {
		fmt.Fprintf(&b, "\\input{tables/%s}\n\\clearpage\n", id)
	}
	b.WriteString("\\bibliographystyle{plain}\n\\bibliography{citation}\n\\end{document}\n")
	return []byte(b.String())
}
