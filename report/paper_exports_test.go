package report

import (
	"bytes"
	"html"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
)

// exportResult is a result with one table and two key numbers, for the
// macros of the "Cite in LaTeX" box.
type exportResult struct {
	Score float64 `json:"score"`
	Gap   float64 `json:"gap"`
	name  string
}

func (r exportResult) Tables() []analyses.Table {
	return []analyses.Table{{Title: "Scores of " + r.name, Columns: []string{"method", "score"},
		Rows: [][]any{{"A", r.Score}, {"B", r.Score - r.Gap}}, Better: map[string]string{"score": "higher"}}}
}

func (exportResult) Notes() []string { return nil }

// exportSite is a site of two analyses: "alpha" with a figure drawn by
// gonum/plot (a Drawing) and one without; "beta" with no figure.
func exportSite(t *testing.T, o Options) *siteBuild {
	t.Helper()
	d, svg := exportDrawing(t)
	d2, svg2 := exportDrawing(t)
	runs := []analysisRun{
		{Spec: manifest.AnalysisSpec{ID: "alpha", Type: "aggregate", Title: "Alpha", Options: &struct{}{}}, Output: &kinds.Output{
			Result: exportResult{Score: 0.75, Gap: 0.125, name: "alpha"},
			Figures: []figures.Figure{
				{ID: "alpha", Title: "Alpha scores", Caption: "Drawn.", SVG: svg, Drawing: &d},
				{ID: "alpha-plain", Title: "Plain", Caption: "No drawing.", SVG: svg},
			}}},
		{Spec: manifest.AnalysisSpec{ID: "beta", Type: "aggregate", Title: "Beta", Options: &struct{}{}}, Output: &kinds.Output{
			Result:  exportResult{Score: 0.5, Gap: 0.25, name: "beta"},
			Figures: []figures.Figure{{ID: "beta", Title: "Beta scores", Caption: "Drawn.", SVG: svg2, Drawing: &d2}}}},
	}
	study := &manifest.Study{Title: "Export study", Authors: []string{"A. Author"}, Date: "2024-01-02", File: "study.toml", FigureWidth: 5}
	for _, r := range runs { // as the build's phase does when an analysis has run
		if err := figures.Render(r.Output.Figures, figureWidth(study)); err != nil {
			t.Fatal(err)
		}
	}
	return &siteBuild{study: study, runs: runs, prov: &Provenance{}, opts: o, sources: map[string][]byte{}}
}

// exportDrawing is a line plot's drawing at 6×4 in and its SVG.
func exportDrawing(t *testing.T) (figures.Drawing, []byte) {
	t.Helper()
	p := figures.NewPlot("Scores", "x", "y")
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 3}, {X: 2, Y: 2}})
	if err != nil {
		t.Fatal(err)
	}
	l.Color = figures.Colour(1)
	l.Width = vg.Points(3)
	p.Add(l)
	d := figures.PlotDrawing(p, 6*vg.Inch, 4*vg.Inch)
	svg, err := d.SVG()
	if err != nil {
		t.Fatal(err)
	}
	return d, svg
}

