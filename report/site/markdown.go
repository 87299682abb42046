package site

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// writeMarkdown writes the --format md site: README.md and <slug>.md,
// tables as GitHub-flavoured Markdown, figures as SVG images. Every user
// string is escaped so that forges render it as text.
func (b *siteBuild) writeMarkdown() error {
	idx, err := b.mdIndex()
	if err != nil {
		return err
	}
	b.files["README.md"] = idx
	var errs Errors
	for _, p := range b.m.Pages {
		out, err := b.narrativeMarkdown(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		b.files[p.Slug+".md"] = []byte(out + "\n")
	}
	if len(errs) > 0 {
		return errs
	}
	for _, v := range b.views {
		b.files[v.ID+".md"] = b.mdAnalysis(v)
	}
	return nil
}

// mdIndex is README.md: the study's title, authors and links, abstract,
// key findings, contents and how to cite it.
func (b *siteBuild) mdIndex() ([]byte, error) {
	var idx bytes.Buffer
	s := b.study
	mdTitleBlock(&idx, s)
	if s.Abstract != "" {
		n := b.newNarrative(s.Manifest+" (abstract)", "md")
		abstract := n.expand(mdBlock(s.Abstract, s.UnsafeHTML))
		if len(n.errs) > 0 {
			return nil, n.errs
		}
		fmt.Fprintf(&idx, "## Abstract\n\n%s\n\n", abstract)
	}
	var findings []string
	for _, v := range b.views {
		if f := finding(v.Title, v.a.Highlight); f != "" {
			findings = append(findings, fmt.Sprintf("- [%s](%s.md): %s", mdText(v.Title), v.ID, mdText(f)))
		}
	}
	if len(findings) > 0 {
		fmt.Fprintf(&idx, "## Key findings\n\n%s\n\n", strings.Join(findings, "\n"))
	}
	idx.WriteString("## Contents\n\n")
	for _, p := range b.m.Pages {
		fmt.Fprintf(&idx, "- [%s](%s.md)\n", mdText(p.Title), p.Slug)
	}
	for _, v := range b.views {
		fmt.Fprintf(&idx, "- [%s](%s.md) (`%s`)\n", mdText(v.Title), v.ID, v.Kind)
	}
	idx.WriteString("- [Provenance](data/provenance.json)\n")
	if bib, ok := b.files["citation.bib"]; ok {
		fmt.Fprintf(&idx, "\n## Cite this study\n\n[CITATION.cff](CITATION.cff) (Citation File Format) · [citation.bib](citation.bib) (BibTeX):\n\n```bibtex\n%s```\n", bib)
	}
	return idx.Bytes(), nil
}

// mdTitleBlock writes the title, subtitle, authors, date, DOI and links.
func mdTitleBlock(idx *bytes.Buffer, s *Study) {
	fmt.Fprintf(idx, "# %s\n\n", mdText(s.Title))
	if s.Subtitle != "" {
		fmt.Fprintf(idx, "*%s*\n\n", mdText(s.Subtitle))
	}
	if len(s.Authors) > 0 {
		fmt.Fprintf(idx, "%s\n\n", mdText(strings.Join(s.Authors, ", ")))
	}
	var meta []string
	if s.Date != "" {
		meta = append(meta, mdText(s.Date))
	}
	if s.DOI != "" {
		meta = append(meta, fmt.Sprintf("[doi:%s](https://doi.org/%s)", mdText(s.DOI), mdURL(s.DOI)))
	}
	for _, k := range analyses.SortedKeys(s.Links) {
		meta = append(meta, fmt.Sprintf("[%s](%s)", mdText(k), mdURL(s.Links[k])))
	}
	if len(meta) > 0 {
		fmt.Fprintf(idx, "%s\n\n", strings.Join(meta, " · "))
	}
}

// mdAnalysis is <id>.md: an analysis page with its notes, figures,
// tables, method, parameters and macros.
func (b *siteBuild) mdAnalysis(v *analysisView) []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# %s\n\n", mdText(v.Title))
	fmt.Fprintf(&buf, "Analysis `%s` · type `%s` · [data (JSON)](data/%s.json)\n\n", v.ID, v.Kind, v.ID)
	if v.Caption != "" {
		fmt.Fprintf(&buf, "%s\n\n", mdText(v.Caption))
	}
	if len(v.Notes) > 0 {
		buf.WriteString("## Notes\n\n")
		for _, n := range v.Notes {
			fmt.Fprintf(&buf, "- %s\n", mdInline(n))
		}
		buf.WriteString("\n")
	}
	for _, f := range v.Figures {
		fmt.Fprintf(&buf, "![%s](figures/%s.svg)\n\n**Figure %d.** %s%s\n\n", mdText(f.Title), f.ID, f.Num, mdText(f.Caption), b.mdFileLinks("figures/"+f.ID, ".pdf", ".png"))
	}
	for _, t := range v.Tables {
		fmt.Fprintf(&buf, "**Table %d.** %s ([CSV](data/%s.csv)%s)\n\n", t.Num, mdText(t.Title), t.ID, b.mdFileLinks("data/"+t.ID, ".tex"))
		buf.WriteString(mdTable(t))
		buf.WriteString("\n")
	}
	if m := v.a.Method; m != "" {
		fmt.Fprintf(&buf, "## Method\n\n%s\n\n", m)
	}
	mdParams(&buf, v)
	mdMacros(&buf, v.Macros)
	return buf.Bytes()
}

