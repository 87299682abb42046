package kinds

// runs, truth and predictions of an offline_metrics analysis take every
// form an [inputs] entry takes — a path or glob with {dataset}/{method}
// placeholders, a table {path, columns, method, dataset}, or a list of
// them — decoded by the same decodeEntries as [inputs]. The kind's
// options hold the raw TOML value (the analyses package knows nothing of
// TOML); it is encoded again and handed to decodeEntries, so an entry's
// problems are reported at the option's line as [inputs]' are.

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/input/parquet"
	"github.com/evalbook/evalbook/report/input/runs"
	"github.com/evalbook/evalbook/report/manifest"
)

// offlineColumns are the names each input may map with columns.
var offlineColumns = map[string][]string{
	"runs":        {"user", "item", "rank", "score"},
	"truth":       {"user", "item", "relevance"},
	"predictions": {"user", "item", "prediction"},
}

// offlineEntries decodes the value of option key (runs, truth or
// predictions) into input entries.
func offlineEntries(job *Job, key string, v any) ([]manifest.InputEntry, error) {
	fullKey := key
	for _, a := range job.Study.Analyses {
		if a.ID == job.ID {
			fullKey = a.Key + "." + key
		}
	}
	line := job.Study.Line(fullKey)
	manifestName := filepath.Base(job.Study.File)
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		if v == "" {
			return nil, nil
		}
		return []manifest.InputEntry{{Path: v, Line: line}}, nil
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(map[string]any{"v": v}); err != nil {
		return nil, &manifest.ManifestError{File: manifestName, Line: line, Msg: fmt.Sprintf("%s: %v", key, err)}
	}
	var raw map[string]toml.Primitive
	md, err := toml.Decode(buf.String(), &raw)
	if err != nil {
		return nil, &manifest.ManifestError{File: manifestName, Line: line, Msg: fmt.Sprintf("%s: %v", key, err)}
	}
	allowed := offlineColumns[key]
	var errs manifest.Errors
	fail := func(k, format string, args ...any) {
		// decodeEntries knows the columns of results and units; the
		// offline inputs have their own, checked below.
		if strings.Contains(format, ".columns: unknown column") && len(args) >= 3 {
			if col, ok := args[2].(string); ok && slices.Contains(allowed, col) {
				return
			}
		}
		errs = append(errs, &manifest.ManifestError{File: manifestName, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	entries := job.Study.DecodeEntries(md, raw["v"], fullKey, fail)
	for i, e := range entries {
		for col := range e.Columns {
			if !slices.Contains(allowed, col) && col != "dataset" && col != "method" {
				fail("", "%s[%d].columns: %q is not a column of %s (want %s)%s", key, i, col, key, strings.Join(allowed, ", "), analyses.DidYouMean(col, allowed))
			}
			if col == "dataset" || col == "method" {
				fail("", "%s[%d].columns: %s comes from the path ({%s}) or a constant (%s = \"…\"), not a column", key, i, col, col, col)
			}
		}
		if e.Missing != "" || len(e.MissingValues) > 0 {
			fail("", "%s[%d]: missing and missing_values do not apply to %s (an empty cell is an error)", key, i, key)
		}
	}
	if len(errs) > 0 {
		if len(errs) == 1 {
			return nil, errs[0]
		}
		return nil, errs
	}
	return entries, nil
}

// offlineExpandEntries resolves the entries of an option to files, with
// each entry's constants and column mapping. Without a dataset the
// dataset is the study's title (as the README's input files say); a run
// or predictions file without a method (placeholder or constant) is an
// error at the option's line.
func offlineExpandEntries(job *Job, key string, v any) ([]offlineFile, error) {
	entries, err := offlineEntries(job, key, v)
	if err != nil {
		return nil, err
	}
	manifestName := filepath.Base(job.Study.File)
	var out []offlineFile
	for _, e := range entries {
		files, err := job.Inputs.Match(e.Path)
		if err != nil {
			// placed by the build at the analysis's line, as before entries
			return nil, fmt.Errorf("%s: %v", key, err)
		}
		for _, f := range files {
			of := offlineFile{path: f.Path, display: job.Inputs.Display(f.Path), dataset: f.Dataset, method: f.Method, columns: e.Columns}
			if of.dataset == "" {
				of.dataset = e.Dataset
			}
			if of.method == "" {
				of.method = e.Method
			}
			if of.dataset == "" {
				of.dataset = job.Study.Title
			}
			if of.method == "" && key != "truth" {
				return nil, input.Errorf(manifestName, e.Line, "%s: %s has no method: put {method} in the path or give method = \"…\"", key, of.display)
			}
			out = append(out, of)
		}
	}
	return out, nil
}

// offlineTabular reports whether a file is read through TableReader: a
// Parquet file, or a table with a column mapping.
func offlineTabular(f offlineFile) bool {
	return parquet.Is(f.path) || len(f.columns) > 0
}

// offlineOpenRun opens a run or predictions file, checked and recorded.
func offlineOpenRun(job *Job, o formatOption, f offlineFile, predictions bool) (*runs.Reader, error) {
	format := runs.FormatOf(f.path, o.format())
	if predictions {
		format = runs.FormatTable
	}
	if !offlineTabular(f) {
		return job.Inputs.OpenRun(f.path, f.display, format, predictions)
	}
	if format == runs.FormatTREC && !parquet.Is(f.path) {
		return nil, fmt.Errorf("%s: columns map the columns of a table; a TREC file has fixed fields (qid Q0 docno rank score tag)", f.display)
	}
	if err := job.Inputs.CheckFile(f.path); err != nil {
		return nil, err
	}
	job.Inputs.NoteFile(f.path)
	return runs.OpenTable(f.path, f.display, predictions, f.columns, job.Study.MaxDecompressed)
}

// offlineScanTruth streams a truth file, checked and recorded.
func offlineScanTruth(job *Job, o formatOption, f offlineFile, fn func(user, item []byte, rel float64, line int) error) (int64, error) {
	if !offlineTabular(f) {
		return job.Inputs.ScanTruth(f.path, f.display, runs.FormatOf(f.path, o.format()), fn)
	}
	if runs.FormatOf(f.path, o.format()) == runs.FormatTREC && !parquet.Is(f.path) {
		return 0, fmt.Errorf("%s: columns map the columns of a table; TREC qrels have fixed fields (qid iter docno level)", f.display)
	}
	if err := job.Inputs.CheckFile(f.path); err != nil {
		return 0, err
	}
	job.Inputs.NoteFile(f.path)
	return runs.ScanTruthTable(f.path, f.display, f.columns, job.Study.MaxDecompressed, fn)
}

// formatOption is the format key of the options.
type formatOption string

func (f formatOption) format() string { return string(f) }
