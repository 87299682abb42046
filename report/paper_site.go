package report

import (
	"github.com/evalbook/evalbook/report/paper"
)

// writePaperFiles adds what a manuscript takes from the site (issue 17,
// package report/paper): data/<table-id>.tex beside every table's CSV,
// and paper/evalbook.tex, the key numbers of every analysis as LaTeX
// macros read from the same data/<id>.json the site publishes, and
// CITATION.cff and citation.bib from the manifest.
func (b *siteBuild) writePaperFiles() error {
	var docs []paper.Doc
	for _, v := range b.views {
		for _, t := range v.Tables {
			caption := t.Title
			if caption == "" {
				caption = v.Title
			}
			b.files["data/"+t.ID+".tex"] = paper.LaTeX(paper.Table{ID: t.ID, Caption: caption, Table: t.table})
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
	return nil
}
