package engines

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
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/meta"
	"github.com/evalbook/evalbook/report/engine"
	"github.com/evalbook/evalbook/report/input"
)

// Table is the study's units engine table as the manifest gives it.
type Table struct {
	File    string // the manifest's name, for errors
	Line    int    // the units entry's line
	Target  engine.Target
	Timeout time.Duration
	Src     engine.Source
}

// engineSource is a build's engine table: its address and columns, the
// catalogue (read once) and the queries each analysis ran.
type engineSource struct {
	*Table

	once     sync.Once
	cat      *engineCatalogue
	catErr   error
	mu       sync.Mutex
	queries  map[string][]EngineQuery // by analysis id
	received int64                    // bytes from the engine, all connections
}

// State is a build's engine state, made from the study's engine tables:
// the units table's catalogue and queries, and each interaction log's.
type State struct {
	Units *engineSource               // nil without an engine units table
	Logs  map[string]*EngineLogSource // by dataset
	// logs are the interaction logs in manifest order.
	logs []*EngineLogSource
	// derivesUnits: an analysis of the study feeds per-unit values, which
	// then come from the units pass, not the engine (Reads).
	derivesUnits bool
}

// New prepares the engine state of one build: units is the study's
// engine units table (nil: none), logs its datasets' interaction logs in
// manifest order, derivesUnits whether an analysis feeds per-unit values.
func New(units *Table, logs []*LogTable, derivesUnits bool) *State {
	e := &State{Logs: map[string]*EngineLogSource{}, derivesUnits: derivesUnits}
	if units != nil {
		e.Units = &engineSource{Table: units, queries: map[string][]EngineQuery{}}
	}
	for _, l := range logs {
		src := &EngineLogSource{LogTable: l}
		e.Logs[l.Dataset] = src
		e.logs = append(e.logs, src)
	}
	return e
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
	// Note, for an interaction log, says that its preprocessing ran as
	// nested queries, and why (the account may not create temporary
	// tables); empty when it ran over temporary tables.
	Note string `json:"note,omitempty"`
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
	// padded: some row names the cell with white space around a name;
	// unitPad: rows whose text unit id may have some (Dialect.MayPad).
	padded  bool
	unitPad uint64
}

// Errorf is an error at the entry's manifest line.
func (e *engineSource) Errorf(format string, args ...any) error {
	return &input.InputError{File: e.File, Line: e.Line,
		Msg: fmt.Sprintf("inputs.units (%s, table %s): %s", e.Target, e.Src.Table, fmt.Sprintf(format, args...))}
}

// Catalogue connects, checks the table's columns and reads its cells,
// once per build.
func (e *engineSource) Catalogue(ctx context.Context) (*engineCatalogue, error) {
	e.once.Do(func() {
		e.cat, e.catErr = e.readCatalogue(ctx)
	})
	return e.cat, e.catErr
}

func (e *engineSource) readCatalogue(ctx context.Context) (*engineCatalogue, error) {
	conn, err := engine.Open(ctx, e.Target, e.Timeout)
	if err != nil {
		return nil, e.Errorf("%v", err)
	}
	defer e.closeConn(conn)
	schema, err := conn.Query(ctx, e.Src.SchemaSQL())
	if err != nil {
		return nil, e.Errorf("%v", err)
	}
	if err := e.checkSchema(schema); err != nil {
		return nil, err
	}
	q := e.Src.CatalogueSQL()
	before := conn.Received()
	rows, err := conn.Query(ctx, q)
	if err != nil {
		return nil, e.Errorf("%v", err)
	}
	cat := &engineCatalogue{query: EngineQuery{SQL: q, Rows: len(rows), Bytes: conn.Received() - before}}
	for _, r := range rows {
		c := engineCell{dataset: Str(r[0]), method: Str(r[1]), metric: Str(r[2]),
			values: U64(r[3]), nulls: U64(r[4]), nonFinite: U64(r[5]), sum: f64(r[6]), padded: U64(r[8]) != 0, unitPad: U64(r[9])}
		if c.nonFinite > 0 {
			return nil, e.Errorf("dataset %s, method %s, metric %s: %d NaN or infinite values (store a missing value as NULL)", c.dataset, c.method, c.metric, c.nonFinite)
		}
		cat.cells = append(cat.cells, c)
		cat.rows += c.values
		cat.hash += U64(r[7])
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
		types[Str(r[0])] = Str(r[1])
		names = append(names, Str(r[0]))
	}
	for _, c := range e.Src.Columns.Names() {
		typ, ok := types[c[1]]
		if !ok {
			return e.Errorf("the table has no column %q (the %s column; map it with columns = { %s = \"…\" })%s", c[1], c[0], c[0], analyses.NameHint(c[1], names))
		}
		want, good := "text (String)", e.Src.Dialect.Text(typ)
		switch c[0] {
		case "unit":
			e.Src.UnitText = good // text ids are trimmed, as the file readers trim them
			want, good = "text or integers (String, Int*, UInt*)", good || e.Src.Dialect.Integer(typ)
		case "value":
			want, good = "numbers (Float64, an integer or Decimal type, or Nullable of one)", e.Src.Dialect.Numeric(typ)
		}
		if !good {
			return e.Errorf("column %q (the %s column) has type %s; it must hold %s", c[1], c[0], typ, want)
		}
	}
	return nil
}

