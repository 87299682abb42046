package manifest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/evalbook/evalbook/analyses"

	"github.com/evalbook/evalbook/report/input"
)

// Study is a parsed and checked manifest (the README's manifest).
type Study struct {
	File string // path of the manifest
	Dir  string // its directory; manifest paths are relative to it

	Title      string
	Subtitle   string
	Authors    []string
	Date       string
	DOI        string
	Links      map[string]string
	License    string
	Abstract   string
	Seed       int64
	UnsafeHTML bool
	// AllowOutside lets inputs, pages and the bibliography lie outside
	// the study directory (they are refused otherwise).
	AllowOutside bool
	// FigureWidth is the width, in inches, of the PDF and PNG figures
	// written for a manuscript (figure_width; 0: one column, 3.33 in).
	FigureWidth float64
	// Exports asks every build for each figure's PDF and PNG (exports =
	// true), offered as downloads beside the figure; without it only
	// --format paper/latex and pack render them.
	Exports bool
	// Bibliography is a BibTeX file for [@key] citations in pages.
	Bibliography string
	Metrics      []MetricSpec
	Datasets     []DatasetSpec
	// Methods are the [[methods]] entries: display labels and baselines.
	Methods  []MethodSpec
	Inputs   InputsSpec
	Pages    []PageSpec
	Analyses []AnalysisSpec
	// MaxDecompressed is the build's cap on a .gz input's inflated size
	// (Options.MaxDecompressed; not a manifest key).
	MaxDecompressed int64
	source          []byte
	SourceSum       string         // hex sha256 of the manifest bytes as read (before the BOM is dropped)
	KeyLines        map[string]int // "analyses.2.metric" -> line
	MetricIndex     map[string]int // lower-cased metric name -> its [[metrics]] entry
	dataIndex       map[string]int
	methodIndex     map[string]int
	labels          map[LabelKind]map[string]string // see Label
	Engine          *EngineConfig                   // the units engine table, if any (engine.go)
}

// MetricSpec is a [[metrics]] entry.
type MetricSpec struct {
	Name   string   `toml:"name"`
	Better string   `toml:"better"`
	Max    *float64 `toml:"max"`
	// Label is the metric's name on pages and figures ("nDCG@10"); CSV
	// and JSON keep Name.
	Label string `toml:"label"`
}

// MethodSpec is a [[methods]] entry: an optional display label, and
// whether the method is a baseline (Random, MostPop): key findings never
// single a baseline out as their headline.
type MethodSpec struct {
	Name     string `toml:"name"`
	Label    string `toml:"label"`
	Baseline bool   `toml:"baseline"`
}

// DatasetSpec is a [[datasets]] entry: name, optional interaction log and
// any other attribute (domain, …) as a string.
type DatasetSpec struct {
	Name         string
	Interactions string
	// Label is the dataset's name on pages and figures.
	Label string
	Attrs map[string]string
	// EngineLog is the interaction log when interactions names an engine
	// table (engine.go); Interactions is then "". Not part of the cache
	// key's JSON: the build keys an engine log by its fingerprint.
	EngineLog *EngineLogConfig `json:"-" toml:"-"`
}

// InputsSpec is the [inputs] table.
type InputsSpec struct {
	Results         []InputEntry
	Units           []InputEntry
	Characteristics []InputEntry
	// EngineUnits are the units entries that name an engine table
	// (report/load/engines); the units pass never sees them.
	EngineUnits []InputEntry `json:",omitempty"`
}

// InputEntry is one input path (glob, {dataset}/{method} patterns) with
// optional column mapping, constants, missing-value rule and markers, and
// (results) the rule for a cell given twice.
type InputEntry struct {
	Path    string            `toml:"path"`
	Columns map[string]string `toml:"columns"`
	Dataset string            `toml:"dataset"`
	Method  string            `toml:"method"`
	// Metric fixes the metric of every value of a results file that has
	// no metric column (one file per metric: method,dataset,value).
	Metric string `toml:"metric"`
	// Ignore lists columns of the file to leave out: in a wide file
	// every column but dataset, method (and unit) is otherwise read as a
	// metric or feature.
	Ignore  []string `toml:"ignore"`
	Missing string   `toml:"missing"` // "" (keep NaN), "zero", "drop"
	// MissingValues are cell texts that count as missing, like an empty
	// cell ("NA", "NaN", "-999"); NaN and Inf are errors unless listed.
	MissingValues []string `toml:"missing_values"`
	// Duplicates says what a results row does to a cell that an earlier
	// row already gave, in a file without a run column: "" (an error when
	// the values differ), "mean", "first" or "last".
	Duplicates string `toml:"duplicates"`
	// UnequalRuns accepts cells of one dataset and metric averaged over
	// different numbers of runs (a file with a run column); without it
	// they are an error.
	UnequalRuns bool `toml:"unequal_runs" json:",omitempty"`
	// Layout "matrix" reads a results file as a datasets × methods
	// matrix of one metric (Metric): the dataset column, then one column
	// per method (Demšar 2006, Table 6). "" is the long or wide form.
	Layout string `toml:"layout" json:",omitempty"`
	// Engine, URL (or URLEnv, the environment variable holding it),
	// Table and Timeout make a units entry an engine table
	// (report/load/engines, docs/ENGINE.md).
	Engine  string `toml:"engine" json:",omitempty"`
	URL     string `toml:"url" json:",omitempty"`
	URLEnv  string `toml:"url_env" json:",omitempty"`
	Table   string `toml:"table" json:",omitempty"`
	Timeout string `toml:"timeout" json:",omitempty"`
	Line    int    `toml:"-"`
}

