package engines

// Interaction logs from an engine table (issue 18, docs/ENGINE.md): a
// [[datasets]] entry's interactions may be
// { engine = "clickhouse", url|url_env, table, columns = {…}, timeout }
// instead of a file. The characteristics analysis then asks the engine
// for the dataset's preprocessing counts (the k-core iterated in the
// engine, each step's pairs in a temporary table of one session, or
// one nested query per round for an account that may not create one)
// and its per-user and per-item histograms
// of interaction counts, from which the count features are computed by
// the same function as from a file (datasets.CountFeatures).

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/datasets"
	"github.com/evalbook/evalbook/report/engine"
	"github.com/evalbook/evalbook/report/input"
)

// LogTable is one dataset's interaction log in an engine table, as the
// manifest gives it.
type LogTable struct {
	Dataset string // the [[datasets]] entry's name
	File    string // the manifest's name, for errors
	Line    int    // the line of the dataset's interactions
	Target  engine.Target
	Timeout time.Duration
	Src     engine.LogSource
}

// EngineLogSource is one dataset's interaction log in an engine table.
type EngineLogSource struct {
	*LogTable

	once        sync.Once
	fingerprint string
	fpErr       error
	mu          sync.Mutex
	queries     []EngineQuery
	received    int64
	// nested says why a run preprocessed with nested queries instead of
	// temporary tables ("" when none did).
	nested string
}

// errorf is an error at the entry's manifest line.
func (e *EngineLogSource) errorf(format string, args ...any) error {
	return &input.InputError{File: e.File, Line: e.Line,
		Msg: fmt.Sprintf("dataset %q: interactions (%s, table %s): %s", e.Src.Dataset, e.Target, e.Src.Table, fmt.Sprintf(format, args...))}
}

// query runs one query on conn and records it for the provenance.
func (e *EngineLogSource) query(ctx context.Context, conn *engine.Conn, analysis, sql string) ([][]any, error) {
	rows, err := e.run(ctx, conn, analysis, sql, false)
	if err != nil {
		return nil, e.errorf("%v", err)
	}
	return rows, nil
}

// exec runs a statement that returns no rows (a temporary table's CREATE
// or DROP) and records it; its error is the engine's as it is
// (engine.Refused tells a refusal), and a statement that failed is not
// recorded.
func (e *EngineLogSource) exec(ctx context.Context, conn *engine.Conn, analysis, sql string) error {
	_, err := e.run(ctx, conn, analysis, sql, true)
	return err
}

// run runs a query (a statement, with exec) and records it.
func (e *EngineLogSource) run(ctx context.Context, conn *engine.Conn, analysis, sql string, exec bool) ([][]any, error) {
	before := conn.Received()
	var rows [][]any
	var err error
	if exec {
		err = conn.Exec(ctx, sql)
	} else {
		rows, err = conn.Query(ctx, sql)
	}
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.queries = append(e.queries, EngineQuery{Analysis: analysis, SQL: sql, Rows: len(rows), Bytes: conn.Received() - before})
	e.mu.Unlock()
	return rows, nil
}

// open connects and checks the table's columns; the rating column is
// used when mapped or when the table has a column named rating.
func (e *EngineLogSource) open(ctx context.Context) (*engine.Conn, engine.LogSource, error) {
	src := e.Src
	// One session: a run's temporary tables live in its connection.
	conn, err := engine.OpenSession(ctx, e.Target, e.Timeout)
	if err != nil {
		return nil, src, e.errorf("%v", err)
	}
	rows, err := conn.Query(ctx, src.SchemaSQL())
	if err != nil {
		e.closeConn(conn)
		return nil, src, e.errorf("%v", err)
	}
	types := map[string]string{}
	var names []string
	for _, r := range rows {
		types[Str(r[0])] = Str(r[1])
		names = append(names, Str(r[0]))
	}
	if _, ok := types["rating"]; ok && src.Columns.Rating == "" {
		src.Columns.Rating = "rating"
	}
	c := src.Columns
	for _, col := range [][2]string{{"dataset", c.Dataset}, {"user", c.User}, {"item", c.Item}, {"rating", c.Rating}} {
		if col[1] == "" {
			continue
		}
		typ, ok := types[col[1]]
		if !ok {
			e.closeConn(conn)
			return nil, src, e.errorf("the table has no column %q (the %s column; map it with columns = { %s = \"…\" })%s", col[1], col[0], col[0], analyses.NameHint(col[1], names))
		}
		want, good := "text (String)", src.Dialect.Text(typ)
		if col[0] == "rating" {
			want, good = "numbers (Float64, an integer or Decimal type, or Nullable of one)", src.Dialect.Numeric(typ)
		}
		if !good {
			e.closeConn(conn)
			return nil, src, e.errorf("column %q (the %s column) has type %s; it must hold %s", col[1], col[0], typ, want)
		}
	}
	return conn, src, nil
}

