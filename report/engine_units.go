package report

// Per-unit values from an engine table (issue 18, docs/ENGINE.md): a
// units entry { engine = "clickhouse", url = …, table = …, columns = {…} }
// is not read by the units pass; each analysis that reads per-unit values
// asks the engine for its sufficient statistics instead (one query per
// analysis), after one catalogue query per build that checks the table,
// finds the cells and fingerprints the content for the cache.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/meta"
	"github.com/evalbook/evalbook/report/engine"
)

// engineEntryKeys are the keys an engine units entry takes.
var engineEntryKeys = []string{"engine", "url", "url_env", "table", "columns", "missing", "timeout"}

// engineColumns are the columns an engine table provides.
var engineColumns = []string{"dataset", "method", "unit", "metric", "value"}

// defaultEngineTimeout bounds each engine query unless the entry says.
const defaultEngineTimeout = time.Minute

// engineKinds are the kinds that read per-unit values and can get them
// from an engine table.
var engineKinds = map[string]bool{"meta_analysis": true}

// entryKeys are the keys an input entry of key ("inputs.units") takes:
// the engine keys only in units entries.
func entryKeys(key string) []string {
	var out []string
	for _, k := range tomlKeys(&InputEntry{}) {
		if key == "inputs.units" || !contains(engineEntryKeys, k) || k == "columns" || k == "missing" {
			out = append(out, k)
		}
	}
	return out
}

// isEngineEntry reports whether an input entry names an engine table.
func isEngineEntry(e InputEntry) bool {
	return e.Engine != "" || e.URL != "" || e.URLEnv != "" || e.Table != "" || e.Timeout != ""
}

// splitEngineEntries separates the engine entries of [inputs] units from
// the file entries (which the units pass reads).
func splitEngineEntries(entries []InputEntry) (files, engines []InputEntry) {
	for _, e := range entries {
		if isEngineEntry(e) {
			engines = append(engines, e)
		} else {
			files = append(files, e)
		}
	}
	return files, engines
}

// checkEngineEntry checks the keys of an engine entry (element i of key).
func checkEngineEntry(e InputEntry, key, ekey string, i int, fail func(string, string, ...any)) {
	where := fmt.Sprintf("%s[%d]", displayKey(key), i)
	for k, set := range map[string]bool{"path": e.Path != "", "dataset": e.Dataset != "", "method": e.Method != "", "metric": e.Metric != "",
		"ignore": len(e.Ignore) > 0, "missing_values": len(e.MissingValues) > 0, "duplicates": e.Duplicates != ""} {
		if set {
			fail(ekey+"."+k, "%s.%s: does not apply to an engine table (its keys: %s)", where, k, strings.Join(engineEntryKeys, ", "))
		}
	}
	if !contains(engine.Engines, e.Engine) {
		fail(ekey+".engine", "%s.engine: %q is not an engine evalbook reads (want %q)%s", where, e.Engine, strings.Join(engine.Engines, ", "), analyses.DidYouMean(e.Engine, engine.Engines))
	}
	switch {
	case e.URL == "" && e.URLEnv == "":
		fail(ekey, "%s: url or url_env required (url_env names an environment variable holding the URL)", where)
	case e.URL != "" && e.URLEnv != "":
		fail(ekey+".url", "%s: url and url_env both give the URL; keep one", where)
	case e.URL != "" && engine.HasPassword(e.URL):
		fail(ekey+".url", "%s.url: holds a password; never write one in the manifest: put the URL in an environment variable and name it with url_env", where)
	case e.URL != "":
		if _, err := engine.ParseURL(e.Engine, e.URL); err != nil && contains(engine.Engines, e.Engine) {
			fail(ekey+".url", "%s.url: %v", where, err)
		}
	}
	if e.Table == "" {
		fail(ekey, "%s.table: required", where)
	}
	for _, c := range analyses.SortedKeys(e.Columns) {
		if !contains(engineColumns, c) {
			fail(ekey+".columns", "%s.columns: unknown column %q: the keys of columns are the names evalbook expects (%s), the values the table's column names%s", where, c, strings.Join(engineColumns, ", "), analyses.NameHint(c, engineColumns))
		}
	}
	switch e.Missing {
	case "", "zero", "drop":
	default:
		fail(ekey+".missing", "%s.missing: unknown value %q%s", where, e.Missing, analyses.NameHint(e.Missing, []string{"zero", "drop"}))
	}
	if e.Timeout != "" {
		if d, err := time.ParseDuration(e.Timeout); err != nil || d < time.Second {
			fail(ekey+".timeout", "%s.timeout: %q is not a duration of at least 1s (e.g. \"90s\", \"10m\")", where, e.Timeout)
		}
	}
}