// entryColumns are the keys of an input entry's columns mapping.
var entryColumns = []string{"dataset", "method", "metric", "value", "unit", "k", "run", "feature"}

// duplicateRules are the values of an input entry's duplicates key.
var duplicateRules = []string{"mean", "first", "last"}

// PageSpec is a [[pages]] entry.
type PageSpec struct {
	Title  string `toml:"title"`
	Source string `toml:"source"`
	Slug   string `toml:"slug"`
	Line   int    `toml:"-"`
}

// AnalysisSpec is one [[analyses]] entry with its decoded options.
type AnalysisSpec struct {
	ID      string
	Type    string
	Title   string
	Caption string
	Kind    Kind
	Options any // pointer to the kind's options struct
	Line    int
	Key     string // "analyses.N": where its keys are in Study.KeyLines
}

// DirectionAssumed reports whether the study leaves a metric's
// direction to the default, higher is better: no [[metrics]] entry of
// it says better = ….
func (s *Study) DirectionAssumed(name string) bool {
	i, ok := s.MetricIndex[strings.ToLower(name)]
	return !ok || s.Metrics[i].Better == ""
}

// Metric returns the metric's direction and bound (higher is better and
// unbounded unless the manifest says otherwise).
func (s *Study) Metric(name string) analyses.Metric {
	m := analyses.Metric{Name: name, Better: analyses.HigherIsBetter, Max: math.Inf(1)}
	if i, ok := s.MetricIndex[strings.ToLower(name)]; ok {
		spec := s.Metrics[i]
		if spec.Better == "lower" {
			m.Better = analyses.LowerIsBetter
		}
		if spec.Max != nil {
			m.Max = *spec.Max
		}
	}
	return m
}

// Dataset returns a dataset's manifest attributes.
func (s *Study) Dataset(name string) analyses.Dataset {
	if i, ok := s.dataIndex[name]; ok {
		d := s.Datasets[i]
		return analyses.Dataset{Name: name, Attrs: d.Attrs}
	}
	return analyses.Dataset{Name: name, Attrs: map[string]string{}}
}

// ManifestError is a problem at a place in the manifest.
type ManifestError struct {
	File string
	Line int // 0 when unknown
	Col  int
	Msg  string
}

// Error is "file:line[:col]: message" (file: message without a line).
func (e *ManifestError) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Errors is a list of problems, printed one per line.
type Errors []error

// Error lists the errors one per line.
func (es Errors) Error() string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// MaxIDLen caps an analysis id and a page name: files are named after
// them, with suffixes, and a file name has at most 255 bytes.
const MaxIDLen = 100

// maxUnknownKeys is how many unknown top-level keys are listed one by
// one; one more error counts the rest.
const maxUnknownKeys = 10

// TopKeys are the manifest's top-level keys.
var TopKeys = []string{"title", "subtitle", "authors", "date", "doi", "links", "license", "abstract", "seed",
	"unsafe_html", "allow_outside", "bibliography", "figure_width", "exports", "metrics", "datasets", "methods", "inputs", "pages", "analyses"}

// LoadStudy reads and checks a manifest. It returns every problem it
// finds, each naming file and line, as Errors.
func LoadStudy(path string, kinds Registry) (*Study, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "study.toml")
	}
	// A FIFO would block the read and a device (a link to /dev/zero)
	// never end it: the manifest must be a regular file, as every input.
	f, err := input.OpenRegular(path, path)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	// The size is checked before the manifest is read (a study.toml of
	// gigabytes, or a link to one, is refused without reading it), and
	// the read stops one byte past the limit in case it grew meanwhile.
	if st, err := f.Stat(); err == nil && st.Size() > MaxManifestBytes {
		f.Close()
		return nil, manifestSizeError(filepath.Base(path), st.Size())
	}
	src, err := io.ReadAll(io.LimitReader(f, MaxManifestBytes+1))
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	return ParseStudy(abs, src, kinds)
}