func renderExport(t *testing.T, o Options) map[string][]byte {
	t.Helper()
	files, err := exportSite(t, o).render()
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// needPdfinfo skips without poppler's pdfinfo, but fails under CI,
// where `make deps` installs it.
func needPdfinfo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("pdfinfo"); err != nil {
		msg := "pdfinfo not found: run `make deps` (Debian poppler-utils)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// TestFigureExports: a figure with a drawing gets figures/<id>.pdf (one
// page of figure_width, opened by pdfinfo) and figures/<id>.png (300 dpi,
// not blank), and with --format latex paper/figures/<id>.pdf, which
// paper/example.tex includes; a figure without a drawing gets neither;
// two builds are byte-identical.
func TestFigureExports(t *testing.T) {
	skipUnderRace(t, "renders a site of two analyses and rasterises its figures")
	needPdfinfo(t)
	o := Options{Format: "both", Paper: true, Jobs: 2}
	files := renderExport(t, o)
	pdf, pngData := files["figures/alpha.pdf"], files["figures/alpha.png"]
	if pdf == nil || pngData == nil {
		t.Fatalf("no figures/alpha.pdf or .png: %v", sortedFileNames(files, "figures/"))
	}
	for _, f := range []string{"figures/alpha-plain.pdf", "figures/alpha-plain.png", "paper/figures/alpha-plain.pdf"} {
		if _, ok := files[f]; ok {
			t.Errorf("%s written for a figure without a drawing", f)
		}
	}
	if files["figures/beta.pdf"] == nil || files["figures/beta.png"] == nil {
		t.Error("no figures/beta.pdf or .png")
	}
	if !bytes.Equal(files["paper/figures/alpha.pdf"], pdf) {
		t.Error("paper/figures/alpha.pdf is not figures/alpha.pdf")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "alpha.pdf")
	if err := os.WriteFile(path, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdfinfo", path).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	// figure_width = 5 in = 360 pt, the 6×4 in drawing keeps its aspect.
	if !regexp.MustCompile(`Page size:\s+360 x 240 pts`).Match(out) || !regexp.MustCompile(`Pages:\s+1\n`).Match(out) {
		t.Errorf("pdfinfo: not one page of 360×240 pt:\n%s", out)
	}
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1500 || b.Dy() != 1000 {
		t.Errorf("PNG %d×%d px, want 1500×1000 (5 in at 300 dpi)", b.Dx(), b.Dy())
	}
	if !hasColour(img, figures.Colour(1)) {
		t.Error("the PNG does not show the line's colour (blank?)")
	}
	ex := string(files["paper/example.tex"])
	if !regexp.MustCompile(`\\includegraphics\[width=\\linewidth,height=\\dimexpr\\textheight-\d+pt\\relax,keepaspectratio\]\{figures/alpha.pdf\}`).MatchString(ex) || !strings.Contains(ex, `\usepackage{booktabs,longtable,graphicx}`) ||
		strings.Contains(ex, "alpha-plain") {
		t.Errorf("paper/example.tex does not include exactly the PDF figure:\n%s", ex)
	}
	again := renderExport(t, o)
	for _, name := range sortedFileNames(files, "") {
		if !bytes.Equal(files[name], again[name]) {
			t.Errorf("%s differs between two builds", name)
		}
	}
}

// hasColour reports whether some pixel of img is c, to within rounding.
func hasColour(img image.Image, c color.NRGBA) bool {
	near := func(a uint32, b uint8) bool { d := int(a>>8) - int(b); return d > -8 && d < 8 }
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			if near(pr, c.R) && near(pg, c.G) && near(pb, c.B) {
				return true
			}
		}
	}
	return false
}

// sortedFileNames are the names of files under prefix, sorted.
func sortedFileNames(files map[string][]byte, prefix string) []string {
	var out []string
	for k := range files {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

var pageLinkAttrRe = regexp.MustCompile(`href="((?:figures|data|paper)/[^"#]+)"`)

// TestPaperLinks: each figure's PDF and PNG are linked beside its SVG,
// and each table's .tex beside its CSV, on the HTML and Markdown pages,
// only for files the build wrote: every figures/, data/ and paper/ link
// of every page names a file of the site.
func TestPaperLinks(t *testing.T) {
	skipUnderRace(t, "renders a site of two analyses")
	files := renderExport(t, Options{Format: "both"})
	html, md := string(files["alpha.html"]), string(files["alpha.md"])
	for _, want := range []string{`href="figures/alpha.pdf"`, `href="figures/alpha.png"`, `href="data/alpha.tex"`} {
		if !strings.Contains(html, want) {
			t.Errorf("alpha.html lacks %s", want)
		}
	}
	for _, want := range []string{"[PDF](figures/alpha.pdf)", "[PNG](figures/alpha.png)", "[LaTeX](data/alpha.tex)"} {
		if !strings.Contains(md, want) {
			t.Errorf("alpha.md lacks %s", want)
		}
	}
	if strings.Contains(html+md, "alpha-plain.pdf") || strings.Contains(html+md, "alpha-plain.png") {
		t.Error("a figure without a drawing links a PDF or PNG")
	}
	for name, data := range files {
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		for _, m := range pageLinkAttrRe.FindAllStringSubmatch(string(data), -1) {
			if _, ok := files[m[1]]; !ok {
				t.Errorf("%s links %s, which the build did not write", name, m[1])
			}
		}
	}
	mdLink := regexp.MustCompile(`\]\(((?:figures|data|paper)/[^)]+)\)`)
	for name, data := range files {
		if !strings.HasSuffix(name, ".md") {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			if _, ok := files[m[1]]; !ok {
				t.Errorf("%s links %s, which the build did not write", name, m[1])
			}
		}
	}
}

var (
	newcommandRe = regexp.MustCompile(`(?m)^% (\S+) .*\n\\newcommand\{(\\[A-Za-z]+)\}\{(.*)\}$`)
	citeBoxRe    = regexp.MustCompile(`(?s)<details class="cite-latex">.*?</details>`)
	citeRowRe    = regexp.MustCompile(`<tr><td><code>([^<]*)</code></td><td><code>([^<]*)</code></td></tr>`)
)

// TestCiteInLaTeX: each analysis page's "Cite in LaTeX" box lists
// exactly that analysis's macros of paper/evalbook.tex, with the values
// that file gives them, and tells how to \input it; the overview shows
// the BibTeX entry and links CITATION.cff and citation.bib, which the
// single-file site carries as data: URIs.
func TestCiteInLaTeX(t *testing.T) {
	skipUnderRace(t, "renders a site of two analyses, twice")
	files := renderExport(t, Options{Format: "html"})
	want := map[string][]string{}
	for _, m := range newcommandRe.FindAllStringSubmatch(string(files["paper/evalbook.tex"]), -1) {
		want[m[1]] = append(want[m[1]], m[2]+" = "+m[3])
	}
	if len(want["alpha"]) < 2 || len(want["beta"]) < 2 {
		t.Fatalf("macros of evalbook.tex: %v", want)
	}
	for _, id := range []string{"alpha", "beta"} {
		box := citeBoxRe.FindString(string(files[id+".html"]))
		if box == "" || !strings.Contains(box, `\input{evalbook.tex}`) || !strings.Contains(box, "<summary>Cite in LaTeX</summary>") {
			t.Errorf("%s.html: no Cite in LaTeX box telling how to \\input evalbook.tex:\n%s", id, box)
			continue
		}
		var got []string
		for _, m := range citeRowRe.FindAllStringSubmatch(box, -1) {
			got = append(got, htmlUnescape(m[1])+" = "+htmlUnescape(m[2]))
		}
		if !slices.Equal(got, want[id]) {
			t.Errorf("%s.html lists\n%v\nwant, as in paper/evalbook.tex,\n%v", id, got, want[id])
		}
	}
	idx := string(files["index.html"])
	bib := string(files["citation.bib"])
	if !strings.Contains(idx, "Cite this study") || !strings.Contains(idx, `href="CITATION.cff"`) || !strings.Contains(idx, `href="citation.bib"`) ||
		!strings.Contains(htmlUnescape(idx), strings.TrimSpace(bib)) {
		t.Errorf("index.html: no Cite this study block with the links and the BibTeX entry")
	}
	single := string(renderExport(t, Options{Format: "html", SingleFile: true})["index.html"])
	for _, f := range []string{"CITATION.cff", "citation.bib", "paper/evalbook.tex", "figures/alpha.pdf", "figures/alpha.png"} {
		if strings.Contains(single, `href="`+f+`"`) {
			t.Errorf("the single file links %s, which it does not carry", f)
		}
	}
	if !strings.Contains(single, `href="data:application/x-yaml;charset=utf-8;base64,`) || !strings.Contains(single, "Cite in LaTeX") {
		t.Error("the single file lacks CITATION.cff as a data: URI or the Cite in LaTeX box")
	}
}

// htmlUnescape undoes html/template's escaping of text.
func htmlUnescape(s string) string { return html.UnescapeString(s) }
