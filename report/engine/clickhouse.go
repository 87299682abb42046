package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"reflect"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Conn is a connection to ClickHouse through clickhouse-go v2's native
// protocol (the client's HTTP protocol does not work with ClickHouse
// 18.16, see docs/ENGINE.md). It counts the bytes the engine sent.
type Conn struct {
	target Target
	conn   driver.Conn // the client's pool (Open)
	// db and sess: one connection of database/sql over the same client
	// (OpenSession). clickhouse-go's own pool may dial a second
	// connection even with one allowed: it frees a connection's slot
	// before it returns the connection to the pool (seen: a temporary
	// table gone between two statements of one run).
	db       *sql.DB
	sess     *sql.Conn
	received atomic.Int64
	dials    atomic.Int64
	timeout  time.Duration
}

// Open connects to the target; timeout bounds every query (the engine's
// max_execution_time, and the client's own deadline a little later).
// The client keeps a pool of two connections: consecutive queries may
// run in different sessions.
func Open(ctx context.Context, t Target, timeout time.Duration) (*Conn, error) {
	return open(ctx, t, timeout, false)
}

// OpenSession is Open with one connection, one session of the engine,
// for statements that build on each other (a temporary table and the
// queries that read it). The connection is never replaced: once broken,
// every statement fails; Dials counts the connections opened (one).
func OpenSession(ctx context.Context, t Target, timeout time.Duration) (*Conn, error) {
	return open(ctx, t, timeout, true)
}