// ParseStudy parses manifest text; file names the manifest in errors and
// gives the directory that relative paths start from. Every problem is
// reported, each at its key's line, sorted by line.
func ParseStudy(file string, src []byte, kinds Registry) (*Study, error) {
	raw := sha256.Sum256(src)
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	s := &Study{File: file, Dir: filepath.Dir(file), source: src, SourceSum: hex.EncodeToString(raw[:]), Seed: 42}
	p := &manifestParser{s: s, name: filepath.Base(file), slugs: map[string]bool{"index": true, "provenance": true}, ids: map[string]int{}}
	if err := CheckManifestShape(p.name, src); err != nil {
		return nil, err
	}
	var err error
	if p.md, err = toml.Decode(string(src), &p.raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &ManifestError{File: p.name, Line: pe.Position.Line, Col: pe.Position.Col, Msg: pe.Message}
		}
		return nil, &ManifestError{File: p.name, Msg: err.Error()}
	}
	s.KeyLines = KeyLines(src)
	p.topLevel()
	p.metrics()
	p.datasets()
	p.methods()
	p.inputs()
	p.pages()
	p.analyses(kinds)
	p.validateOptions()
	p.engineChecks()
	if len(p.errs) > 0 {
		sort.SliceStable(p.errs, func(i, j int) bool { return lineOf(p.errs[i]) < lineOf(p.errs[j]) })
		return nil, p.errs
	}
	if OnParsed != nil {
		OnParsed(src, kinds)
	}
	return s, nil
}

// onParsed, when set (the package's TestMain), is told every manifest
// ParseStudy accepts, to check that the JSON Schema accepts it too.
var OnParsed func(src []byte, kinds Registry)

// reservedSlugs are the names of the site's own pages, which no page or
// analysis may take.
var reservedSlugs = map[string]string{"index": "overview page", "provenance": "provenance page", "explore": "Explore page"}

// manifestParser holds a manifest being parsed: the decoded TOML, the
// study filled in step by step, and the errors found so far.
type manifestParser struct {
	s     *Study
	name  string // the manifest's file name, for errors
	md    toml.MetaData
	raw   map[string]toml.Primitive
	errs  Errors
	slugs map[string]bool // page names and analysis ids taken
	ids   map[string]int  // analysis id → its line
}

// fail records an error at a key's line.
func (p *manifestParser) fail(key string, format string, args ...any) {
	p.errs = append(p.errs, &ManifestError{File: p.name, Line: p.s.Line(key), Msg: fmt.Sprintf(format, args...)})
}

// dec decodes a top-level key into v, when the manifest has it.
func (p *manifestParser) dec(key string, v any) {
	if prim, ok := p.raw[key]; ok {
		if err := p.md.PrimitiveDecode(prim, v); err != nil {
			p.fail(key, "%s: %v", key, err)
		}
	}
}

// figureWidth reads figure_width: inches (an integer or a float), from
// 1 to 20.
func (p *manifestParser) figureWidth() {
	prim, ok := p.raw["figure_width"]
	if !ok {
		return
	}
	var v any
	if err := p.md.PrimitiveDecode(prim, &v); err != nil {
		p.fail("figure_width", "figure_width: %v", err)
		return
	}
	var w float64
	switch x := v.(type) {
	case int64:
		w = float64(x)
	case float64:
		w = x
	default:
		p.fail("figure_width", "figure_width is a width in inches (a number), got %v", v)
		return
	}
	if !(w >= 1 && w <= 20) {
		p.fail("figure_width", "figure_width is a width in inches from 1 to 20 (one column is 3.33, a page 7), got %v", w)
		return
	}
	p.s.FigureWidth = w
}

// topLevel checks the top-level keys and decodes the study's own.
func (p *manifestParser) topLevel() {
	s := p.s
	var unknown []string
	for _, k := range analyses.SortedKeys(p.raw) {
		if !Contains(TopKeys, k) {
			unknown = append(unknown, k)
		}
	}
	// Ten are enough to see the slip; a hundred thousand would bury
	// the other errors (and cost seconds of did-you-means).
	for i, k := range unknown {
		if i == maxUnknownKeys {
			p.fail(k, "%d more unknown keys at the top level (the first %d are listed)", len(unknown)-i, maxUnknownKeys)
			break
		}
		p.fail(k, "unknown key %q%s", k, analyses.NameHint(k, TopKeys))
	}
	p.dec("title", &s.Title)
	p.dec("subtitle", &s.Subtitle)
	p.authors()
	p.dec("date", &s.Date)
	p.dec("doi", &s.DOI)
	p.dec("links", &s.Links)
	p.dec("license", &s.License)
	p.dec("abstract", &s.Abstract)
	p.dec("seed", &s.Seed)
	p.dec("unsafe_html", &s.UnsafeHTML)
	p.dec("allow_outside", &s.AllowOutside)
	p.dec("bibliography", &s.Bibliography)
	p.figureWidth()
	p.dec("exports", &s.Exports)
	if s.Title == "" {
		p.errs = append(p.errs, &ManifestError{File: p.name, Line: 1, Msg: "title: required"})
	}
}

