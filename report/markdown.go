package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// writeMarkdown writes the --format md site: README.md and <slug>.md,
// tables as GitHub-flavoured Markdown, figures as SVG images. Every user
// string is escaped so that forges render it as text.
func (b *siteBuild) writeMarkdown() error {
	var idx bytes.Buffer
	s := b.study
	fmt.Fprintf(&idx, "# %s\n\n", mdText(s.Title))
	if s.Subtitle != "" {
		fmt.Fprintf(&idx, "*%s*\n\n", mdText(s.Subtitle))
	}
	if len(s.Authors) > 0 {
		fmt.Fprintf(&idx, "%s\n\n", mdText(strings.Join(s.Authors, ", ")))
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
		fmt.Fprintf(&idx, "%s\n\n", strings.Join(meta, " · "))
	}
	if s.Abstract != "" {
		n := b.newNarrative(filepath.Base(s.File)+" (abstract)", "md")
		abstract := n.expand(mdBlock(s.Abstract, s.UnsafeHTML))
		if len(n.errs) > 0 {
			return n.errs
		}
		fmt.Fprintf(&idx, "## Abstract\n\n%s\n\n", abstract)
	}
	var findings []string
	for _, v := range b.views {
		if f := finding(v); f != "" {
			findings = append(findings, fmt.Sprintf("- [%s](%s.md): %s", mdText(v.Title), v.ID, mdText(f)))
		}
	}
	if len(findings) > 0 {
		fmt.Fprintf(&idx, "## Key findings\n\n%s\n\n", strings.Join(findings, "\n"))
	}
	idx.WriteString("## Contents\n\n")
	for _, p := range s.Pages {
		fmt.Fprintf(&idx, "- [%s](%s.md)\n", mdText(p.Title), p.Slug)
	}
	for _, v := range b.views {
		fmt.Fprintf(&idx, "- [%s](%s.md) (`%s`)\n", mdText(v.Title), v.ID, v.Kind)
	}
	idx.WriteString("- [Provenance](data/provenance.json)\n")
	b.files["README.md"] = idx.Bytes()

	var errs Errors
	for _, p := range s.Pages {
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
		var buf bytes.Buffer
		fmt.Fprintf(&buf, "# %s\n\n", mdText(v.Title))
		fmt.Fprintf(&buf, "Analysis `%s` · type `%s` · [data (JSON)](data/%s.json)\n\n", v.ID, v.Kind, v.ID)
		if v.Caption != "" {
			fmt.Fprintf(&buf, "%s\n\n", mdText(v.Caption))
		}
		if len(v.Notes) > 0 {
			buf.WriteString("## Notes\n\n")
			for _, n := range v.Notes {
				fmt.Fprintf(&buf, "- %s\n", mdText(n))
			}
			buf.WriteString("\n")
		}
		for _, f := range v.Figures {
			fmt.Fprintf(&buf, "![%s](figures/%s.svg)\n\n**Figure %d.** %s\n\n", mdText(f.Title), f.ID, f.Num, mdText(f.Caption))
		}
		for _, t := range v.Tables {
			fmt.Fprintf(&buf, "**Table %d.** %s ([CSV](data/%s.csv))\n\n", t.Num, mdText(t.Title), t.ID)
			buf.WriteString(mdTable(t))
			buf.WriteString("\n")
		}
		if m := v.run.Output.Method; m != "" {
			fmt.Fprintf(&buf, "## Method\n\n%s\n\n", m)
		}
		buf.WriteString("## Parameters\n\n| key | value |\n| --- | --- |\n")
		for _, p := range v.Params {
			def := ""
			if p.Default {
				def = " (default)"
			}
			fmt.Fprintf(&buf, "| %s | `%s`%s |\n", mdText(p.Key), strings.ReplaceAll(strings.ReplaceAll(p.Value, "\n", "; "), "|", "\\|"), def)
		}
		fmt.Fprintf(&buf, "| seed | `%d` |\n", v.Seed)
		b.files[v.ID+".md"] = buf.Bytes()
	}
	return nil
}

func mdTable(t tableView) string {
	var buf bytes.Buffer
	head := make([]string, len(t.Columns))
	sep := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = mdText(c.Label)
		sep[i] = "---"
		if len(t.Rows) > 0 && t.Rows[0][i].Num {
			sep[i] = "---:"
		}
	}
	fmt.Fprintf(&buf, "| %s |\n| %s |\n", strings.Join(head, " | "), strings.Join(sep, " | "))
	for _, row := range t.Rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = mdText(c.Text)
		}
		fmt.Fprintf(&buf, "| %s |\n", strings.Join(cells, " | "))
	}
	if t.More > 0 {
		fmt.Fprintf(&buf, "\nShowing the first %d of %d rows; all are in the CSV.\n", len(t.Rows), t.More)
	}
	return buf.String()
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