// closeConn closes a connection and counts the bytes it received.
func (e *EngineLogSource) closeConn(c *engine.Conn) {
	c.Close()
	e.mu.Lock()
	e.received += c.Received()
	e.mu.Unlock()
}

// fingerprintOnce returns the log's content fingerprint (rows and the sum
// of a hash of every row), read once per build.
func (e *EngineLogSource) fingerprintOnce(ctx context.Context) (string, error) {
	e.once.Do(func() {
		conn, src, err := e.open(ctx)
		if err != nil {
			e.fpErr = err
			return
		}
		defer e.closeConn(conn)
		rows, err := e.query(ctx, conn, "", src.FingerprintSQL())
		if err != nil {
			e.fpErr = err
			return
		}
		e.fingerprint = fmt.Sprintf("rows=%d cityHash64sum=%016x", U64(rows[0][0]), U64(rows[0][1]))
	})
	return e.fingerprint, e.fpErr
}

// Summary preprocesses the log in the engine and computes its count
// features (the others NaN: the caller refuses them).
func (e *EngineLogSource) Summary(ctx context.Context, analysis string, p datasets.Preprocessing) (*datasets.LogSummary, error) {
	conn, src, err := e.open(ctx)
	if err != nil {
		return nil, err
	}
	defer e.closeConn(conn)
	if p.HasThreshold && src.Columns.Rating == "" {
		return nil, e.errorf("rating_threshold = %g needs a rating column (map it with columns = { rating = \"…\" })", p.Threshold)
	}
	src.Threshold, src.HasThreshold = p.Threshold, p.HasThreshold
	r := &logRun{e: e, ctx: ctx, conn: conn, src: src, analysis: analysis}
	if err := r.counts(p); err != nil {
		return nil, err
	}
	if err := r.materialize(); err != nil {
		return nil, err
	}
	if err := r.filters(p); err != nil {
		return nil, err
	}
	r.c.Interactions = r.left
	users, err := r.histogram("u")
	if err != nil {
		return nil, err
	}
	items, err := r.histogram("i")
	if err != nil {
		return nil, err
	}
	user, err := r.userFeatures(users, items)
	if err != nil {
		return nil, err
	}
	return &datasets.LogSummary{Counts: r.c, Features: append(datasets.CountFeatures(users, items), user...)}, nil
}

// userFeatures computes the popularity-bias and long-tail features: the
// tail's boundary from the item histogram (and, when it falls among items
// of one count, the boundary item's id), then each user's pb and lt in
// the engine (a join of the kept pairs with the item counts), reduced to
// their sums and then their shifted power sums.
func (r *logRun) userFeatures(users, items []datasets.CountBin) ([]float64, error) {
	var nu, nr int64
	for _, b := range users {
		nu += b.IDs
		nr += b.Count * b.IDs
	}
	count, head, of := datasets.TailCut(items, nr)
	tail := engine.Tail{Count: count}
	if head < of {
		rows, err := r.e.query(r.ctx, r.conn, r.analysis, r.src.TailBoundarySQL(r.f, count, head-1))
		if err != nil {
			return nil, err
		}
		tail.After, tail.HasAfter = Str(rows[0][0]), true
	}
	rows, err := r.e.query(r.ctx, r.conn, r.analysis, r.src.UserSumsSQL(r.f, tail, nu))
	if err != nil {
		return nil, err
	}
	n := int64(U64(rows[0][0]))
	if n != nu {
		return nil, r.e.errorf("the per-user query found %d users, the histogram %d (the table changed during the build?)", n, nu)
	}
	d := r.src.Dialect
	spSQL, sp := d.Dyadic(f64(rows[0][1]) / float64(n))
	slSQL, sl := d.Dyadic(f64(rows[0][2]) / float64(n))
	rows, err = r.e.query(r.ctx, r.conn, r.analysis, r.src.UserMomentsSQL(r.f, tail, nu, spSQL, slSQL))
	if err != nil {
		return nil, err
	}
	m := rows[0]
	apb, stpb, skpb, kupb := datasets.MomentsFromSums(n, sp, [4]float64{f64(m[0]), f64(m[1]), f64(m[2]), f64(m[3])})
	ltavg, ltstd, ltsk, ltku := datasets.MomentsFromSums(n, sl, [4]float64{f64(m[4]), f64(m[5]), f64(m[6]), f64(m[7])})
	return []float64{apb, stpb, skpb, kupb, ltavg, ltstd, ltsk, ltku}, nil
}