// authors decodes authors, a list of names; a single string is the
// commonest slip, answered with the list to write.
func (p *manifestParser) authors() {
	prim, ok := p.raw["authors"]
	if !ok {
		return
	}
	var one string
	if err := p.md.PrimitiveDecode(prim, &one); err == nil {
		p.fail("authors", "authors is a list: [%q]", one)
		return
	}
	p.dec("authors", &p.s.Authors)
}

// metrics decodes [[metrics]].
func (p *manifestParser) metrics() {
	s := p.s
	s.MetricIndex = map[string]int{}
	var metrics []map[string]toml.Primitive
	p.dec("metrics", &metrics)
	for i, m := range metrics {
		key := fmt.Sprintf("metrics.%d", i)
		var spec MetricSpec
		s.decodeStrict(p.md, m, &spec, key, TomlKeys(&MetricSpec{}), p.fail)
		switch spec.Better { // "" stays: the direction is the default (DirectionAssumed)
		case "", "higher", "lower":
		default:
			p.fail(key+".better", "metrics[%d].better: unknown value %q%s", i, spec.Better, analyses.NameHint(spec.Better, []string{"higher", "lower"}))
		}
		if spec.Name == "" {
			p.fail(key, "metrics[%d].name: required", i)
			continue
		}
		if _, dup := s.MetricIndex[strings.ToLower(spec.Name)]; dup {
			p.fail(key+".name", "metrics[%d]: metric %q is declared twice", i, spec.Name)
			continue
		}
		s.MetricIndex[strings.ToLower(spec.Name)] = len(s.Metrics)
		s.Metrics = append(s.Metrics, spec)
		s.SetLabel(LabelMetric, spec.Name, spec.Label)
	}
}

// datasets decodes [[datasets]]: name, interactions and label are
// strings; any other key is an attribute, a string, number or boolean
// kept as its text (paper_cluster = 1 is the attribute "1").
func (p *manifestParser) datasets() {
	s := p.s
	s.dataIndex = map[string]int{}
	var datasets []map[string]any
	p.dec("datasets", &datasets)
	for i, d := range datasets {
		key := fmt.Sprintf("datasets.%d", i)
		spec := DatasetSpec{Attrs: map[string]string{}}
		engineLog, _ := d["interactions"].(map[string]any)
		for _, k := range analyses.SortedKeys(d) {
			if k == "interactions" && engineLog != nil {
				continue
			}
			switch k {
			case "name", "interactions", "label":
				v, ok := d[k].(string)
				if !ok {
					p.fail(key+"."+k, "datasets[%d].%s: want a string, got %s", i, k, tomlTypeName(d[k]))
					continue
				}
				switch k {
				case "name":
					spec.Name = v
				case "interactions":
					spec.Interactions = v
				default:
					spec.Label = v
				}
				continue
			}
			v, ok := attrText(d[k])
			if !ok {
				p.fail(key+"."+k, "datasets[%d].%s: an attribute is a string, number or boolean, not %s", i, k, tomlTypeName(d[k]))
				continue
			}
			spec.Attrs[k] = v
		}
		if spec.Name == "" {
			p.fail(key, "datasets[%d].name: required", i)
			continue
		}
		if why := input.FormulaStart(spec.Name); why != "" {
			// a dataset of an interaction log only reaches the site's
			// tables by this name
			p.fail(key+".name", "datasets[%d].name: %q holds %s", i, spec.Name, why)
			continue
		}
		if _, dup := s.dataIndex[spec.Name]; dup {
			p.fail(key+".name", "datasets[%d]: dataset %q is declared twice", i, spec.Name)
			continue
		}
		if engineLog != nil {
			spec.EngineLog = p.engineLog(key+".interactions", spec.Name, engineLog)
		}
		s.dataIndex[spec.Name] = len(s.Datasets)
		s.Datasets = append(s.Datasets, spec)
		s.SetLabel(LabelDataset, spec.Name, spec.Label)
	}
}

// attrText is a dataset attribute's text: a string as it is, a number as
// written in Go's shortest form, a boolean as true or false.
func attrText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// tomlTypeName names a decoded TOML value's type for an error.
func tomlTypeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "a list"
	case map[string]any:
		return "a table"
	}
	return "a date"
}

// methods decodes [[methods]]: name, label and baseline.
func (p *manifestParser) methods() {
	s := p.s
	s.methodIndex = map[string]int{}
	var methods []map[string]toml.Primitive
	p.dec("methods", &methods)
	for i, m := range methods {
		key := fmt.Sprintf("methods.%d", i)
		var spec MethodSpec
		s.decodeStrict(p.md, m, &spec, key, TomlKeys(&MethodSpec{}), p.fail)
		if spec.Name == "" {
			p.fail(key, "methods[%d].name: required", i)
			continue
		}
		if _, dup := s.methodIndex[spec.Name]; dup {
			p.fail(key+".name", "methods[%d]: method %q is declared twice", i, spec.Name)
			continue
		}
		s.methodIndex[spec.Name] = len(s.Methods)
		s.Methods = append(s.Methods, spec)
		s.SetLabel(LabelMethod, spec.Name, spec.Label)
	}
}

