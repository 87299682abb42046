package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures"

	"github.com/evalbook/evalbook/report/input"
)

// The disk cache lets one-shot builds (evalbook build) reuse an
// analysis's output when nothing it depends on changed: the key holds the
// analysis's id, type, resolved parameters, seed, title and caption and a
// hash of the evalbook binary itself (so a rebuilt tool never trusts old
// results); an entry is valid while every file the analysis read keeps
// its size and modification time. Editing prose therefore re-renders
// pages without recomputing.
//
// What is stored is the output as the site writer sees it — tables, data
// tables, notes, the result's own JSON, the key finding, figures and the
// method note — so a cached build is byte-identical to a computed one.
// Kinds that feed other analyses (Kind.Feeds) stream values and are not
// stored on disk.

// diskEntry is one cached output on disk.
type diskEntry struct {
	Tables     []analyses.Table `json:"tables"`
	DataTables []analyses.Table `json:"data_tables,omitempty"`
	Notes      []string         `json:"notes"`
	Own        json.RawMessage  `json:"own"`
	Highlight  *string          `json:"highlight,omitempty"`
	Figures    []figures.Figure `json:"figures"`
	Method     string           `json:"method"`
	Reads      readStamp        `json:"reads"`
}

// frozenResult replays a cached result for the site writer.
type frozenResult struct{ e *diskEntry }

func (f frozenResult) Tables() []analyses.Table     { return f.e.Tables }
func (f frozenResult) Notes() []string              { return f.e.Notes }
func (f frozenResult) DataTables() []analyses.Table { return f.e.DataTables }
func (f frozenResult) MarshalJSON() ([]byte, error) { return f.e.Own, nil }

// frozenHighlighted is a frozenResult whose original had a key finding.
type frozenHighlighted struct{ frozenResult }

func (f frozenHighlighted) Highlight() string { return *f.e.Highlight }

var (
	exeHashOnce sync.Once
	exeHash     string
)

// toolHash identifies the running binary's code.
func toolHash() string {
	exeHashOnce.Do(func() {
		exe, err := os.Executable()
		if err == nil {
			exeHash, err = input.SHA256File(exe)
		}
		if err != nil {
			exeHash = "unknown"
		}
	})
	return exeHash
}

func diskPath(dir, id, key string) string {
	h := sha256.Sum256([]byte(id + "\x00" + key + "\x00" + toolHash()))
	return filepath.Join(dir, id+"-"+hex.EncodeToString(h[:12])+".json")
}

// diskGet returns a cached output still valid, or nil.
func diskGet(dir, id, key string, in *inputs) (*Output, readStamp) {
	if dir == "" {
		return nil, readStamp{}
	}
	b, err := input.ReadOwn(diskPath(dir, id, key))
	if err != nil {
		return nil, readStamp{}
	}
	var e diskEntry
	if err := json.Unmarshal(b, &e); err != nil || e.Reads.Files == nil {
		return nil, readStamp{}
	}
	if !e.Reads.valid(in) {
		return nil, readStamp{}
	}
	var res analyses.Result = frozenResult{&e}
	if e.Highlight != nil {
		res = frozenHighlighted{frozenResult{&e}}
	}
	return &Output{Result: res, Figures: e.Figures, Method: e.Method}, e.Reads
}

// diskPut stores an output; failures only cost the next build time.
func diskPut(dir, id, key string, st readStamp, out *Output) error {
	if dir == "" {
		return nil
	}
	own, err := json.Marshal(out.Result)
	if err != nil {
		return err
	}
	e := diskEntry{Tables: out.Result.Tables(), Notes: out.Result.Notes(), Own: own, Figures: out.Figures,
		Method: out.Method, Reads: st}
	if dt, ok := out.Result.(interface{ DataTables() []analyses.Table }); ok {
		e.DataTables = dt.DataTables()
	}
	if h, ok := out.Result.(analyses.Highlighter); ok {
		s := h.Highlight()
		e.Highlight = &s
	}
	e.Tables, e.DataTables = jsonSafeTables(e.Tables), jsonSafeTables(e.DataTables)
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), diskPath(dir, id, key))
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cache: %w", werr)
	}
	return nil
}

// jsonSafeTables copies tables with NaN and ±Inf cells as nil, which the
// site prints the same way (empty in CSV, null in JSON, "—" on pages).
func jsonSafeTables(ts []analyses.Table) []analyses.Table {
	out := make([]analyses.Table, len(ts))
	for i, t := range ts {
		rows := make([][]any, len(t.Rows))
		for r, row := range t.Rows {
			rows[r] = make([]any, len(row))
			for c, cell := range row {
				rows[r][c] = jsonCell(cell)
			}
		}
		t.Rows = rows
		out[i] = t
	}
	return out
}
