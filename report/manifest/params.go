package manifest

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/evalbook/evalbook/analyses"
)

// An analysis page lists its parameters as the manifest wrote them (the
// TOML text of each key, comments dropped), and the keys the manifest
// left out with their defaults, marked. The resolved values of every key
// are in data/<id>.json and data/provenance.json.

// AnalysisParams lists the parameters of one analysis for its page.
func (s *Study) AnalysisParams(spec AnalysisSpec) ([]paramView, error) {
	resolved, err := ParamsMap(spec.Options)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(s.source), "\n")
	var out []paramView
	for _, k := range analyses.SortedKeys(resolved) {
		if text, block, ok := s.writtenParam(lines, spec.Key, k); ok {
			out = append(out, paramView{Key: k, Value: text, Block: block})
			continue
		}
		text, block := defaultParam(k, resolved[k])
		out = append(out, paramView{Key: k, Value: text, Block: block, Default: true})
	}
	return out, nil
}

// writtenParam is the manifest's text for key k of the analysis at
// manifest key prefix ("analyses.3"): the value after "k =" (over as many
// lines as its brackets span), a sub-table's lines, or a dotted key's
// lines. ok is false when the manifest does not write k.
func (s *Study) writtenParam(lines []string, prefix, k string) (text string, block bool, ok bool) {
	if prefix == "" {
		return "", false, false
	}
	full := prefix + "." + k
	at, found := s.KeyLines[full]
	if !found || at < 1 || at > len(lines) {
		return "", false, false
	}
	first := strings.TrimSpace(lines[at-1])
	if strings.HasPrefix(first, "[") {
		// a sub-table: its header's lines up to the next table that is
		// not one of its own sub-tables
		name := tableName(strings.TrimPrefix(first, "["), "]")
		var body []string
		for i := at; i < len(lines); i++ {
			l := strings.TrimSpace(lines[i])
			if strings.HasPrefix(l, "[[") {
				break
			}
			if strings.HasPrefix(l, "[") {
				if sub := tableName(l[1:], "]"); !strings.HasPrefix(sub, name+".") {
					break
				}
				body = append(body, "["+strings.TrimPrefix(tableName(l[1:], "]"), name+".")+"]")
				continue
			}
			if l == "" || l[0] == '#' {
				continue
			}
			body = append(body, stripComment(l))
		}
		return strings.Join(body, "\n"), true, true
	}
	eq := strings.IndexByte(first, '=')
	if eq < 0 {
		return "", false, false
	}
	if unquoteKey(strings.TrimSpace(first[:eq])) != k {
		// dotted keys (k.path = …, k.columns = …): every line of them
		var body []string
		for key, l := range s.KeyLines {
			if strings.HasPrefix(key, full+".") && l >= 1 && l <= len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[l-1]), "[") {
				body = append(body, stripComment(strings.TrimSpace(lines[l-1])))
			}
		}
		sort.Strings(body)
		return strings.Join(body, "\n"), true, true
	}
	value := first[eq+1:]
	depth := bracketDepth(value)
	for i := at; depth > 0 && i < len(lines); i++ {
		value += "\n" + lines[i]
		depth += bracketDepth(lines[i])
	}
	value = strings.TrimSpace(stripComment(value))
	return value, strings.Contains(value, "\n"), true
}

// bracketDepth is the change of [ { nesting over a line of TOML, outside
// strings and comments.
func bracketDepth(s string) int {
	depth, _ := tomlLineShape(s)
	return depth
}

// stripComment drops the comments of TOML text, line by line, outside
// strings.
func stripComment(s string) string {
	lines := strings.Split(s, "\n")
	for n, line := range lines {
		var quote byte
		for i := 0; i < len(line); i++ {
			c := line[i]
			if quote != 0 {
				if c == '\\' && quote == '"' {
					i++
				} else if c == quote {
					quote = 0
				}
				continue
			}
			if c == '"' || c == '\'' {
				quote = c
			} else if c == '#' {
				line = line[:i]
				break
			}
		}
		lines[n] = strings.TrimRight(line, " \t")
	}
	return strings.Join(lines, "\n")
}

// defaultParam writes a default value as TOML: one line for a scalar or
// array, the table's lines otherwise.
func defaultParam(k string, v any) (string, bool) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(map[string]any{k: v}); err != nil {
		return fmt.Sprint(v), false
	}
	text := strings.TrimSpace(buf.String())
	if rest, ok := strings.CutPrefix(text, k+" = "); ok && !strings.Contains(rest, "\n") {
		return rest, false
	}
	if m, ok := v.(map[string]any); ok && len(m) == 0 {
		return "{}", false
	}
	return strings.TrimSpace(strings.TrimPrefix(text, "["+k+"]")), true
}

// ParamsMap returns an options struct as a map keyed by its TOML names,
// the form the manifest uses. Non-finite numbers become strings, since
// JSON has no infinity.
func ParamsMap(opts any) (map[string]any, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(opts); err != nil {
		return nil, err
	}
	m := map[string]any{}
	if _, err := toml.Decode(buf.String(), &m); err != nil {
		return nil, err
	}
	return jsonSafe(m).(map[string]any), nil
}

func jsonSafe(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonSafe(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = jsonSafe(e)
		}
		return x
	case []map[string]any:
		for i, e := range x {
			x[i] = jsonSafe(e).(map[string]any)
		}
		return x
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Sprint(x)
		}
	}
	return v
}

// paramView is one parameter as an analysis page shows it.
type paramView struct {
	Key, Value     string
	Block, Default bool
}