// Baselines lists the methods declared with baseline = true, in manifest
// order.
func (s *Study) Baselines() []string {
	var out []string
	for _, m := range s.Methods {
		if m.Baseline {
			out = append(out, m.Name)
		}
	}
	return out
}

// inputs decodes [inputs].
func (p *manifestParser) inputs() {
	prim, ok := p.raw["inputs"]
	if !ok {
		return
	}
	var in map[string]toml.Primitive
	if err := p.md.PrimitiveDecode(prim, &in); err != nil {
		p.fail("inputs", "inputs: %v", err)
	}
	inputKeys := []string{"results", "units", "characteristics"}
	for _, k := range analyses.SortedKeys(in) {
		if !Contains(inputKeys, k) {
			p.fail("inputs."+k, "inputs: unknown key %q%s", k, analyses.NameHint(k, inputKeys))
			continue
		}
		entries := p.s.DecodeEntries(p.md, in[k], "inputs."+k, p.fail)
		switch k {
		case "results":
			p.s.Inputs.Results = entries
		case "units":
			p.s.Inputs.Units, p.s.Inputs.EngineUnits = splitEngineEntries(entries)
		case "characteristics":
			p.s.Inputs.Characteristics = entries
		}
	}
}

// pages decodes [[pages]].
func (p *manifestParser) pages() {
	var pages []map[string]toml.Primitive
	p.dec("pages", &pages)
	for i, pg := range pages {
		key := fmt.Sprintf("pages.%d", i)
		var spec PageSpec
		p.s.decodeStrict(p.md, pg, &spec, key, []string{"title", "source", "slug"}, p.fail)
		spec.Line = p.s.Line(key)
		if spec.Source == "" {
			p.fail(key, "pages[%d].source: required", i)
		}
		if spec.Slug == "" {
			spec.Slug = Slug(spec.Title)
			if spec.Slug == "" {
				spec.Slug = Slug(strings.TrimSuffix(filepath.Base(spec.Source), filepath.Ext(spec.Source)))
			}
			if len(spec.Slug) > MaxIDLen { // a long title: its first words
				spec.Slug = strings.TrimRight(spec.Slug[:MaxIDLen], "-")
			}
		} else if len(spec.Slug) > MaxIDLen {
			p.fail(key+".slug", "pages[%d].slug: %d characters; at most %d (the page's file is named after it)", i, len(spec.Slug), MaxIDLen)
		}
		switch {
		case reservedSlugs[spec.Slug] != "":
			p.fail(key, "pages[%d]: page name %q names the site's %s (%s.html); set slug = \"…\"", i, spec.Slug, reservedSlugs[spec.Slug], spec.Slug)
		case p.slugs[spec.Slug]:
			p.fail(key, "pages[%d]: page name %q is used twice (first at line %d; set slug = \"…\")", i, spec.Slug, p.ids[spec.Slug])
		}
		p.slugs[spec.Slug] = true
		if _, taken := p.ids[spec.Slug]; !taken {
			p.ids[spec.Slug] = spec.Line
		}
		p.s.Pages = append(p.s.Pages, spec)
	}
}

// analyses decodes [[analyses]], each with its kind's options.
func (p *manifestParser) analyses(kinds Registry) {
	var list []map[string]toml.Primitive
	p.dec("analyses", &list)
	var untitled []int
	for i, a := range list {
		if spec, ok := p.analysis(i, a, kinds); ok {
			if spec.Title == "" {
				untitled = append(untitled, len(p.s.Analyses))
			}
			p.s.Analyses = append(p.s.Analyses, spec)
		}
	}
	p.defaultTitles(untitled)
}

// defaultTitles titles the analyses at untitled, which have no title in
// the manifest: by their kind's Title ("Leaderboard: nDCG@10"), followed
// by the id where two analyses would share a title, or by the id alone.
func (p *manifestParser) defaultTitles(untitled []int) {
	count := map[string]int{}
	for _, a := range p.s.Analyses {
		if a.Title != "" {
			count[a.Title]++
		}
	}
	for _, i := range untitled {
		a := &p.s.Analyses[i]
		if a.Kind.Title != nil {
			a.Title = a.Kind.Title(p.s, a.Options)
		}
		count[a.Title]++
	}
	for _, i := range untitled {
		a := &p.s.Analyses[i]
		switch {
		case a.Title == "":
			a.Title = a.ID
		case count[a.Title] > 1:
			a.Title += " (" + a.ID + ")"
		}
	}
}

