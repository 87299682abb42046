package main

import (
	"bytes"
	"context"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/report"
	"github.com/evalbook/evalbook/report/kinds"
)

// recordRuns wraps a kind's run so that every output it returns is
// recorded (generic in the run's context type).
func recordRuns[C any](run func(*C, any) (*kinds.Output, error), record func(*kinds.Output)) func(*C, any) (*kinds.Output, error) {
	return func(c *C, o any) (*kinds.Output, error) {
		out, err := run(c, o)
		if err == nil && out != nil {
			record(out)
		}
		return out, err
	}
}

var (
	demoFigsOnce sync.Once
	demoFigs     []figures.Figure
	demoFigsErr  error
)

// demoFigures builds the demo in memory, without a cache, and returns
// every figure its analyses drew, sorted by id.
func demoFigures(t *testing.T) []figures.Figure {
	t.Helper()
	demo := generatedDemo(t)
	demoFigsOnce.Do(func() {
		var mu sync.Mutex
		reg := kinds.Registry{}
		for name, k := range kinds.Kinds() {
			k.Run = recordRuns(k.Run, func(out *kinds.Output) {
				mu.Lock()
				defer mu.Unlock()
				demoFigs = append(demoFigs, out.Figures...)
			})
			reg[name] = k
		}
		_, demoFigsErr = report.BuildForArchive(context.Background(), report.Options{
			Manifest: filepath.Join(demo, "study.toml"), Kinds: reg, NoCache: true, Quiet: true})
		sort.SliceStable(demoFigs, func(a, b int) bool { return demoFigs[a].ID < demoFigs[b].ID })
	})
	if demoFigsErr != nil {
		t.Fatalf("build: %v", demoFigsErr)
	}
	return demoFigs
}

// TestDemoFiguresHaveTheirDrawing: every figure of the demo carries the
// drawing its SVG was rendered from (issue 17), so the paper's PDF and
// PNG show what the site shows: Drawing.SVG() is the figure's SVG, byte
// for byte.
func TestDemoFiguresHaveTheirDrawing(t *testing.T) {
	t.Parallel()
	figs := demoFigures(t)
	if len(figs) < 40 {
		t.Fatalf("the demo drew %d figures, want every one of its 40 and more", len(figs))
	}
	for _, f := range figs {
		if f.Drawing == nil {
			t.Errorf("%s: no Drawing", f.ID)
			continue
		}
		svg, err := f.Drawing.SVG()
		if err != nil {
			t.Errorf("%s: Drawing.SVG: %v", f.ID, err)
			continue
		}
		if !bytes.Equal(svg, f.SVG) {
			t.Errorf("%s: Drawing.SVG() differs from the figure's SVG (%d and %d bytes)", f.ID, len(svg), len(f.SVG))
		}
	}
}

// TestDemoFiguresShowLabels: a figure names a method by its display
// label (issues 20 and 21): the demo's MostPop, declared with
// label = "Most popular", is "Most popular" in the legend of the
// performance profiles and beside its mean rank in the CD diagram, static
// and interactive, and its raw id appears in neither.
func TestDemoFiguresShowLabels(t *testing.T) {
	t.Parallel()
	byID := map[string]figures.Figure{}
	for _, f := range demoFigures(t) {
		byID[f.ID] = f
	}
	for _, id := range []string{"leaderboard", "critical-difference"} {
		f, ok := byID[id]
		if !ok {
			t.Errorf("the demo has no figure %q", id)
			continue
		}
		for what, b := range map[string][]byte{"SVG": f.SVG, "chart": f.Chart} {
			if !bytes.Contains(b, []byte("Most popular")) {
				t.Errorf("%s %s: no \"Most popular\"", id, what)
			}
			if bytes.Contains(b, []byte("MostPop")) {
				t.Errorf("%s %s: shows the raw id MostPop", id, what)
			}
		}
	}
}
