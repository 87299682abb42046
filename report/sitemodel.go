package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/leaderboard"
	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/report/input/bib"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
	"github.com/evalbook/evalbook/report/site"
	"github.com/evalbook/evalbook/report/site/explore"
	"github.com/evalbook/evalbook/themes"
)

// The site is rendered by report/site from a site.Model: this file
// builds the model from what the build computed (the study, the runs,
// the provenance, the pages and bibliography the input layer read).

// siteBuild is a finished build about to be rendered.
type siteBuild struct {
	study  *manifest.Study
	runs   []analysisRun
	prov   *Provenance
	opts   Options
	assets site.Assets
	// sources are the pages and the bibliography as the input layer read
	// them, by manifest path.
	sources map[string][]byte
	// explore is the Explore page's data (nil: no Explore page).
	explore *explore.Data
}

func loadAssets() site.Assets {
	return site.Assets{ECharts: themes.ECharts(), KaTeX: themes.KaTeX()}
}

// newSiteBuild is the site of a build: the assets it embeds (o.Assets in
// tests, else the binary's) and its Explore page's data.
func newSiteBuild(study *manifest.Study, runs []analysisRun, prov *Provenance, o Options, in *load.Inputs) *siteBuild {
	assets := loadAssets()
	if o.Assets != nil {
		assets = *o.Assets
	}
	b := &siteBuild{study: study, runs: runs, prov: prov, opts: o, assets: assets, sources: in.Sources}
	if len(assets.ECharts) == 0 && o.Format != "md" && o.Warn != nil {
		fmt.Fprintln(o.Warn, "evalbook: warning: the ECharts asset was not built into this binary (run `make assets`, then rebuild); figures are static SVG only")
	}
	if o.Format == "md" || o.SingleFile {
		return b
	}
	// the Explore page's module (1.5 MB) is read only for a study that
	// has the page
	hasModule := len(assets.ExploreWasm) > 0 && len(assets.WasmExec) > 0
	if o.Assets == nil {
		hasModule = themes.HasExplore()
	}
	b.explore = exploreData(study, runs, in.Results, hasModule, o.Warn)
	if b.explore != nil && o.Assets == nil {
		b.assets.ExploreWasm, b.assets.WasmExec = themes.ExploreWasm(), themes.WasmExec()
	}
	return b
}

// render renders the site in memory (site.Render).
func (b *siteBuild) render() (map[string][]byte, error) {
	m, err := b.model()
	if err != nil {
		return nil, err
	}
	return site.Render(m)
}

// model is the site's model of the build.
func (b *siteBuild) model() (site.Model, error) {
	s := b.study
	m := site.Model{
		Study: site.Study{Title: s.Title, Subtitle: s.Subtitle, Date: s.Date, DOI: s.DOI, License: s.License,
			Authors: s.Authors, Abstract: s.Abstract, Links: s.Links, Manifest: filepath.Base(s.File),
			UnsafeHTML: s.UnsafeHTML, Labels: siteLabels(s), Naming: s.Naming()},
		Options: site.Options{Format: b.opts.Format, Paper: b.opts.Paper, SingleFile: b.opts.SingleFile, Version: b.opts.Version, Check: b.opts.validate},
		Assets:  b.assets,
		Explore: b.explore,
	}
	for _, p := range s.Pages {
		src, err := b.source(p.Source)
		if err != nil {
			return m, fmt.Errorf("page %s: %w", p.Source, err)
		}
		m.Pages = append(m.Pages, site.Page{Title: p.Title, Slug: p.Slug, Source: p.Source, Markdown: src})
	}
	for i := range b.runs {
		a, err := b.siteAnalysis(&b.runs[i])
		if err != nil {
			return m, err
		}
		m.Analyses = append(m.Analyses, a)
	}
	var err error
	if m.ProvenanceJSON, err = json.MarshalIndent(b.prov, "", "  "); err != nil {
		return m, err
	}
	m.ProvenanceJSON = append(m.ProvenanceJSON, '\n')
	m.Provenance = siteProvenance(b.prov)
	if file := s.Bibliography; file != "" {
		src, err := b.source(file)
		if err != nil {
			return m, fmt.Errorf("bibliography: %w", err)
		}
		if m.Bibliography, err = bib.Parse(file, string(src)); err != nil {
			return m, err
		}
	}
	return m, nil
}