// logRun is one preprocessing of a log in the engine: the counts so far,
// the pairs left and the filter that keeps them.
type logRun struct {
	e        *EngineLogSource
	ctx      context.Context
	conn     *engine.Conn
	src      engine.LogSource
	analysis string
	c        datasets.PreprocessCounts
	pairs    int64 // distinct pairs read
	left     int64 // pairs kept by f
	f        engine.Filter
	// tables numbers the temporary tables of the pairs kept (eb_p1, …),
	// 0 when the run uses nested queries (the account may not create
	// temporary tables, or the dialect has none).
	tables int
}

// materialize stores the distinct pairs left after the rating threshold
// in a temporary table (eb_p1), from which every later step reads: each
// step then reads the previous one's pairs once instead of nesting its
// query. An account that may not create temporary tables (ClickHouse:
// readonly = 1) gets the same numbers from nested queries; the
// provenance says so.
func (r *logRun) materialize() error {
	if !r.src.Dialect.Materializes() {
		return nil
	}
	name := "eb_p1"
	err := r.e.exec(r.ctx, r.conn, r.analysis, r.src.MaterializeSQL(name, r.f))
	if engine.Refused(err) {
		r.e.mu.Lock()
		r.e.nested = fmt.Sprintf("the engine refused a temporary table (%v): the preprocessing ran as nested queries, the k-core at most %d rounds", err, engine.MaxCoreRounds)
		r.e.mu.Unlock()
		return nil
	}
	if err != nil {
		return r.e.errorf("%v", err)
	}
	r.tables, r.f = 1, engine.Kept(name)
	return r.session()
}

// session checks that the run's statements still go to the session that
// holds its temporary tables.
func (r *logRun) session() error {
	if r.tables > 0 && r.conn.Dials() != 1 {
		return r.e.errorf("the connection to the engine was reopened during the preprocessing, and its temporary tables are gone; build again")
	}
	return nil
}

// counts reads the rows, pairs and threshold counts and checks the ids
// and ratings.
func (r *logRun) counts(p datasets.Preprocessing) error {
	rows, err := r.e.query(r.ctx, r.conn, r.analysis, r.src.SummarySQL())
	if err != nil {
		return err
	}
	row := rows[0]
	r.c.Rows, r.pairs = int64(U64(row[0])), int64(U64(row[1]))
	r.c.Duplicates = r.c.Rows - r.pairs
	switch {
	case r.c.Rows == 0:
		return r.e.errorf("%v: the table has no rows of this dataset", datasets.ErrEmptyLog)
	case U64(row[2]) > 0:
		return r.e.errorf("%d pairs with an empty user id", U64(row[2]))
	case U64(row[3]) > 0:
		return r.e.errorf("%d pairs with an empty item id", U64(row[3]))
	case U64(row[7]) > 0:
		return r.e.errorf("%d ratings are NaN or infinite (store a missing rating as NULL)", U64(row[7]))
	case p.HasThreshold && U64(row[5]) > 0:
		return r.e.errorf("%d pairs without a rating (rating_threshold needs every rating)", U64(row[5]))
	case p.HasThreshold && U64(row[4]) > 0:
		return r.e.errorf("%d (user, item) pairs appear with different ratings: a file keeps the last one, a table has no row order; with rating_threshold each pair's rows must agree", U64(row[4]))
	}
	r.c.BelowThreshold = int64(U64(row[6]))
	r.left = r.pairs - r.c.BelowThreshold
	if r.left == 0 {
		return r.empty(fmt.Sprintf("the rating threshold %g", p.Threshold))
	}
	return nil
}

// empty is the error of a step that left no pair.
func (r *logRun) empty(step string) error {
	return r.e.errorf("%v after %s (%d rows, %d distinct pairs)", datasets.ErrEmptyLog, step, r.c.Rows, r.pairs)
}