// Run sends one analysis's query and records it for the provenance.
func (e *engineSource) Run(ctx context.Context, analysis, sql string) ([][]any, error) {
	conn, err := engine.Open(ctx, e.Target, e.Timeout)
	if err != nil {
		return nil, e.Errorf("%s: %v", analysis, err)
	}
	defer e.closeConn(conn)
	before := conn.Received()
	rows, err := conn.Query(ctx, sql)
	if err != nil {
		return nil, e.Errorf("%s: %v", analysis, err)
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

// Provenance returns the engine's record: the catalogue query and the
// queries the analyses that ran sent (an analysis taken from the cache
// sent none).
func (e *engineSource) Provenance() *EngineProvenance {
	p := &EngineProvenance{Engine: e.Target.Engine, URL: e.Target.String(), Table: e.Src.Table}
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

// Reads reports whether a meta-analysis reads its per-unit values
// from the engine table: when the study has one and it holds the
// metric (or cannot be read: the analysis then reports why). A metric
// derived by offline_metrics comes from the units pass.
func (s *State) Reads(o *meta.Options) bool {
	e := s.Units
	if e == nil || o.Summary.Path != "" {
		return false
	}
	cat, err := e.Catalogue(context.Background())
	if err != nil {
		return true
	}
	for _, c := range cat.cells {
		if c.metric == o.Metric {
			return true
		}
	}
	return !s.derivesUnits
}

// CacheKey is the part of an analysis's cache key that its engine reads
// decide: the engine, URL (without password), table, the content
// fingerprint and the SQL it will send. "" for an analysis that reads
// nothing from the engine (one that reads no per-unit values, or whose
// options are not a meta-analysis's); a catalogue error goes into the
// key, so the analysis runs and reports it.
func (s *State) CacheKey(readsUnits bool, options any) string {
	e := s.Units
	if e == nil || !readsUnits {
		return ""
	}
	o, ok := options.(*meta.Options)
	if !ok || !s.Reads(o) {
		return ""
	}
	cat, err := e.Catalogue(context.Background())
	if err != nil {
		return "error: " + err.Error()
	}
	q, _, _, err := e.MetaPlan(cat, o)
	if err != nil {
		return "error: " + err.Error()
	}
	return strings.Join([]string{e.Target.String(), e.Src.Table, cat.fingerprint, q}, "\n")
}

// MetaPlan writes a meta-analysis's query from the catalogue and returns
// it with the datasets it covers (sorted), or the error the file path
// would give (no values of the metric, a method without values).
func (e *engineSource) MetaPlan(cat *engineCatalogue, o *meta.Options) (string, []string, map[string]engine.Shift, error) {
	p, err := e.metaPlan(cat, o)
	if err != nil {
		return "", nil, nil, err
	}
	return p.sql, p.datasets, p.shifts, nil
}

// enginePlan is a meta-analysis's query and what reading its rows needs.
type enginePlan struct {
	sql      string
	datasets []string
	shifts   map[string]engine.Shift
	// fast: sql is PairedFastSQL (else PairedSQL or GroupsSQL); counts:
	// the catalogue's values per dataset of the treatment and the control.
	fast   bool
	counts map[string][2]uint64
}

func (e *engineSource) metaPlan(cat *engineCatalogue, o *meta.Options) (*enginePlan, error) {
	metrics := map[string]bool{}
	methods := map[string]bool{}
	seen := map[string]bool{}
	type side struct {
		sum float64
		n   uint64
	}
	avg := map[[2]string]side{}
	counts := map[string][2]uint64{}
	clean, nulls := true, false
	for _, c := range cat.cells {
		metrics[c.metric] = true
		if c.metric != o.Metric {
			continue
		}
		methods[c.method] = true
		seen[c.dataset] = true
		avg[[2]string{c.dataset, c.method}] = side{c.sum, c.values - c.nulls}
		if c.method == o.Treatment || c.method == o.Control {
			k := counts[c.dataset]
			if c.method == o.Treatment {
				k[0] += c.values
			} else {
				k[1] += c.values
			}
			counts[c.dataset] = k
			clean = clean && !c.padded && c.unitPad == 0
			nulls = nulls || c.nulls > 0
		}
	}
	if len(seen) == 0 {
		return nil, fmt.Errorf("metric: no per-unit values of %q in the engine table%s", o.Metric, analyses.NameHint(o.Metric, analyses.SortedKeys(metrics)))
	}
	names := analyses.SortedKeys(methods)
	for _, name := range []string{o.Treatment, o.Control} {
		if !methods[name] {
			return nil, fmt.Errorf("method %q has no per-unit values of %s on any dataset%s", name, o.Metric, analyses.NameHint(name, names))
		}
	}
	datasets := analyses.SortedKeys(seen)
	d := e.Src.Dialect
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
	p := &enginePlan{datasets: datasets, shifts: shifts, counts: counts}
	zero := o.Missing == "zero"
	switch {
	case o.Design == "independent":
		p.sql = e.Src.GroupsSQL(o.Metric, o.Treatment, o.Control, zero, shifts, datasets)
	case clean && d.FastPaired() && len(datasets) <= 255 && cat.rows < 1<<32 && o.Treatment != o.Control:
		p.fast = true
		p.sql = e.Src.PairedFastSQL(o.Metric, o.Treatment, o.Control, zero, nulls, shifts, datasets)
	default:
		p.sql = e.Src.PairedSQL(o.Metric, o.Treatment, o.Control, zero, shifts, datasets)
	}
	return p, nil
}

// ErrEngineRepeat is pairedStudies' error when a unit has more than one
// value of a method on a dataset.
var ErrEngineRepeat = errors.New("a repeated unit id")

// RepeatError is the error of a unit id with n values of a method on a
// dataset, in the words of the file readers (which name its lines).
func (e *engineSource) RepeatError(dataset, method string, unit any, n uint64) error {
	msg := RepeatMessage(fmt.Sprint(unit), method, dataset)
	if n > 2 {
		msg = strings.TrimSuffix(msg, "twice") + fmt.Sprintf("%d times", n)
	}
	return e.Errorf("%s", msg)
}

// RepeatMessage says that a unit id appears twice: the words of every
// reader of per-unit values (the files' pass, the pairing builders, the
// engine).
func RepeatMessage(unit, method, dataset string) string {
	return fmt.Sprintf("unit %q of method %q on dataset %q appears twice", unit, method, dataset)
}

// PairedStudies reads the rows of a paired meta-analysis's query (from
// MetaPlan) into one study per dataset seen. When that was the fast query
// and it found a unit id repeated or two ids sharing a key, it sends the
// exact query (PairedSQL) and reads that instead.
func (e *engineSource) PairedStudies(ctx context.Context, analysis string, rows [][]any, datasets []string, shifts map[string]engine.Shift, o *meta.Options) ([]meta.Study, error) {
	cat, err := e.Catalogue(ctx)
	if err != nil {
		return nil, err
	}
	p, err := e.metaPlan(cat, o)
	if err != nil {
		return nil, err
	}
	var sums map[string]meta.PairedSums
	exact := !p.fast
	if p.fast {
		if sums, exact, err = e.fastSums(rows, p, o); err != nil {
			return nil, err
		}
	}
	if exact {
		if p.fast {
			if rows, err = e.Run(ctx, analysis, e.Src.PairedSQL(o.Metric, o.Treatment, o.Control, o.Missing == "zero", shifts, datasets)); err != nil {
				return nil, err
			}
		}
		sums = map[string]meta.PairedSums{}
		for _, r := range rows {
			if U64(r[6]) > 1 || U64(r[8]) > 1 {
				return nil, ErrEngineRepeat
			}
			sums[Str(r[0])] = meta.PairedSums{
				TreatmentValues: int(U64(r[1])), ControlValues: int(U64(r[2])),
				UnmatchedTreatment: int(U64(r[3])), UnmatchedControl: int(U64(r[4])), DroppedMissing: int(U64(r[5])),
				N: int(U64(r[10])), SumT: f64(r[11]), SumC: f64(r[12]), SumD: f64(r[13]),
				SumTT: f64(r[14]), SumCC: f64(r[15]), SumTC: f64(r[16]), SumDD: f64(r[17]),
			}
		}
	}
	if err := e.checkCounts(sums, p, o); err != nil {
		return nil, err
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

// fastSums reads PairedFastSQL's rows; exact: the rows cannot be used (a
// repeated unit id or two ids sharing a key), send the exact query.
func (e *engineSource) fastSums(rows [][]any, p *enginePlan, o *meta.Options) (map[string]meta.PairedSums, bool, error) {
	sums := map[string]meta.PairedSums{}
	split := func(v any) (int, int) { n := U64(v); return int(n & (1<<32 - 1)), int(n >> 32) }
	for _, r := range rows {
		i := int(U64(r[0]))
		if i < 1 || i > len(p.datasets) {
			return nil, false, e.Errorf("%s: values on a dataset the build's first query did not see: the table was written to during the build; build again", o.Metric)
		}
		if U64(r[4]) > 0 {
			return nil, true, nil
		}
		var ps meta.PairedSums
		ps.TreatmentValues, ps.ControlValues = split(r[1])
		ps.UnmatchedTreatment, ps.UnmatchedControl = split(r[2])
		ps.N, ps.DroppedMissing = split(r[3])
		ps.SumT, ps.SumC, ps.SumD = f64(r[5]), f64(r[6]), f64(r[7])
		ps.SumTT, ps.SumCC, ps.SumTC, ps.SumDD = f64(r[8]), f64(r[9]), f64(r[10]), f64(r[11])
		sums[p.datasets[i-1]] = ps
	}
	return sums, false, nil
}

// checkCounts checks a paired query's values per dataset and side
// against the catalogue's: the shifts, the datasets and, for the fast
// query, the word that nothing needs a trim come from the catalogue, so
// a table written to in between is an error, not numbers from two states
// of it.
func (e *engineSource) checkCounts(sums map[string]meta.PairedSums, p *enginePlan, o *meta.Options) error {
	if o.Treatment == o.Control {
		return nil // both sides count every value: nothing to compare
	}
	for ds := range sums {
		if !slices.Contains(p.datasets, ds) {
			return e.Errorf("%s: values on dataset %q, which the build's first query did not see: the table was written to during the build; build again", o.Metric, ds)
		}
	}
	for _, ds := range p.datasets {
		got, want := sums[ds], p.counts[ds]
		if uint64(got.TreatmentValues) != want[0] || uint64(got.ControlValues) != want[1] {
			return e.Errorf("%s on %s: %d values of %s and %d of %s, where the build's first query counted %d and %d: the table was written to during the build; build again",
				o.Metric, ds, got.TreatmentValues, o.Treatment, got.ControlValues, o.Control, want[0], want[1])
		}
	}
	return nil
}

// GroupStudies reads GroupsSQL's rows into one two-group study per
// dataset seen.
func GroupStudies(rows [][]any, datasets []string, shifts map[string]engine.Shift, o *meta.Options) []meta.Study {
	type key [2]string
	sums := map[key]meta.GroupSums{}
	for _, r := range rows {
		sums[key{Str(r[0]), Str(r[1])}] = meta.GroupSums{Values: int(U64(r[2])), N: int(U64(r[3])), Sum: f64(r[4]), SS: f64(r[5])}
	}
	out := make([]meta.Study, 0, len(datasets))
	for _, ds := range datasets {
		t, c := sums[key{ds, o.Treatment}], sums[key{ds, o.Control}]
		t.Shift, c.Shift = shifts[ds].T, shifts[ds].C
		out = append(out, meta.TwoGroupStudy(ds, t, c, t.Values-t.N+c.Values-c.N))
	}
	return out
}

// Str is an engine cell as a string.
func Str(v any) string {
	s, _ := v.(string)
	return s
}

// U64 is an engine cell as an unsigned integer.
func U64(v any) uint64 {
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
