package report

import (
	"github.com/evalbook/evalbook/report/paper"
)

// writePaperFiles adds what a manuscript takes from the site (issue 17,
// package report/paper): data/<table-id>.tex beside every table's CSV.
func (b *siteBuild) writePaperFiles() error {
	for _, v := range b.views {
		for _, t := range v.Tables {
			caption := t.Title
			if caption == "" {
				caption = v.Title
			}
			b.files["data/"+t.ID+".tex"] = paper.LaTeX(paper.Table{ID: t.ID, Caption: caption, Table: t.table})
		}
	}
	return nil
}
