// Package site renders a finished build into the files of its companion
// website: HTML pages (or one self-contained index.html), the Markdown
// site, data/<id>.json and .csv, figures, the search index and what a
// manuscript takes (paper/evalbook.tex, LaTeX tables, PDF and PNG
// figures, CITATION.cff).
//
// Render is pure: it reads no file, decodes no JSON it wrote, and knows
// the analyses only through analyses.Result and what Model says of them.
// Package report reads the study (pages and bibliography through its
// input layer), runs the analyses, builds the Model and writes Render's
// files to disk.
package site

import (
	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/report/site/explore"
)

// Model is everything a site shows, as the build computed it.
type Model struct {
	Study Study
	// Pages are the narrative pages in manifest order, their Markdown
	// already read.
	Pages []Page
	// Bibliography is the manifest's bibliography by citation key; nil
	// when the manifest names none (a citation is then an error).
	Bibliography map[string]*BibEntry
	// Analyses are the analyses in manifest order, each with its output.
	Analyses []Analysis
	// Provenance is what the provenance page shows; ProvenanceJSON is
	// data/provenance.json, written as given.
	Provenance     Provenance
	ProvenanceJSON []byte
	Options        Options
	Assets         Assets
	// Explore is the study as the Explore page recomputes it (its values,
	// labels and the published aggregate and critical_difference
	// analyses); nil: no Explore page.
	Explore *explore.Data
}

// Study is the study's own description, from its manifest.
type Study struct {
	Title, Subtitle, Date, DOI, License string
	Authors                             []string
	// Abstract is Markdown; it may cite and use directives.
	Abstract string
	// Links are named links of the title block (paper, code, …).
	Links map[string]string
	// Manifest is the manifest's file name ("study.toml"), for messages
	// about the abstract.
	Manifest string
	// UnsafeHTML passes raw HTML in the Markdown through (unsafe_html).
	UnsafeHTML bool
	Labels     Labels
	// Naming labels methods, datasets, metrics and rules in tables
	// (model.NewTable); the zero value shows ids.
	Naming analyses.Naming
}

// Labels are the display labels of ids (pages show labels, data files
// ids).
type Labels struct {
	// Metrics are the declared metric labels by lower-cased metric id
	// (metrics are matched case-insensitively).
	Metrics map[string]string
	// Rules are the labels of ranking rules by rule id.
	Rules map[string]string
	// RankColumns maps a leaderboard's rank column ("borda_rank") to the
	// rule it ranks by.
	RankColumns map[string]string
	// Naming is the study's naming, the one source of every label
	// (analyses.Naming: methods, datasets, metrics, rules, features,
	// strategies, perturbations, and table columns and statistics by
	// Naming.Column). Metrics and Rules above are drawn from it.
	Naming analyses.Naming
}

// Page is one narrative page.
type Page struct {
	Title, Slug string
	// Source is the page's path as the manifest writes it (for errors).
	Source string
	// Markdown is the page's text.
	Markdown []byte
}

// BibEntry is one BibTeX entry: its key, type and fields (lower-case
// names, braces and quotes removed), and the line it starts on.
type BibEntry struct {
	Key    string
	Type   string
	Fields map[string]string
	Line   int
}

// Analysis is one analysis and its output.
type Analysis struct {
	ID, Type, Title, Caption string
	Seed                     uint64
	// Params are the parameters as the manifest wrote them, for the page
	// (nil: none shown); ParamsFrom says where ("study.toml, line 12").
	Params     []Param
	ParamsFrom string
	// Resolved are the resolved parameters, the "params" of
	// data/<id>.json.
	Resolved map[string]any
	// Result is the analysis's result: its exported fields are the rest
	// of data/<id>.json.
	Result analyses.Result
	// Tables are Result.Tables(); DataTables the tables too long for a
	// page, written as CSV only.
	Tables, DataTables []analyses.Table
	// Figures are the analysis's figures, drawn (their SVG, chart
	// option, and PDF and PNG when exports were asked for).
	Figures []figures.Figure
	// Notes are Result.Notes(): warnings for the reader.
	Notes []string
	// Method is the method note (Markdown, $…$ maths).
	Method string
	// Highlight is the one-line key finding for the overview ("" none).
	Highlight string
}

// Param is one parameter as the manifest wrote it; Block: several
// lines; Default: the manifest left it out.
type Param struct {
	Key, Value     string
	Block, Default bool
}

// Options are the build options that change what is rendered.
type Options struct {
	// Format is "html", "md" or "both".
	Format string
	// Paper also writes paper/ (--format latex).
	Paper bool
	// SingleFile writes one self-contained index.html.
	SingleFile bool
	// Version is the tool's version, shown in the footer.
	Version string
	// Check renders for validate, which writes nothing: every page is
	// rendered and every file's name claimed (so each error a build can
	// meet is met), but the bytes that cannot fail to be made — the data
	// files' CSV and JSON, the charts' scripts — are left empty.
	Check bool
}

// Assets are the embedded scripts the site may ship; an empty one is
// unavailable (charts fall back to static SVG, maths to TeX source).
type Assets struct {
	ECharts, KaTeX []byte
	// ExploreWasm (gzipped) and WasmExec are the Explore page's module
	// and the Go toolchain's glue; without them there is no Explore page.
	ExploreWasm, WasmExec []byte
}

func (a Assets) hasECharts() bool { return len(a.ECharts) > 0 }

// Provenance is what the provenance page shows: the tool, the manifest
// and inputs with their hashes, and the analyses with their seeds.
type Provenance struct {
	Tool, Version, Command string
	Seed                   int64
	Manifest               ProvenanceFile
	Inputs                 []ProvenanceFile
	Analyses               []ProvenanceAnalysis
}

// ProvenanceFile is one file the build read.
type ProvenanceFile struct {
	Path, SHA256 string
	Rows         int64
}

// ProvenanceAnalysis is one analysis of the provenance page.
type ProvenanceAnalysis struct {
	ID, Type string
	Seed     uint64
}