func open(ctx context.Context, t Target, timeout time.Duration, session bool) (*Conn, error) {
	c := &Conn{target: t, timeout: timeout}
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	opts := &clickhouse.Options{
		Protocol:    clickhouse.Native,
		Addr:        []string{t.Addr},
		Auth:        clickhouse.Auth{Database: t.Database, Username: t.User, Password: t.Password},
		DialTimeout: 5 * time.Second,
		// After the context's deadline, so that a slow query ends as a
		// timeout of the query, not of a read.
		ReadTimeout: timeout + 2*clientGrace,
		// Compression off: results are a few kilobytes, and the byte count
		// is then the data's size.
		Compression: &clickhouse.Compression{Method: clickhouse.CompressionNone},
		DialContext: func(ctx context.Context, addr string) (net.Conn, error) {
			nc, err := dialer.DialContext(ctx, "tcp", addr)
			if err != nil {
				return nil, err
			}
			c.dials.Add(1)
			return &countingConn{Conn: nc, n: &c.received}, nil
		},
		MaxOpenConns: 2,
		MaxIdleConns: 1,
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if session {
		c.db = clickhouse.OpenDB(opts)
		c.db.SetMaxOpenConns(1)
		sess, err := c.db.Conn(pctx)
		if err == nil {
			err = sess.PingContext(pctx)
			if err != nil {
				sess.Close()
			}
		}
		if err != nil {
			c.db.Close()
			return nil, c.explain(err, "")
		}
		c.sess = sess
		return c, nil
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		return nil, c.explain(err, "")
	}
	c.conn = conn
	if err := conn.Ping(pctx); err != nil {
		conn.Close()
		return nil, c.explain(err, "")
	}
	return c, nil
}

// clientGrace is how long after the engine's own time limit the client
// gives up.
const clientGrace = 2 * time.Second

// Close closes the connection.
func (c *Conn) Close() error {
	if c.sess != nil {
		c.sess.Close()
		return c.db.Close()
	}
	return c.conn.Close()
}

// Dials returns the connections opened so far.
func (c *Conn) Dials() int64 { return c.dials.Load() }

// Received returns the bytes the engine sent so far (protocol included).
func (c *Conn) Received() int64 { return c.received.Load() }

// maxQuerySize is the longest query text the engine parses (bytes).
const maxQuerySize = 4 << 20

// Exec runs a statement that returns no rows (CREATE, DROP), with the
// settings and deadlines of Query.
func (c *Conn) Exec(ctx context.Context, stmt string) error {
	ctx, cancel := c.settings(ctx)
	defer cancel()
	var err error
	if c.sess != nil {
		_, err = c.sess.ExecContext(ctx, stmt)
	} else {
		err = c.conn.Exec(ctx, stmt)
	}
	if err != nil {
		return c.explain(err, stmt)
	}
	return nil
}

// Query runs a query and returns its rows, each value as string, uint64,
// int64 or float64 (NULL as nil).
func (c *Conn) Query(ctx context.Context, query string) ([][]any, error) {
	ctx, cancel := c.settings(ctx)
	defer cancel()
	var out [][]any
	var err error
	if c.sess != nil {
		out, err = c.querySession(ctx, query)
	} else {
		out, err = c.queryPool(ctx, query)
	}
	if err != nil {
		return nil, c.explain(err, query)
	}
	return out, nil
}

// queryPool is Query on the client's pool.
func (c *Conn) queryPool(ctx context.Context, query string) ([][]any, error) {
	rows, err := c.conn.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var types []reflect.Type
	for _, t := range rows.ColumnTypes() {
		types = append(types, t.ScanType())
	}
	return readRows(rows, types)
}

// querySession is Query on the session's connection.
func (c *Conn) querySession(ctx context.Context, query string) ([][]any, error) {
	rows, err := c.sess.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	var types []reflect.Type
	for _, t := range cols {
		types = append(types, t.ScanType())
	}
	return readRows(rows, types)
}

// resultRows is what readRows needs of clickhouse-go's rows and of
// database/sql's.
type resultRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// readRows reads every row, each value scanned into its column's type
// and made plain.
func readRows(rows resultRows, types []reflect.Type) ([][]any, error) {
	var out [][]any
	for rows.Next() {
		dest := make([]any, len(types))
		for i, t := range types {
			dest[i] = reflect.New(t).Interface()
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		row := make([]any, len(dest))
		for i, p := range dest {
			row[i] = plain(reflect.ValueOf(p).Elem())
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// settings returns the context of a statement: the engine's settings
// and the client's deadline.
func (c *Conn) settings(ctx context.Context) (context.Context, context.CancelFunc) {
	secs := int(math.Ceil(c.timeout.Seconds()))
	// max_query_size and max_ast_elements: the interaction logs' k-core
	// rounds as nested queries (an account that may not create temporary
	// tables) double their query's length (LogSource.CoreRound, at most
	// MaxCoreRounds); the last round's per-user query is past the
	// server's defaults (256 KiB, 50,000 elements).
	ctx = clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"max_execution_time": secs,
		"max_query_size": maxQuerySize, "max_ast_elements": maxQuerySize / 4, "max_expanded_ast_elements": maxQuerySize / 4}))
	// The client's own deadline a little later: ClickHouse 18.16 does not
	// enforce max_execution_time on a query that reads through a VIEW,
	// and a server may hang; on the deadline clickhouse-go sends Cancel.
	return context.WithTimeout(ctx, c.timeout+clientGrace)
}

// plain turns a scanned value into string, uint64, int64, float64 or nil.
func plain(v reflect.Value) any {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Float32, reflect.Float64:
		return v.Float()
	}
	return fmt.Sprint(v.Interface())
}

// Error codes of ClickHouse's exceptions that get their own message.
const (
	codeUnknownIdentifier = 47
	codeUnknownTable      = 60
	codeUnknownDatabase   = 81
	codeTimeout           = 159
	codeReadonly          = 164
	codeAccessDenied      = 497
)

// Refused reports whether err is the engine refusing a statement to the
// account (ClickHouse: readonly = 1, or no grant of it), as opposed to
// the statement failing.
func Refused(err error) bool {
	var ex *clickhouse.Exception
	return errors.As(err, &ex) && (ex.Code == codeReadonly || ex.Code == codeAccessDenied)
}

// Error is a failed engine operation, in words a user can act on.
type Error struct {
	Msg string
	Err error
}

// Error is the message.
func (e *Error) Error() string { return e.Msg }

// Unwrap is the client's error.
func (e *Error) Unwrap() error { return e.Err }

// explain turns a client error into what happened.
func (c *Conn) explain(err error, query string) error {
	var ex *clickhouse.Exception
	if errors.As(err, &ex) {
		switch ex.Code {
		case codeUnknownTable, codeUnknownDatabase:
			return &Error{fmt.Sprintf("the engine has no such table: %s (ClickHouse error %d)", ex.Message, ex.Code), err}
		case codeUnknownIdentifier:
			return &Error{fmt.Sprintf("a column is missing: %s (ClickHouse error %d)", ex.Message, ex.Code), err}
		case codeTimeout:
			return &Error{fmt.Sprintf("the query ran longer than the entry's timeout (%s; raise timeout = \"…\"): %s", c.timeout, ex.Message), err}
		}
		return &Error{fmt.Sprintf("the engine refused the query: ClickHouse error %d: %s", ex.Code, ex.Message), err}
	}
	var op *net.OpError
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), query != "" && errors.As(err, &ne) && ne.Timeout():
		return &Error{fmt.Sprintf("the query ran longer than the entry's timeout (%s; raise timeout = \"…\"): no answer from %s", c.timeout, c.target), err}
	case query == "" && (errors.As(err, &op) || errors.Is(err, syscall.ECONNREFUSED)):
		return &Error{fmt.Sprintf("cannot reach the engine at %s: %v", c.target, err), err}
	case query == "":
		return &Error{fmt.Sprintf("cannot connect to the engine at %s: %v", c.target, err), err}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.As(err, &op):
		return &Error{fmt.Sprintf("the connection to %s broke during the query (did the server stop?): %v", c.target, err), err}
	}
	return &Error{fmt.Sprintf("the query failed on %s: %v", c.target, err), err}
}

// countingConn counts the bytes read from a connection.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}