// engineChecks checks the study's engine entry against the rest of the
// manifest and prepares its source: one engine entry, no units files
// beside it, and every analysis that reads per-unit values able to get
// them from an engine.
func (p *manifestParser) engineChecks() {
	es := p.s.Inputs.EngineUnits
	if len(es) == 0 {
		return
	}
	if len(es) > 1 {
		p.failLine(es[1].Line, "inputs.units: one engine table per study (a second one here; the first is at line %d)", es[0].Line)
		return
	}
	e := es[0]
	if len(p.s.Inputs.Units) > 0 {
		p.failLine(e.Line, "inputs.units: per-unit values come from an engine table or from files, not both (files at line %d)", p.s.Inputs.Units[0].Line)
		return
	}
	for _, a := range p.s.Analyses {
		if !a.Kind.ReadsUnits {
			continue
		}
		if !engineKinds[a.Type] {
			p.failLine(a.Line, "analyses (%s): %s reads per-unit values, which an engine table (line %d) cannot hand over as sums; read them from files", a.ID, a.Type, e.Line)
		}
	}
	if !contains(engine.Engines, e.Engine) || e.Table == "" || (e.URL == "") == (e.URLEnv == "") {
		return // reported by checkEngineEntry
	}
	raw := e.URL
	if e.URLEnv != "" {
		raw = os.Getenv(e.URLEnv)
		if raw == "" {
			p.failLine(e.Line, "inputs.units: the environment variable %s (url_env) is not set: it must hold the engine's URL, e.g. %s://host:9000/database", e.URLEnv, e.Engine)
			return
		}
	}
	t, err := engine.ParseURL(e.Engine, raw)
	if err != nil {
		if e.URLEnv != "" { // a url in the manifest was checked by checkEngineEntry
			p.failLine(e.Line, "inputs.units: the URL in %s (url_env): %v", e.URLEnv, err)
		}
		return
	}
	timeout := defaultEngineTimeout
	if e.Timeout != "" {
		timeout, _ = time.ParseDuration(e.Timeout)
	}
	col := func(name string) string {
		if c, ok := e.Columns[name]; ok {
			return c
		}
		return name
	}
	p.s.engine = &engineSource{
		file: filepath.Base(p.s.File), line: e.Line, target: t, timeout: timeout,
		src: engine.Source{Dialect: engine.ClickHouse, Table: e.Table, Missing: e.Missing,
			Columns: engine.Columns{Dataset: col("dataset"), Method: col("method"), Unit: col("unit"), Metric: col("metric"), Value: col("value")}},
		queries: map[string][]EngineQuery{},
	}
}

