package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/report"
	"github.com/evalbook/evalbook/report/kinds"
)

// exportWidths are the widths the layout tests lay every figure out at:
// one column (the default figure_width), a page's width, and 0: as it
// is, the site's SVG.
var exportWidths = []vg.Length{figures.ColumnWidth, 7 * vg.Inch, 0}

// checkExportLayout fails for every figure whose PDF/PNG drawing, laid
// out at an export width, or whose SVG drawing has text leaving the canvas, two texts
// overlapping, a mark leaving the canvas or a data area under 0.4 in
// (figures.Drawing.LayoutProblems).
func checkExportLayout(t *testing.T, figs []figures.Figure) {
	t.Helper()
	for _, f := range figs {
		if f.Drawing == nil {
			continue
		}
		for _, w := range exportWidths {
			d := f.Drawing.AtWidth(w)
			if ps := d.LayoutProblems(); len(ps) > 0 {
				t.Errorf("%s at figure_width %.2f in (%.2f×%.2f in): %d problems:\n%s", f.ID, w/vg.Inch, d.Width/vg.Inch, d.Height/vg.Inch,
					len(ps), strings.Join(ps[:min(len(ps), 5)], "\n"))
			}
		}
	}
}

// TestDemoFigureExportsLayout: every figure of the demo, laid out for a
// manuscript at one column and at 7 in, keeps its text apart and inside
// the canvas (the forest plots' rows overlapped and their plot had a
// negative width; the CD diagram's labels were cut off).
func TestDemoFigureExportsLayout(t *testing.T) {
	t.Parallel()
	checkExportLayout(t, demoFigures(t))
}

// TestSertkan2023FigureExportsLayout: the same for make bench-sertkan2023's
// study (five forest plots over the runs of Sertkan et al. 2023, from
// ../shared/reference; skipped when absent).
func TestSertkan2023FigureExportsLayout(t *testing.T) {
	t.Parallel()
	runs, err := filepath.Abs("../../../shared/reference/sertkan2023/runs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(runs); err != nil {
		t.Skip("no ../shared/reference/sertkan2023/runs:", err)
	}
	manifest, err := os.ReadFile("../../sites/bench/sertkan2023/study.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(runs, filepath.Join(dir, "runs")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), append([]byte("allow_outside = true\n"), manifest...), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var figs []figures.Figure
	reg := kinds.Registry{}
	for name, k := range kinds.Kinds() {
		k.Run = recordRuns(k.Run, func(out *kinds.Output) {
			mu.Lock()
			defer mu.Unlock()
			figs = append(figs, out.Figures...)
		})
		reg[name] = k
	}
	if _, err := report.BuildForArchive(context.Background(), report.Options{
		Manifest: filepath.Join(dir, "study.toml"), Kinds: reg, NoCache: true, Quiet: true}); err != nil {
		t.Fatalf("build: %v", err)
	}
	if len(figs) < 5 {
		t.Fatalf("the Sertkan et al. 2023 study drew %d figures, want its five forest plots", len(figs))
	}
	checkExportLayout(t, figs)
}