// mdFileLinks links, for each extension, the file base+ext when the
// build wrote it: " · [PDF](figures/x.pdf)".
func (b *siteBuild) mdFileLinks(base string, exts ...string) string {
	var out strings.Builder
	for _, ext := range exts {
		if _, ok := b.files[base+ext]; ok {
			name := strings.ToUpper(ext[1:])
			if ext == ".tex" {
				name = "LaTeX"
			}
			fmt.Fprintf(&out, " · [%s](%s%s)", name, base, ext)
		}
	}
	return out.String()
}

// mdParams is the parameters table of an analysis page.
func mdParams(buf *bytes.Buffer, v *analysisView) {
	buf.WriteString("## Parameters\n\n| key | value |\n| --- | --- |\n")
	for _, p := range v.Params {
		def := ""
		if p.Default {
			def = " (default)"
		}
		fmt.Fprintf(buf, "| `%s` | `%s`%s |\n", p.Key, strings.ReplaceAll(strings.ReplaceAll(p.Value, "\n", "; "), "|", "\\|"), def)
	}
	fmt.Fprintf(buf, "| seed | `%d` |\n", v.Seed)
}

// mdMacros is the "Cite in LaTeX" section: the analysis's macros of
// paper/evalbook.tex and their values.
func mdMacros(buf *bytes.Buffer, macros []macroView) {
	if len(macros) == 0 {
		return
	}
	buf.WriteString("\n## Cite in LaTeX\n\nPut `\\input{evalbook.tex}` in the manuscript's preamble, with [paper/evalbook.tex](paper/evalbook.tex) beside it, and write a macro where its number goes.\n\n| macro | value |\n| --- | --- |\n")
	for _, m := range macros {
		fmt.Fprintf(buf, "| %s | %s |\n", mdCode(m.Name), mdCode(m.Value))
	}
}

// mdCode is s as inline code in a Markdown table cell: a fence longer
// than any run of backticks in s, and | escaped.
func mdCode(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fence + " " + strings.ReplaceAll(s, "|", "\\|") + " " + fence
}

// Markdown tables: a table of more than mdOpenRows rows is folded in a
// <details> block, and at most mdMaxRows of its rows are written; every
// row is in data/<id>.csv, linked beside it.
const (
	mdOpenRows = 20
	mdMaxRows  = 50
)

// mdTable is a table in GitHub-flavoured Markdown, from the same
// presentation as its page: labels, one format per column, the best
// cell bold, the second in italics, a tie marked "=", a significant
// p-value "*", a partial summary's count "(d/n)", and the notes that
// explain them. No text that only a page can act on.
func mdTable(t tableView) string {
	var buf bytes.Buffer
	head := make([]string, len(t.Columns))
	sep := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = mdText(c.Label)
		sep[i] = "---"
		if t.spec != nil && t.spec.Columns[i].Numeric() {
			sep[i] = "---:"
		}
	}
	rows := t.Rows
	if len(rows) > mdMaxRows {
		rows = rows[:mdMaxRows]
	}
	total := len(t.Rows)
	if t.More > 0 {
		total = t.More
	}
	folded := total > mdOpenRows
	if folded {
		fmt.Fprintf(&buf, "<details><summary>Show the table (%d rows)</summary>\n\n", total)
	}
	fmt.Fprintf(&buf, "| %s |\n| %s |\n", strings.Join(head, " | "), strings.Join(sep, " | "))
	for _, row := range rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = mdCell(c)
		}
		fmt.Fprintf(&buf, "| %s |\n", strings.Join(cells, " | "))
	}
	if len(rows) < total {
		fmt.Fprintf(&buf, "\nThe first %d of %d rows; all are in [data/%s.csv](data/%s.csv).\n", len(rows), total, t.ID, t.ID)
	}
	if len(t.Notes) > 0 {
		buf.WriteString("\n")
		for i, n := range t.Notes {
			if i > 0 {
				buf.WriteString(" ")
			}
			// Markdown sets the second in italics and the tie mark
			// as a superscript
			n = strings.NewReplacer("underlined: second", "italics: second", "=: tied", "⁼: tied").Replace(n)
			buf.WriteString(mdInline(n))
		}
		buf.WriteString("\n")
	}
	if folded {
		buf.WriteString("\n</details>\n")
	}
	return buf.String()
}

// mdCell is one cell with its marks.
func mdCell(c cellView) string {
	s := mdText(c.Text)
	switch {
	case c.Best:
		s = "**" + s + "**"
	case c.Second:
		s = "*" + s + "*"
	}
	if c.Tied {
		s += "⁼"
	}
	if c.Sig {
		s += "\\*"
	}
	if c.Count != "" {
		s += " (" + c.Count + ")"
	}
	return s
}

// mdText escapes a user string for Markdown: HTML-significant characters
// become entities and Markdown punctuation is backslash-escaped, so the
// text renders literally on any forge.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '|', '#', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n', '\r':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdURL keeps a link target from closing the Markdown link.
func mdURL(s string) string {
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E").Replace(s)
}

// mdBlock passes the author's Markdown through, escaping raw HTML unless
// the manifest allows it (unsafe_html = true).
func mdBlock(s string, unsafe bool) string {
	if unsafe {
		return s
	}
	return strings.ReplaceAll(s, "<", "&lt;")
}