// step counts the pairs next keeps and adds the ones it removed to
// removed. With temporary tables it first stores them (and then drops
// the previous step's table): the next step reads them once.
func (r *logRun) step(next engine.Filter, removed *int64, what string) error {
	if r.tables > 0 {
		prev, name := fmt.Sprintf("eb_p%d", r.tables), fmt.Sprintf("eb_p%d", r.tables+1)
		if err := r.e.exec(r.ctx, r.conn, r.analysis, r.src.MaterializeSQL(name, next)); err != nil {
			return r.e.errorf("%v", err)
		}
		r.tables++
		if err := r.e.exec(r.ctx, r.conn, r.analysis, r.src.DropSQL(prev)); err != nil {
			return r.e.errorf("%v", err)
		}
		next = engine.Kept(name)
	}
	rows, err := r.e.query(r.ctx, r.conn, r.analysis, r.src.CountSQL(next))
	if err != nil {
		return err
	}
	if err := r.session(); err != nil {
		return err
	}
	n := int64(U64(rows[0][0]))
	*removed += r.left - n
	r.left, r.f = n, next
	if n == 0 {
		return r.empty(what)
	}
	return nil
}

// filters runs the item and user filters and the iterated k-core, one
// count query per step and round, as datasets.InteractionLog.Finish.
func (r *logRun) filters(p datasets.Preprocessing) error {
	c := &r.c
	if p.MinItem > 1 {
		if err := r.step(r.src.ItemFilter(r.f, p.MinItem), &c.ItemFilter, fmt.Sprintf("the item filter (min_item = %d)", p.MinItem)); err != nil {
			return err
		}
	}
	if p.MinUser > 1 {
		if err := r.step(r.src.UserFilter(r.f, p.MinUser), &c.UserFilter, fmt.Sprintf("the user filter (min_user = %d)", p.MinUser)); err != nil {
			return err
		}
	}
	if p.Core <= 1 {
		return nil
	}
	for {
		if r.tables == 0 && c.CoreRounds == engine.MaxCoreRounds {
			return r.e.errorf("the %d-core still removed interactions after %d rounds in the engine (the account may not create temporary tables, so each round's query doubles in length); let it create them (ClickHouse: readonly = 0 or 2), compute the characteristics from a file, or give characteristics = \"…\"", p.Core, engine.MaxCoreRounds)
		}
		if c.CoreRounds == engine.MaxMaterializedCoreRounds {
			return r.e.errorf("the %d-core still removed interactions after %d rounds in the engine (each round is three more statements); compute the characteristics from a file, or give characteristics = \"…\"", p.Core, engine.MaxMaterializedCoreRounds)
		}
		before := r.left
		if err := r.step(r.src.CoreRound(r.f, p.Core), &c.Core, fmt.Sprintf("the %d-core", p.Core)); err != nil {
			return err
		}
		if r.left == before {
			break
		}
		c.CoreRounds++
	}
	return nil
}

// histogram reads the histogram of per-user (id "u") or per-item ("i")
// interaction counts of the pairs kept.
func (r *logRun) histogram(id string) ([]datasets.CountBin, error) {
	rows, err := r.e.query(r.ctx, r.conn, r.analysis, r.src.HistogramSQL(r.f, id))
	if err != nil {
		return nil, err
	}
	h := make([]datasets.CountBin, len(rows))
	for k, row := range rows {
		h[k] = datasets.CountBin{Count: int64(U64(row[0])), IDs: int64(U64(row[1]))}
	}
	return h, nil
}

// LogsCacheKey is the part of an analysis's cache key that the engine
// logs decide, for an analysis of type kind: for characteristics (the
// one type that reads them), per log in manifest order, the address,
// table, dataset, fingerprint and first query; "" for any other.
func (s *State) LogsCacheKey(kind string) string {
	if kind != "characteristics" {
		return ""
	}
	var parts []string
	for _, e := range s.logs {
		fp, err := e.fingerprintOnce(context.Background())
		if err != nil {
			fp = "error: " + err.Error()
		}
		parts = append(parts, e.Target.String(), e.Src.Table, e.Dataset, fp, e.Src.SummarySQL())
	}
	return strings.Join(parts, "\n")
}

// LogsProvenance records each engine log and the queries it ran.
func (s *State) LogsProvenance() []*EngineProvenance {
	var out []*EngineProvenance
	for _, e := range s.logs {
		e.mu.Lock()
		out = append(out, &EngineProvenance{Engine: e.Target.Engine, URL: e.Target.String(), Table: e.Src.Table,
			Dataset: e.Dataset, Fingerprint: e.fingerprint, Queries: append([]EngineQuery{}, e.queries...), BytesReceived: e.received, Note: e.nested})
		e.mu.Unlock()
	}
	return out
}