// siteAnalysis is one analysis of the model.
func (b *siteBuild) siteAnalysis(r *analysisRun) (site.Analysis, error) {
	res := r.Output.Result
	a := site.Analysis{ID: r.Spec.ID, Type: r.Spec.Type, Title: r.Spec.Title, Caption: r.Spec.Caption, Seed: r.Seed,
		Result: res, Tables: res.Tables(), Figures: r.Output.Figures, Notes: res.Notes(), Method: r.Output.Method}
	if dt, ok := res.(interface{ DataTables() []analyses.Table }); ok {
		a.DataTables = dt.DataTables()
	}
	if h, ok := res.(analyses.Highlighter); ok {
		a.Highlight = h.Highlight()
	}
	if params, err := b.study.AnalysisParams(r.Spec); err == nil {
		if params != nil {
			a.Params = make([]site.Param, len(params))
		}
		for i, p := range params {
			a.Params[i] = site.Param(p)
		}
		if r.Spec.Line > 0 {
			a.ParamsFrom = fmt.Sprintf("%s, line %d", filepath.Base(b.study.File), r.Spec.Line)
		}
	}
	var err error
	if a.Resolved, err = manifest.ParamsMap(r.Spec.Options); err != nil {
		return a, fmt.Errorf("%s: %w", r.Spec.ID, err)
	}
	return a, nil
}

// source is a page or the bibliography as the input layer read it.
func (b *siteBuild) source(rel string) ([]byte, error) {
	src, ok := b.sources[rel]
	if !ok {
		return nil, fmt.Errorf("%s: not read by the input layer (internal error)", rel)
	}
	return src, nil
}

// siteLabels are the labels pages show (Study.Naming, and from it the
// metric and rule labels).
func siteLabels(s *manifest.Study) site.Labels {
	l := site.Labels{Metrics: map[string]string{}, Rules: map[string]string{}, RankColumns: map[string]string{}, Naming: s.Naming()}
	for _, m := range s.Metrics {
		if m.Label != "" {
			l.Metrics[strings.ToLower(m.Name)] = m.Label
		}
	}
	for rule := range leaderboard.RuleLabels {
		l.Rules[rule] = s.Label(manifest.LabelRule, rule)
	}
	for _, rule := range leaderboard.AllRules { // the first rule of a rank column names it
		if c := leaderboard.RankColumn(rule); l.RankColumns[c] == "" {
			l.RankColumns[c] = rule
		}
	}
	return l
}

// siteProvenance is what the provenance page shows.
func siteProvenance(p *Provenance) site.Provenance {
	out := site.Provenance{Tool: p.Tool, Version: p.Version, Command: p.Command, Seed: p.Seed,
		Manifest: site.ProvenanceFile{Path: p.Manifest.Path, SHA256: p.Manifest.SHA256, Rows: p.Manifest.Rows}}
	for _, f := range p.Inputs {
		out.Inputs = append(out.Inputs, site.ProvenanceFile{Path: f.Path, SHA256: f.SHA256, Rows: f.Rows})
	}
	for _, a := range p.Analyses {
		out.Analyses = append(out.Analyses, site.ProvenanceAnalysis{ID: a.ID, Type: a.Type, Seed: a.Seed})
	}
	return out
}

// figureWidth is the width of the PDF and PNG figures: the manifest's
// figure_width in inches, else one column.
func figureWidth(s *manifest.Study) vg.Length {
	if w := s.FigureWidth; w > 0 {
		return vg.Length(w) * vg.Inch
	}
	return figures.ColumnWidth
}
