package report

// Why this file exists: an analysis's options are checked by their
// Validate method (analyses/bounds.go holds the limits), which names the
// key it rejects in an *analyses.OptionError. BurntSushi/toml keeps no
// positions, so this file finds the line of that key inside the
// analysis's [[analyses]] table, nested tables such as
// [analyses.evalrs2022] included, and reports the error there instead of
// at the table's header.

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// optionErrors turns the error of an analysis's Validate or Check into
// manifest errors, each at the line of the key it names (the analysis's
// header line when it names none or the key is not written out).
func (s *Study) optionErrors(file string, a AnalysisSpec, err error) []error {
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	var lines map[string]int
	out := make([]error, 0, len(list))
	for _, e := range list {
		line := a.Line
		var oe *analyses.OptionError
		if errors.As(e, &oe) {
			if lines == nil {
				lines = analysisKeyLines(s.source, a.Line)
			}
			line = lookupLine(lines, oe.Key, a.Line)
		}
		out = append(out, &ManifestError{File: file, Line: line, Msg: fmt.Sprintf("analyses (%s): %v", a.ID, e)})
	}
	return out
}

// lookupLine returns the line of a dotted key, else of its closest
// parent, else def.
func lookupLine(lines map[string]int, key string, def int) int {
	for k := key; k != ""; {
		if l, ok := lines[k]; ok {
			return l
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	return def
}

// analysisKeyLines maps the keys of the [[analyses]] table whose header
// is on line header (1-based) to their lines: "repeats" for a key of the
// table itself, "evalrs2022.penalty" for a key of its [analyses.evalrs2022]
// sub-table. It stops at the next header that is not such a sub-table.
func analysisKeyLines(src []byte, header int) map[string]int {
	out := map[string]int{}
	if header <= 0 {
		return out
	}
	lines := bytes.Split(src, []byte("\n"))
	prefix := ""
	inMulti := ""
	for i := header; i < len(lines); i++ { // lines[header] is the line after the header
		line := strings.TrimSpace(string(lines[i]))
		n := i + 1
		if inMulti != "" {
			if strings.Count(line, inMulti)%2 == 1 {
				inMulti = ""
			}
			continue
		}
		switch {
		case line == "" || line[0] == '#':
			continue
		case strings.HasPrefix(line, "[["):
			return out
		case line[0] == '[':
			name := tableName(line[1:], "]")
			sub, ok := strings.CutPrefix(name, "analyses.")
			if !ok {
				return out
			}
			prefix = sub
			if _, seen := out[prefix]; !seen {
				out[prefix] = n
			}
			continue
		}
		eq := strings.IndexByte(line, '=')
		if eq <= 0 {
			continue
		}
		key := unquoteKey(strings.TrimSpace(line[:eq]))
		if prefix != "" {
			key = prefix + "." + key
		}
		if _, seen := out[key]; !seen {
			out[key] = n
		}
		rest := line[eq+1:]
		for _, q := range []string{`"""`, `'''`} {
			if strings.Count(rest, q)%2 == 1 {
				inMulti = q
			}
		}
	}
	return out
}
