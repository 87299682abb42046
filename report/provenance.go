package report

import (
	"fmt"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/load/engines"
	"github.com/evalbook/evalbook/report/manifest"
	"path/filepath"
	"sort"
)

// Provenance is data/provenance.json: what made this site.
type Provenance struct {
	Tool     string           `json:"tool"`
	Version  string           `json:"version"`
	Manifest FileProvenance   `json:"manifest"`
	Inputs   []FileProvenance `json:"inputs"`
	Analyses []AnalysisProv   `json:"analyses"`
	Seed     int64            `json:"seed"`
	Command  string           `json:"command"`
	// Engine records the units engine table and the queries sent to it.
	Engine *engines.EngineProvenance `json:"engine,omitempty"`
	// EngineLogs records the interaction logs read from engine tables.
	EngineLogs []*engines.EngineProvenance `json:"engine_logs,omitempty"`
}

// FileProvenance is one file read by the build.
type FileProvenance struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Rows   int64  `json:"rows,omitempty"`
}

// AnalysisProv records an analysis's resolved parameters and seed.
type AnalysisProv struct {
	ID     string         `json:"id"`
	Type   string         `json:"type"`
	Seed   uint64         `json:"seed"`
	Params map[string]any `json:"params"`
}

func provenance(s *manifest.Study, in *load.Inputs, runs []analysisRun, o Options) (*Provenance, error) {
	p := &Provenance{Tool: "evalbook", Version: o.Version, Seed: s.Seed, Command: o.Command}
	// The manifest's hash is of the bytes that were parsed, not of the
	// file as it is now: an edit during the build must not be recorded
	// as what the build followed.
	p.Manifest = FileProvenance{Path: filepath.Base(s.File), SHA256: s.SourceSum}
	in.Mu.Lock()
	paths := make([]string, 0, len(in.Files))
	for path := range in.Files {
		paths = append(paths, path)
	}
	in.Mu.Unlock()
	sort.Strings(paths)
	for _, path := range paths {
		sum := in.Pin(path)
		if sum == "" && in.ChangedWhileRead(path) {
			return nil, fmt.Errorf("%s: changed while this build read it (build again)", in.Display(path))
		}
		if sum == "" {
			return nil, fmt.Errorf("%s: cannot be read", in.Display(path))
		}
		in.Mu.Lock()
		r := *in.Files[path]
		in.Mu.Unlock()
		p.Inputs = append(p.Inputs, FileProvenance{Path: r.Path, SHA256: sum, Rows: r.Rows})
	}
	sort.Slice(p.Inputs, func(i, j int) bool { return p.Inputs[i].Path < p.Inputs[j].Path })
	if in.Engines.Units != nil {
		p.Engine = in.Engines.Units.Provenance()
	}
	p.EngineLogs = in.Engines.LogsProvenance()
	for _, r := range runs {
		params, err := manifest.ParamsMap(r.Spec.Options)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Spec.ID, err)
		}
		p.Analyses = append(p.Analyses, AnalysisProv{ID: r.Spec.ID, Type: r.Spec.Type, Seed: r.Seed, Params: params})
	}
	return p, nil
}