// failLine records an error at a manifest line.
func (p *manifestParser) failLine(line int, format string, args ...any) {
	p.errs = append(p.errs, &ManifestError{File: p.name, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// engineSource is a build's engine table: its address and columns, the
// catalogue (read once) and the queries each analysis ran.
type engineSource struct {
	file    string // the manifest's name, for errors
	line    int
	target  engine.Target
	timeout time.Duration
	src     engine.Source

	once     sync.Once
	cat      *engineCatalogue
	catErr   error
	mu       sync.Mutex
	queries  map[string][]EngineQuery // by analysis id
	received int64                    // bytes from the engine, all connections
}

// EngineQuery is one query sent to the engine, for the provenance.
type EngineQuery struct {
	Analysis string `json:"analysis,omitempty"`
	SQL      string `json:"sql"`
	Rows     int    `json:"rows"`
	Bytes    int64  `json:"bytes_received"`
}

// EngineProvenance is provenance.json's record of the engine table.
type EngineProvenance struct {
	Engine      string        `json:"engine"`
	URL         string        `json:"url"`
	Table       string        `json:"table"`
	Dataset     string        `json:"dataset,omitempty"` // an interaction log's dataset
	Fingerprint string        `json:"fingerprint"`
	Queries     []EngineQuery `json:"queries"`
	// BytesReceived counts every byte the engine sent this build
	// (handshakes and the schema query included).
	BytesReceived int64 `json:"bytes_received"`
}

// engineCatalogue is what the catalogue query found.
type engineCatalogue struct {
	cells       []engineCell
	rows        uint64
	hash        uint64
	query       EngineQuery
	fingerprint string
}

// engineCell is one (dataset, method, metric) cell of the table.
type engineCell struct {
	dataset, method, metric  string
	values, nulls, nonFinite uint64
	sum                      float64 // of the finite values
}

// errorf is an error at the entry's manifest line.
func (e *engineSource) errorf(format string, args ...any) error {
	return &ManifestError{File: e.file, Line: e.line,
		Msg: fmt.Sprintf("inputs.units (%s, table %s): %s", e.target, e.src.Table, fmt.Sprintf(format, args...))}
}

// catalogue connects, checks the table's columns and reads its cells,
// once per build.
func (e *engineSource) catalogue(ctx context.Context) (*engineCatalogue, error) {
	e.once.Do(func() {
		e.cat, e.catErr = e.readCatalogue(ctx)
	})
	return e.cat, e.catErr
}

func (e *engineSource) readCatalogue(ctx context.Context) (*engineCatalogue, error) {
	conn, err := engine.Open(ctx, e.target, e.timeout)
	if err != nil {
		return nil, e.errorf("%v", err)
	}
	defer e.closeConn(conn)
	schema, err := conn.Query(ctx, e.src.SchemaSQL())
	if err != nil {
		return nil, e.errorf("%v", err)
	}
	if err := e.checkSchema(schema); err != nil {
		return nil, err
	}
	q := e.src.CatalogueSQL()
	before := conn.Received()
	rows, err := conn.Query(ctx, q)
	if err != nil {
		return nil, e.errorf("%v", err)
	}
	cat := &engineCatalogue{query: EngineQuery{SQL: q, Rows: len(rows), Bytes: conn.Received() - before}}
	for _, r := range rows {
		c := engineCell{dataset: str(r[0]), method: str(r[1]), metric: str(r[2]),
			values: u64(r[3]), nulls: u64(r[4]), nonFinite: u64(r[5]), sum: f64(r[6])}
		if c.nonFinite > 0 {
			return nil, e.errorf("dataset %s, method %s, metric %s: %d NaN or infinite values (store a missing value as NULL)", c.dataset, c.method, c.metric, c.nonFinite)
		}
		cat.cells = append(cat.cells, c)
		cat.rows += c.values
		cat.hash += u64(r[7])
	}
	cat.fingerprint = fmt.Sprintf("rows=%d cityHash64sum=%016x", cat.rows, cat.hash)
	return cat, nil
}

// checkSchema checks that the table has the mapped columns with usable
// types.
func (e *engineSource) checkSchema(rows [][]any) error {
	types := map[string]string{}
	var names []string
	for _, r := range rows {
		types[str(r[0])] = str(r[1])
		names = append(names, str(r[0]))
	}
	for _, c := range e.src.Columns.Names() {
		typ, ok := types[c[1]]
		if !ok {
			return e.errorf("the table has no column %q (the %s column; map it with columns = { %s = \"…\" })%s", c[1], c[0], c[0], analyses.NameHint(c[1], names))
		}
		want, good := "text (String)", e.src.Dialect.Text(typ)
		switch c[0] {
		case "unit":
			e.src.UnitText = good // text ids are trimmed, as the file readers trim them
			want, good = "text or integers (String, Int*, UInt*)", good || e.src.Dialect.Integer(typ)
		case "value":
			want, good = "numbers (Float64, an integer or Decimal type, or Nullable of one)", e.src.Dialect.Numeric(typ)
		}
		if !good {
			return e.errorf("column %q (the %s column) has type %s; it must hold %s", c[1], c[0], typ, want)
		}
	}
	return nil
}

// run sends one analysis's query and records it for the provenance.
func (e *engineSource) run(ctx context.Context, analysis, sql string) ([][]any, error) {
	conn, err := engine.Open(ctx, e.target, e.timeout)
	if err != nil {
		return nil, e.errorf("%s: %v", analysis, err)
	}
	defer e.closeConn(conn)
	before := conn.Received()
	rows, err := conn.Query(ctx, sql)
	if err != nil {
		return nil, e.errorf("%s: %v", analysis, err)
	}
	e.mu.Lock()
	e.queries[analysis] = append(e.queries[analysis], EngineQuery{Analysis: analysis, SQL: sql, Rows: len(rows), Bytes: conn.Received() - before})
	e.mu.Unlock()
	return rows, nil
}

// closeConn closes a connection and counts the bytes it received.
func (e *engineSource) closeConn(c *engine.Conn) {
	c.Close()
	e.mu.Lock()
	e.received += c.Received()
	e.mu.Unlock()
}

// provenance returns the engine's record: the catalogue query and the
// queries the analyses that ran sent (an analysis taken from the cache
// sent none).
func (e *engineSource) provenance() *EngineProvenance {
	p := &EngineProvenance{Engine: e.target.Engine, URL: e.target.String(), Table: e.src.Table}
	if e.cat != nil {
		p.Fingerprint = e.cat.fingerprint
		p.Queries = append(p.Queries, e.cat.query)
	}
	e.mu.Lock()
	for _, id := range analyses.SortedKeys(e.queries) {
		p.Queries = append(p.Queries, e.queries[id]...)
	}
	p.BytesReceived = e.received
	e.mu.Unlock()
	return p
}

// engineReads reports whether a meta-analysis reads its per-unit values
// from the engine table: when the study has one and it holds the
// metric (or cannot be read: the analysis then reports why). A metric
// derived by offline_metrics comes from the units pass.
func (s *Study) engineReads(o *meta.Options) bool {
	e := s.engine
	if e == nil || o.Summary.Path != "" {
		return false
	}
	cat, err := e.catalogue(context.Background())
	if err != nil {
		return true
	}
	for _, c := range cat.cells {
		if c.metric == o.Metric {
			return true
		}
	}
	return !s.derivesUnits()
}

// derivesUnits reports whether an analysis of the study feeds units
// (offline_metrics).
func (s *Study) derivesUnits() bool {
	for _, a := range s.Analyses {
		if a.Kind.Feeds {
			return true
		}
	}
	return false
}

// engineCacheKey is the part of an analysis's cache key that its engine
// reads decide: the engine, URL (without password), table, the content
// fingerprint and the SQL it will send. "" for an analysis that reads
// nothing from the engine; a catalogue error goes into the key, so the
// analysis runs and reports it.
func (s *Study) engineCacheKey(spec AnalysisSpec) string {
	e := s.engine
	if e == nil || !spec.Kind.ReadsUnits {
		return ""
	}
	o, ok := spec.Options.(*meta.Options)
	if !ok || !s.engineReads(o) {
		return ""
	}
	cat, err := e.catalogue(context.Background())
	if err != nil {
		return "error: " + err.Error()
	}
	q, _, _, err := e.metaPlan(cat, o)
	if err != nil {
		return "error: " + err.Error()
	}
	return strings.Join([]string{e.target.String(), e.src.Table, cat.fingerprint, q}, "\n")
}

// metaPlan writes a meta-analysis's query from the catalogue and returns
// it with the datasets it covers (sorted), or the error the file path
// would give (no values of the metric, a method without values).
func (e *engineSource) metaPlan(cat *engineCatalogue, o *meta.Options) (string, []string, map[string]engine.Shift, error) {
	metrics := map[string]bool{}
	methods := map[string]bool{}
	seen := map[string]bool{}
	type side struct {
		sum float64
		n   uint64
	}
	avg := map[[2]string]side{}
	for _, c := range cat.cells {
		metrics[c.metric] = true
		if c.metric != o.Metric {
			continue
		}
		methods[c.method] = true
		seen[c.dataset] = true
		avg[[2]string{c.dataset, c.method}] = side{c.sum, c.values - c.nulls}
	}
	if len(seen) == 0 {
		return "", nil, nil, fmt.Errorf("metric: no per-unit values of %q in the engine table%s", o.Metric, analyses.NameHint(o.Metric, analyses.SortedKeys(metrics)))
	}
	names := analyses.SortedKeys(methods)
	for _, name := range []string{o.Treatment, o.Control} {
		if !methods[name] {
			return "", nil, nil, fmt.Errorf("method %q has no per-unit values of %s on any dataset%s", name, o.Metric, analyses.NameHint(name, names))
		}
	}
	datasets := analyses.SortedKeys(seen)
	d := e.src.Dialect
	shifts := map[string]engine.Shift{}
	mean := func(s side) float64 {
		if s.n == 0 {
			return 0
		}
		return s.sum / float64(s.n)
	}
	for _, ds := range datasets {
		var sh engine.Shift
		sh.SQLT, sh.T = d.Dyadic(mean(avg[[2]string{ds, o.Treatment}]))
		sh.SQLC, sh.C = d.Dyadic(mean(avg[[2]string{ds, o.Control}]))
		sh.SQLD, sh.D = d.Dyadic(sh.T - sh.C)
		shifts[ds] = sh
	}
	zero := o.Missing == "zero"
	if o.Design == "independent" {
		return e.src.GroupsSQL(o.Metric, o.Treatment, o.Control, zero, shifts, datasets), datasets, shifts, nil
	}
	return e.src.PairedSQL(o.Metric, o.Treatment, o.Control, zero, shifts, datasets), datasets, shifts, nil
}

// metaEngineUnits computes a meta-analysis's per-dataset studies from the
// engine's sums (the engine's counterpart of metaStreamUnits).
func metaEngineUnits(job *Job, o *meta.Options) ([]meta.Study, error) {
	e := job.Study.engine
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-job.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	cat, err := e.catalogue(ctx)
	if err != nil {
		return nil, err
	}
	q, datasets, shifts, err := e.metaPlan(cat, o)
	if err != nil {
		return nil, err
	}
	rows, err := e.run(ctx, job.ID, q)
	if err != nil {
		return nil, err
	}
	// A repeated unit id: the paired sums count them (the independent
	// ones do not); a query of its own names the first exactly.
	var studies []meta.Study
	repeated := o.Design == "independent"
	if !repeated {
		studies, err = e.pairedStudies(rows, datasets, shifts, o)
		if repeated = errors.Is(err, errEngineRepeat); !repeated && err != nil {
			return nil, err
		}
	}
	if repeated {
		rep, err := e.run(ctx, job.ID, e.src.RepeatSQL(o.Metric, o.Treatment, o.Control))
		if err != nil {
			return nil, err
		}
		if len(rep) > 0 && len(rep[0]) == 4 {
			r := rep[0]
			return nil, e.repeatError(str(r[0]), str(r[1]), r[2], u64(r[3]))
		}
		if o.Design != "independent" {
			return nil, e.errorf("the paired sums count a repeated unit id that no query of repeats finds; was the table written to during the build?")
		}
		return groupStudies(rows, datasets, shifts, o), nil
	}
	return studies, nil
}

// errEngineRepeat is pairedStudies' error when a unit has more than one
// value of a method on a dataset.
var errEngineRepeat = errors.New("a repeated unit id")

// repeatError is the error of a unit id with n values of a method on a
// dataset, in the words of the file readers (which name its lines).
func (e *engineSource) repeatError(dataset, method string, unit any, n uint64) error {
	msg := repeatMessage(fmt.Sprint(unit), method, dataset)
	if n > 2 {
		msg = strings.TrimSuffix(msg, "twice") + fmt.Sprintf("%d times", n)
	}
	return e.errorf("%s", msg)
}

// pairedStudies reads PairedSQL's rows into one study per dataset seen.
func (e *engineSource) pairedStudies(rows [][]any, datasets []string, shifts map[string]engine.Shift, o *meta.Options) ([]meta.Study, error) {
	sums := map[string]meta.PairedSums{}
	for _, r := range rows {
		ds := str(r[0])
		if u64(r[6]) > 1 || u64(r[8]) > 1 {
			return nil, errEngineRepeat
		}
		sums[ds] = meta.PairedSums{
			TreatmentValues: int(u64(r[1])), ControlValues: int(u64(r[2])),
			UnmatchedTreatment: int(u64(r[3])), UnmatchedControl: int(u64(r[4])), DroppedMissing: int(u64(r[5])),
			N: int(u64(r[10])), SumT: f64(r[11]), SumC: f64(r[12]), SumD: f64(r[13]),
			SumTT: f64(r[14]), SumCC: f64(r[15]), SumTC: f64(r[16]), SumDD: f64(r[17]),
		}
	}
	out := make([]meta.Study, 0, len(datasets))
	for _, ds := range datasets {
		p := sums[ds]
		sh := shifts[ds]
		p.ShiftT, p.ShiftC, p.ShiftD = sh.T, sh.C, sh.D
		out = append(out, p.Study(ds))
	}
	return out, nil
}

// groupStudies reads GroupsSQL's rows into one two-group study per
// dataset seen.
func groupStudies(rows [][]any, datasets []string, shifts map[string]engine.Shift, o *meta.Options) []meta.Study {
	type key [2]string
	sums := map[key]meta.GroupSums{}
	for _, r := range rows {
		sums[key{str(r[0]), str(r[1])}] = meta.GroupSums{Values: int(u64(r[2])), N: int(u64(r[3])), Sum: f64(r[4]), SS: f64(r[5])}
	}
	out := make([]meta.Study, 0, len(datasets))
	for _, ds := range datasets {
		t, c := sums[key{ds, o.Treatment}], sums[key{ds, o.Control}]
		t.Shift, c.Shift = shifts[ds].T, shifts[ds].C
		out = append(out, meta.TwoGroupStudy(ds, t, c, t.Values-t.N+c.Values-c.N))
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func u64(v any) uint64 {
	switch x := v.(type) {
	case uint64:
		return x
	case int64:
		return uint64(x)
	case float64:
		return uint64(x)
	}
	return 0
}

func f64(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case uint64:
		return float64(x)
	case int64:
		return float64(x)
	}
	return 0
}
