// Package engine reads a study's per-unit values from a table in a SQL
// engine instead of files: it parses the engine's URL, writes the SQL of
// each analysis's sufficient statistics (sql.go) in a dialect (dialect.go),
// runs it through the engine's client (clickhouse.go) and returns the
// small result. Nothing here knows about analyses beyond the statistics
// they ask for; report/load/engines connects it to the build.
// docs/ENGINE.md describes the manifest entry, the SQL and its limits.
package engine

import (
	"fmt"
	"net/url"
	"strings"
)

// Target is an engine's address: clickhouse://[user[:password]@]host:port/database.
type Target struct {
	Engine   string // "clickhouse"
	Addr     string // host:port of the native protocol
	Database string
	User     string
	Password string
}

// Engines are the engines evalbook can read from.
var Engines = []string{"clickhouse"}

// ParseURL reads an engine URL. The scheme must name the engine; the
// port defaults to the native protocol's 9000 and the database to
// "default".
func ParseURL(engine, raw string) (Target, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Target{}, fmt.Errorf("not a URL: %v", err)
	}
	if u.Scheme != engine {
		return Target{}, fmt.Errorf("the URL must start with %s:// (it is %q)", engine, Redact(raw))
	}
	if u.Host == "" {
		return Target{}, fmt.Errorf("the URL %q names no host", Redact(raw))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return Target{}, fmt.Errorf("the URL %q has a query or fragment; settings go in the manifest (timeout)", Redact(raw))
	}
	t := Target{Engine: engine, Addr: u.Host, Database: strings.Trim(u.Path, "/")}
	if u.Port() == "" {
		t.Addr = u.Host + ":9000"
	}
	if t.Database == "" {
		t.Database = "default"
	}
	if strings.Contains(t.Database, "/") {
		return Target{}, fmt.Errorf("the URL %q: the path must be one database name", Redact(raw))
	}
	if u.User != nil {
		t.User = u.User.Username()
		t.Password, _ = u.User.Password()
	}
	return t, nil
}

// HasPassword reports whether a URL carries a password.
func HasPassword(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return false
	}
	_, ok := u.User.Password()
	return ok
}

// String is the URL without its password (what errors, the provenance
// and the cache key show).
func (t Target) String() string {
	user := ""
	if t.User != "" {
		user = url.User(t.User).String() + "@"
	}
	return t.Engine + "://" + user + t.Addr + "/" + t.Database
}

// Redact returns a URL with its password (if any) replaced by "***".
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unparsable URL)"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "***")
		}
	}
	return u.String()
}