// analysis decodes one [[analyses]] entry; ok is false when it has no
// usable id or type (its errors are recorded).
func (p *manifestParser) analysis(i int, a map[string]toml.Primitive, kinds Registry) (AnalysisSpec, bool) {
	key := fmt.Sprintf("analyses.%d", i)
	spec := AnalysisSpec{Line: p.s.Line(key), Key: key}
	for k, dst := range map[string]*string{"id": &spec.ID, "type": &spec.Type, "title": &spec.Title, "caption": &spec.Caption} {
		if prim, ok := a[k]; ok {
			if err := p.md.PrimitiveDecode(prim, dst); err != nil {
				p.fail(key+"."+k, "analyses[%d].%s: %v", i, k, err)
			}
		}
	}
	switch {
	case spec.ID == "":
		p.fail(key, "analyses[%d].id: required", i)
		return spec, false
	case !idPattern.MatchString(spec.ID):
		p.fail(key+".id", "analyses[%d].id: %q must be lower-case letters, digits and '-'", i, spec.ID)
		return spec, false
	case len(spec.ID) > MaxIDLen:
		p.fail(key+".id", "analyses[%d].id: %d characters; at most %d (files are named after it: <id>-<table>.csv)", i, len(spec.ID), MaxIDLen)
		return spec, false
	case reservedSlugs[spec.ID] != "":
		p.fail(key+".id", "analyses[%d].id: %q names the site's %s (%s.html); choose another id", i, spec.ID, reservedSlugs[spec.ID], spec.ID)
		return spec, false
	case p.slugs[spec.ID]:
		// every taken name has its line: a page's or an analysis's
		p.fail(key+".id", "analyses[%d].id: %q is already used by a page or another analysis (first at line %d)", i, spec.ID, p.ids[spec.ID])
		return spec, false
	}
	p.slugs[spec.ID] = true
	p.ids[spec.ID] = spec.Line
	k, ok := kinds.OptionsKind(spec.Type)
	if !ok {
		p.fail(key+".type", "analyses[%d] (%s): unknown type %q%s", i, spec.ID, spec.Type, analyses.NameHint(spec.Type, kinds.Types()))
		return spec, false
	}
	spec.Kind = k
	spec.Options = k.NewOptions()
	allowed := append([]string{"id", "type", "title", "caption"}, TomlKeys(spec.Options)...)
	opts := map[string]toml.Primitive{}
	for name, prim := range a {
		if name != "id" && name != "type" && name != "title" && name != "caption" {
			opts[name] = prim
		}
	}
	prefix := fmt.Sprintf("analyses[%d] (%s)", i, spec.ID)
	for _, name := range analyses.SortedKeys(opts) {
		// An empty list (rules = [], datasets = []) read as "all":
		// the page then listed what the manifest never asked for.
		var list []any
		if p.md.PrimitiveDecode(opts[name], &list) == nil && len(list) == 0 {
			p.fail(key+"."+name, "%s.%s: an empty list; leave the key out for the default (all)", prefix, name)
			delete(opts, name)
		}
	}
	p.s.decodeOptions(p.md, opts, spec.Options, key, prefix, allowed, p.fail)
	return spec, true
}

// validateOptions runs each analysis's Validate and Check.
func (p *manifestParser) validateOptions() {
	for _, a := range p.s.Analyses {
		p.checkApplies(a)
		if v, ok := a.Options.(interface{ Validate() error }); ok {
			if err := v.Validate(); err != nil {
				p.errs = append(p.errs, p.s.optionErrors(p.name, a, err)...)
			}
		}
		if v, ok := a.Options.(interface{ Check(*Study) error }); ok {
			if err := v.Check(p.s); err != nil {
				p.errs = append(p.errs, p.s.optionErrors(p.name, a, err)...)
			}
		}
		if a.Kind.Check != nil {
			if err := a.Kind.Check(p.s, a.Options); err != nil {
				p.errs = append(p.errs, p.s.optionErrors(p.name, a, err)...)
			}
		}
	}
}

func lineOf(e error) int {
	var me *ManifestError
	if errors.As(e, &me) {
		return me.Line
	}
	return 0
}

// decodeStrict decodes a table into v, reporting (once) each key outside
// allowed.
func (s *Study) decodeStrict(md toml.MetaData, t map[string]toml.Primitive, v any, key string, allowed []string, fail func(string, string, ...any)) {
	s.decodeOptions(md, t, v, key, displayKey(key), allowed, fail)
}

// decodeOptions decodes each known key into the matching field of v.
func (s *Study) decodeOptions(md toml.MetaData, t map[string]toml.Primitive, v any, key, prefix string, allowed []string, fail func(string, string, ...any)) {
	for _, k := range analyses.SortedKeys(t) {
		if !Contains(allowed, k) {
			fail(key+"."+k, "%s: unknown key %q%s", prefix, k, analyses.NameHint(k, allowed))
			continue
		}
		field := fieldByTag(v, k)
		if field == nil {
			continue // common keys decoded by the caller
		}
		if err := md.PrimitiveDecode(t[k], field); err != nil {
			fail(key+"."+k, "%s.%s: %v", prefix, k, err)
		}
	}
}

