package manifest

// The manifest's engine entries (docs/ENGINE.md): a units entry or a
// dataset's interactions naming an engine table are checked here and
// resolved to an engineConfig or engineLogConfig (address, table,
// columns, timeout); the build's connections, catalogue and queries are
// in report/load/engines.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/report/engine"
)

// EngineConfig is the study's engine table as the manifest gives it.
type EngineConfig struct {
	File    string // the manifest's name, for errors
	Line    int
	Target  engine.Target
	Timeout time.Duration
	Src     engine.Source
}

// EngineLogConfig is one dataset's interaction log in an engine table,
// as the manifest gives it.
type EngineLogConfig struct {
	File    string
	Line    int
	Target  engine.Target
	Timeout time.Duration
	Src     engine.LogSource
}

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
	for _, k := range TomlKeys(&InputEntry{}) {
		if key == "inputs.units" || !Contains(engineEntryKeys, k) || k == "columns" || k == "missing" {
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
	if !Contains(engine.Engines, e.Engine) {
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
		if _, err := engine.ParseURL(e.Engine, e.URL); err != nil && Contains(engine.Engines, e.Engine) {
			fail(ekey+".url", "%s.url: %v", where, err)
		}
	}
	if e.Table == "" {
		fail(ekey, "%s.table: required", where)
	}
	for _, c := range analyses.SortedKeys(e.Columns) {
		if !Contains(engineColumns, c) {
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
	if !Contains(engine.Engines, e.Engine) || e.Table == "" || (e.URL == "") == (e.URLEnv == "") {
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
	p.s.Engine = &EngineConfig{
		File: filepath.Base(p.s.File), Line: e.Line, Target: t, Timeout: timeout,
		Src: engine.Source{Dialect: engine.ClickHouse, Table: e.Table, Missing: e.Missing,
			Columns: engine.Columns{Dataset: col("dataset"), Method: col("method"), Unit: col("unit"), Metric: col("metric"), Value: col("value")}},
	}
}

// failLine records an error at a manifest line.
func (p *manifestParser) failLine(line int, format string, args ...any) {
	p.errs = append(p.errs, &ManifestError{File: p.name, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// engineLogKeys are the keys of an engine interactions entry.
var engineLogKeys = []string{"engine", "url", "url_env", "table", "columns", "timeout"}

// engineLogColumns are the columns an engine interaction table provides.
var engineLogColumns = []string{"dataset", "user", "item", "rating"}

// engineLog reads a [[datasets]] entry's interactions table (key is
// "datasets.N.interactions") for the dataset name; nil after an error.
func (p *manifestParser) engineLog(key, name string, m map[string]any) *EngineLogConfig {
	where := displayKey(key)
	str := func(k string) string {
		v, ok := m[k]
		if !ok {
			return ""
		}
		s, ok := v.(string)
		if !ok {
			p.fail(key+"."+k, "%s.%s: want a string, got %s", where, k, tomlTypeName(v))
		}
		return s
	}
	for _, k := range analyses.SortedKeys(m) {
		if !Contains(engineLogKeys, k) {
			p.fail(key+"."+k, "%s.%s: unknown key; an engine interaction table takes %s%s", where, k, strings.Join(engineLogKeys, ", "), analyses.NameHint(k, engineLogKeys))
		}
	}
	e := InputEntry{Engine: str("engine"), URL: str("url"), URLEnv: str("url_env"), Table: str("table"), Timeout: str("timeout")}
	cols := map[string]string{}
	if raw, ok := m["columns"]; ok {
		cm, ok := raw.(map[string]any)
		if !ok {
			p.fail(key+".columns", "%s.columns: want a table { dataset = \"…\", user = \"…\", item = \"…\", rating = \"…\" }", where)
		}
		for _, k := range analyses.SortedKeys(cm) {
			s, ok := cm[k].(string)
			if !Contains(engineLogColumns, k) || !ok {
				p.fail(key+".columns", "%s.columns.%s: the keys of columns are %s and the values the table's column names (strings)%s", where, k, strings.Join(engineLogColumns, ", "), analyses.NameHint(k, engineLogColumns))
				continue
			}
			cols[k] = s
		}
	}
	n := len(p.errs)
	if !Contains(engine.Engines, e.Engine) {
		p.fail(key+".engine", "%s.engine: %q is not an engine evalbook reads (want %q)%s", where, e.Engine, strings.Join(engine.Engines, ", "), analyses.DidYouMean(e.Engine, engine.Engines))
	}
	if e.Table == "" {
		p.fail(key, "%s.table: required", where)
	}
	timeout := defaultEngineTimeout
	if e.Timeout != "" {
		d, err := time.ParseDuration(e.Timeout)
		if err != nil || d < time.Second {
			p.fail(key+".timeout", "%s.timeout: %q is not a duration of at least 1s (e.g. \"90s\", \"10m\")", where, e.Timeout)
		}
		timeout = d
	}
	t, ok := p.engineTarget(key, where, e)
	if !ok || len(p.errs) > n {
		return nil
	}
	col := func(name string) string {
		if c, ok := cols[name]; ok {
			return c
		}
		return name
	}
	return &EngineLogConfig{File: filepath.Base(p.s.File), Line: p.s.Line(key), Target: t, Timeout: timeout,
		Src: engine.LogSource{Dialect: engine.ClickHouse, Table: e.Table, Dataset: name,
			Columns: engine.LogColumns{Dataset: col("dataset"), User: col("user"), Item: col("item"), Rating: cols["rating"]}}}
}

// engineTarget resolves an engine entry's URL (url, or the environment
// variable url_env names), refusing a password in the manifest.
func (p *manifestParser) engineTarget(key, where string, e InputEntry) (engine.Target, bool) {
	raw := e.URL
	switch {
	case e.URL == "" && e.URLEnv == "":
		p.fail(key, "%s: url or url_env required (url_env names an environment variable holding the URL)", where)
		return engine.Target{}, false
	case e.URL != "" && e.URLEnv != "":
		p.fail(key+".url", "%s: url and url_env both give the URL; keep one", where)
		return engine.Target{}, false
	case engine.HasPassword(e.URL):
		p.fail(key+".url", "%s.url: holds a password; never write one in the manifest: put the URL in an environment variable and name it with url_env", where)
		return engine.Target{}, false
	case e.URLEnv != "":
		if raw = os.Getenv(e.URLEnv); raw == "" {
			p.fail(key+".url_env", "%s: the environment variable %s (url_env) is not set: it must hold the engine's URL, e.g. %s://host:9000/database", where, e.URLEnv, e.Engine)
			return engine.Target{}, false
		}
	}
	t, err := engine.ParseURL(e.Engine, raw)
	if err != nil {
		p.fail(key+".url", "%s.url: %v", where, err)
		return engine.Target{}, false
	}
	return t, true
}

// DerivesUnits reports whether an analysis of the study feeds units
// (offline_metrics).
func (s *Study) DerivesUnits() bool {
	for _, a := range s.Analyses {
		if a.Kind.Feeds {
			return true
		}
	}
	return false
}