// DecodeEntries reads an [inputs] value: a string, a table, or an array of
// either.
func (s *Study) DecodeEntries(md toml.MetaData, p toml.Primitive, key string, fail func(string, string, ...any)) []InputEntry {
	line := s.Line(key)
	var str string
	if err := md.PrimitiveDecode(p, &str); err == nil {
		return []InputEntry{{Path: str, Line: line}}
	}
	var list []toml.Primitive
	if err := md.PrimitiveDecode(p, &list); err != nil {
		list = []toml.Primitive{p}
	}
	var out []InputEntry
	allowed := entryKeys(key)
	for i, item := range list {
		// an element of an array written over several lines has its own
		// line ("inputs.results.1"); else the key's line
		ekey := fmt.Sprintf("%s.%d", key, i)
		if err := md.PrimitiveDecode(item, &str); err == nil {
			out = append(out, InputEntry{Path: str, Line: s.Line(ekey)})
			continue
		}
		var t map[string]toml.Primitive
		if err := md.PrimitiveDecode(item, &t); err != nil {
			fail(ekey, "%s[%d]: want a path or a table {path = …}", displayKey(key), i)
			continue
		}
		var e InputEntry
		s.decodeOptions(md, t, &e, ekey, displayKey(key), allowed, fail)
		e.Line = s.Line(ekey)
		checkEntry(e, key, ekey, i, fail)
		out = append(out, e)
	}
	return out
}

// checkEntry checks the keys of one input entry (element i of key,
// whose own key is ekey), reporting each problem at its key's line.
func checkEntry(e InputEntry, key, ekey string, i int, fail func(string, string, ...any)) {
	if isEngineEntry(e) {
		checkEngineEntry(e, key, ekey, i, fail)
		return
	}
	if e.Path == "" {
		fail(ekey, "%s[%d].path: required", displayKey(key), i)
	}
	switch e.Missing {
	case "", "zero", "drop":
	default:
		fail(ekey, "%s[%d].missing: unknown value %q%s", displayKey(key), i, e.Missing, analyses.NameHint(e.Missing, []string{"zero", "drop"}))
	}
	switch {
	case e.Duplicates == "":
	case key != "inputs.results":
		fail(ekey+".duplicates", "%s[%d].duplicates: only results entries take this key", displayKey(key), i)
	case !Contains(duplicateRules, e.Duplicates):
		fail(ekey+".duplicates", "%s[%d].duplicates: unknown value %q (want \"mean\", \"first\" or \"last\")%s", displayKey(key), i, e.Duplicates, analyses.DidYouMean(e.Duplicates, duplicateRules))
	}
	if e.UnequalRuns && key != "inputs.results" {
		fail(ekey+".unequal_runs", "%s[%d].unequal_runs: only results entries take this key", displayKey(key), i)
	}
	for _, m := range e.MissingValues {
		switch {
		case strings.TrimSpace(m) == "":
			fail(ekey+".missing_values", "%s[%d].missing_values: an empty marker (empty cells are always missing)", displayKey(key), i)
		case input.BadName(m) != "":
			fail(ekey+".missing_values", "%s[%d].missing_values: marker %s holds %s", displayKey(key), i, input.Quote(m), input.BadName(m))
		}
	}
	checkEntryColumns(e, key, ekey, i, fail)
	checkEntryMetric(e, key, ekey, i, fail)
	checkEntryLayout(e, key, ekey, i, fail)
	read := map[string][]string{ // the columns each kind of entry reads by name
		"inputs.results":         {"dataset", "method", "metric", "value", "k", "run"},
		"inputs.units":           {"dataset", "method", "metric", "value", "unit"},
		"inputs.characteristics": {"dataset", "feature", "value"},
	}[key]
	if e.Layout == "matrix" {
		read = []string{"dataset"} // a matrix's other columns are methods
	}
	for _, c := range e.Ignore {
		if Contains(read, strings.ToLower(strings.TrimSpace(c))) {
			fail(ekey+".ignore", "%s[%d].ignore: %q is a column evalbook reads; leave it out of ignore", displayKey(key), i, c)
		}
	}
}

// checkEntryColumns refuses a columns key evalbook does not read, with
// the valid names (and, for a results file, how to read one metric).
func checkEntryColumns(e InputEntry, key, ekey string, i int, fail func(string, string, ...any)) {
	for _, col := range analyses.SortedKeys(e.Columns) {
		if Contains(entryColumns, col) {
			continue
		}
		hint := ""
		if key == "inputs.results" && e.Metric == "" {
			// columns = {"ndcg@10" = "Value"}: a file of one metric.
			hint = fmt.Sprintf(" (to read %s as the values of metric %q, write metric = %q, columns = { value = %q })", input.Quote(e.Columns[col]), col, col, e.Columns[col])
		}
		fail(ekey+".columns", "%s[%d].columns: unknown column %q: the keys of columns are the column names evalbook expects, the values your file's headers%s%s", displayKey(key), i, col,
			analyses.NameHint(col, entryColumns), hint)
	}
}

// checkEntryMetric checks an entry's constant metric.
func checkEntryMetric(e InputEntry, key, ekey string, i int, fail func(string, string, ...any)) {
	if e.Metric == "" {
		return
	}
	if key == "inputs.characteristics" {
		fail(ekey+".metric", "%s[%d].metric: only results and units entries take this key", displayKey(key), i)
	}
	if _, mapped := e.Columns["metric"]; mapped {
		fail(ekey+".metric", "%s[%d]: metric = %q and columns.metric both say which metric a value is; keep one", displayKey(key), i, e.Metric)
	}
	if bad := input.BadName(e.Metric); bad != "" {
		fail(ekey+".metric", "%s[%d].metric: %s holds %s", displayKey(key), i, input.Quote(e.Metric), bad)
	}
}

// checkEntryLayout checks layout = "matrix": results entries only, with
// the metric its cells are, and none of the keys that a matrix answers by
// its shape (its rows are the datasets, its columns the methods).
func checkEntryLayout(e InputEntry, key, ekey string, i int, fail func(string, string, ...any)) {
	if e.Layout == "" {
		return
	}
	at := fmt.Sprintf("%s[%d]", displayKey(key), i)
	switch {
	case key != "inputs.results":
		fail(ekey+".layout", "%s.layout: only results entries take this key", at)
		return
	case e.Layout != "matrix":
		fail(ekey+".layout", "%s.layout: unknown value %q (want \"matrix\": a datasets × methods matrix of one metric; leave layout out for the long or wide form)%s", at, e.Layout, analyses.DidYouMean(e.Layout, []string{"matrix"}))
		return
	case e.Metric == "":
		fail(ekey, "%s: layout = \"matrix\" needs metric = \"…\", the metric every cell of the matrix is (metric = \"AUC\")", at)
	}
	for _, k := range []struct {
		name string
		set  bool
	}{{"dataset", e.Dataset != ""}, {"method", e.Method != ""}, {"duplicates", e.Duplicates != ""}, {"unequal_runs", e.UnequalRuns}} {
		if k.set {
			fail(ekey+"."+k.name, "%s.%s: not with layout = \"matrix\", whose rows are the datasets, one each, and whose columns after the first are the methods", at, k.name)
		}
	}
	for _, col := range analyses.SortedKeys(e.Columns) {
		if col != "dataset" {
			fail(ekey+".columns", "%s.columns: %q: with layout = \"matrix\" only the dataset column is mapped (columns = { dataset = \"…\" }); every other column is a method", at, col)
		}
	}
	for _, p := range []string{"{dataset}", "{method}"} {
		if strings.Contains(e.Path, p) {
			fail(ekey+".path", "%s.path: a %s placeholder with layout = \"matrix\", whose rows are the datasets and columns the methods", at, p)
		}
	}
}

func displayKey(key string) string {
	parts := strings.Split(key, ".")
	var b strings.Builder
	for i, p := range parts {
		if p != "" && p[0] >= '0' && p[0] <= '9' {
			b.WriteString("[" + p + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// Line returns the manifest line of a dotted key ("analyses.2.metric"),
// falling back to its parents.
func (s *Study) Line(key string) int {
	for k := key; k != ""; {
		if l, ok := s.KeyLines[k]; ok {
			return l
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	return 0
}

// Contains reports whether list holds s.
func Contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Slug turns a title into a file name: lower-case letters, digits, '-'.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

// OrderDatasets puts datasets named in the manifest first, in manifest
// order, then the others in the order seen.
func (s *Study) OrderDatasets(seen []string) []string {
	declared := make([]string, len(s.Datasets))
	for i, d := range s.Datasets {
		declared[i] = d.Name
	}
	return input.OrderNames(declared, seen)
}

// MetricMax is the upper bound a [[metrics]] entry (the i-th) declares
// for a metric (max = …); ok is false when none is declared. A value
// above it is an error wherever it is read: stability perturbs values up
// to it, and a value beyond it means the data or the bound is wrong.
func (s *Study) MetricMax(metric string) (bound float64, i int, ok bool) {
	if s == nil {
		return 0, 0, false
	}
	i, found := s.MetricIndex[strings.ToLower(metric)]
	if !found || s.Metrics[i].Max == nil {
		return 0, 0, false
	}
	return *s.Metrics[i].Max, i, true
}

// MetricAt names where the i-th [[metrics]] entry declares its max:
// "[[metrics]] at study.toml:12".
func (s *Study) MetricAt(i int) string {
	return fmt.Sprintf("[[metrics]] at %s:%d", filepath.Base(s.File), s.Line(fmt.Sprintf("metrics.%d.max", i)))
}
