package multiobjective

// The options of multi_objective take values of more than one TOML shape
// (importance = 2 or {metric = λ}; input = "file" or {path, columns}),
// and the EvalRS 2022 constants are nested tables. BurntSushi/toml only
// rejects unknown keys at the top level of an [[analyses]] table, so the
// nested tables decode themselves through UnmarshalTOML and reject a
// misspelt key with a hint instead of silently ignoring it.

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/evalbook/evalbook/analyses"
)

// Source is the `input` key: a path, or a table
// {path = "…", columns = {model = "participant_id"}, ids = ["submission"]}
// mapping the expected column names (model and the metrics) onto the
// file's own, and naming the file's other identifier columns.
type Source struct {
	Path    string            `toml:"path" json:"path,omitempty"`
	Columns map[string]string `toml:"columns" json:"columns,omitempty"`
	// IDs are the file's identifier columns besides the model (a team's
	// "submission"): every table and data file keeps them beside the
	// model, so rows of one model stay apart, and two rows alike in the
	// model and every id are an error.
	IDs []string `toml:"ids" json:"ids,omitempty"`
}

// UnmarshalTOML accepts a string or a table.
func (s *Source) UnmarshalTOML(v any) error {
	if m, ok := v.(map[string]any); ok {
		for _, k := range analyses.SortedKeys(m) {
			if k != "path" && k != "columns" && k != "ids" {
				return fmt.Errorf("input: unknown key %q%s", k, analyses.NameHint(k, []string{"path", "columns", "ids"}))
			}
		}
		if raw, has := m["ids"]; has {
			list, ok := raw.([]any)
			if !ok {
				return fmt.Errorf("input.ids: want a list of column names, got %T", raw)
			}
			for i, e := range list {
				name, ok := e.(string)
				if !ok || name == "" {
					return fmt.Errorf("input.ids[%d]: want a column name, got %v", i, e)
				}
				s.IDs = append(s.IDs, name)
			}
			rest := make(map[string]any, len(m))
			for k, x := range m {
				if k != "ids" {
					rest[k] = x
				}
			}
			v = rest
		}
	}
	var err error
	s.Path, s.Columns, err = analyses.DecodeSource("input", "model", v, func(c string) (string, error) { return c, nil })
	return err
}

// Importance is the `importance` key: λ for every objective
// (importance = 2), per objective (importance = {mred_gender = 2}, the
// others 1), or a list aligned with `objectives`.
type Importance struct {
	Uniform      float64 // used when UniformSet (else 1)
	UniformSet   bool
	PerObjective map[string]float64 // overrides Uniform
	List         []float64
}

// UnmarshalTOML accepts a number, a table or an array of numbers.
func (m *Importance) UnmarshalTOML(v any) error {
	num := func(x any, where string) (float64, error) {
		switch n := x.(type) {
		case float64:
			return n, nil
		case int64:
			return float64(n), nil
		}
		return 0, fmt.Errorf("%s: want a number, got %T", where, x)
	}
	switch x := v.(type) {
	case map[string]any:
		m.PerObjective = map[string]float64{}
		for _, k := range analyses.SortedKeys(x) {
			f, err := num(x[k], "importance."+k)
			if err != nil {
				return err
			}
			m.PerObjective[k] = f
		}
		return nil
	case []any:
		for i, e := range x {
			f, err := num(e, fmt.Sprintf("importance[%d]", i))
			if err != nil {
				return err
			}
			m.List = append(m.List, f)
		}
		return nil
	}
	f, err := num(v, "importance")
	m.Uniform, m.UniformSet = f, true
	return err
}

// MarshalJSON writes the importance as it was given.
func (m Importance) MarshalJSON() ([]byte, error) {
	switch {
	case m.PerObjective != nil:
		return json.Marshal(m.PerObjective)
	case m.List != nil:
		return json.Marshal(m.List)
	case m.UniformSet:
		return json.Marshal(m.Uniform)
	}
	return json.Marshal(1.0)
}

// resolve returns λ per objective.
func (m Importance) resolve(objectives []string) ([]float64, error) {
	out := make([]float64, len(objectives))
	for i := range out {
		out[i] = 1
		if m.UniformSet {
			out[i] = m.Uniform
		}
	}
	if m.List != nil {
		if len(m.List) != len(objectives) {
			return nil, analyses.OptionErrorf("importance", "%d values for %d objectives", len(m.List), len(objectives))
		}
		copy(out, m.List)
	}
	for _, k := range analyses.SortedKeys(m.PerObjective) {
		i := moIndexOf(objectives, k)
		if i < 0 {
			return nil, analyses.OptionErrorf("importance", "%q is not an objective%s", k, analyses.NameHint(k, objectives))
		}
		out[i] = m.PerObjective[k]
	}
	for i, l := range out {
		if !analyses.Finite(l) || l < 0 {
			return nil, analyses.OptionErrorf("importance", "the importance of %q must be a finite number ≥ 0, got %g", objectives[i], l)
		}
	}
	return out, nil
}

// EvalRS2022Options are the constants of the EvalRS 2022 stage-two score
// (Chia et al. 2023, §3.2.3, Eqn. 2): each metric is normalised as
// (x − baseline)/(best − baseline), groups average their metrics, the
// score is the weighted mean of the groups, and a model worse than a
// threshold scores −100.
type EvalRS2022Options struct {
	Baseline  map[string]float64         `toml:"baseline" json:"baseline"`
	Best      map[string]float64         `toml:"best" json:"best"`
	Groups    map[string]EvalRS2022Group `toml:"groups" json:"groups"`
	Threshold map[string]float64         `toml:"threshold" json:"threshold,omitempty"`
	// Penalty is the score of a model below a threshold (−100 in 2022).
	Penalty float64 `toml:"penalty" json:"penalty"`
}

// EvalRS2022Group is one group of metrics with its weight.
type EvalRS2022Group struct {
	Weight  float64  `toml:"weight" json:"weight"`
	Metrics []string `toml:"metrics" json:"metrics"`
}

// UnmarshalTOML decodes the table strictly (a misspelt key is an error).
func (e *EvalRS2022Options) UnmarshalTOML(v any) error {
	t, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("evalrs2022: want a table, got %T", v)
	}
	e.Penalty = -100
	keys := []string{"baseline", "best", "groups", "threshold", "penalty"}
	for _, k := range analyses.SortedKeys(t) {
		var err error
		switch k {
		case "baseline":
			e.Baseline, err = evalrsNumbers(t, k)
		case "best":
			e.Best, err = evalrsNumbers(t, k)
		case "threshold":
			e.Threshold, err = evalrsNumbers(t, k)
		case "penalty":
			e.Penalty, err = evalrsNumber("evalrs2022.penalty", t[k])
		case "groups":
			e.Groups, err = evalrsGroups(t[k])
		default:
			return fmt.Errorf("evalrs2022: unknown key %q%s", k, analyses.NameHint(k, keys))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// evalrsNumber decodes a TOML number (float or integer); key names it in
// the error.
func evalrsNumber(key string, v any) (float64, error) {
	switch n := v.(type) {
	case float64:
		return n, nil
	case int64:
		return float64(n), nil
	}
	return 0, fmt.Errorf("%s: want a number, got %T", key, v)
}

// evalrsNumbers decodes the table t[key] of {metric = number}.
func evalrsNumbers(t map[string]any, key string) (map[string]float64, error) {
	m, ok := t[key].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("evalrs2022.%s: want a table {metric = value}, got %T", key, t[key])
	}
	out := map[string]float64{}
	for _, k := range analyses.SortedKeys(m) {
		n, err := evalrsNumber("evalrs2022."+key+"."+k, m[k])
		if err != nil {
			return nil, err
		}
		out[k] = n
	}
	return out, nil
}

// evalrsGroups decodes the groups table {name = {weight, metrics}}.
func evalrsGroups(v any) (map[string]EvalRS2022Group, error) {
	g, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("evalrs2022.groups: want a table {name = {weight = …, metrics = […]}}, got %T", v)
	}
	groups := map[string]EvalRS2022Group{}
	for _, name := range analyses.SortedKeys(g) {
		grp, err := evalrsGroup(name, g[name])
		if err != nil {
			return nil, err
		}
		groups[name] = grp
	}
	return groups, nil
}

// evalrsGroup decodes one group {weight = …, metrics = […]}.
func evalrsGroup(name string, v any) (EvalRS2022Group, error) {
	var grp EvalRS2022Group
	gt, ok := v.(map[string]any)
	if !ok {
		return grp, fmt.Errorf("evalrs2022.groups.%s: want a table {weight = …, metrics = […]}, got %T", name, v)
	}
	for _, gk := range analyses.SortedKeys(gt) {
		switch gk {
		case "weight":
			w, err := evalrsNumber("evalrs2022.groups."+name+".weight", gt[gk])
			if err != nil {
				return grp, err
			}
			grp.Weight = w
		case "metrics":
			list, ok := gt[gk].([]any)
			if !ok {
				return grp, fmt.Errorf("evalrs2022.groups.%s.metrics: want a list of metric names, got %T", name, gt[gk])
			}
			for _, m := range list {
				s, ok := m.(string)
				if !ok {
					return grp, fmt.Errorf("evalrs2022.groups.%s.metrics: want metric names, got %T", name, m)
				}
				grp.Metrics = append(grp.Metrics, s)
			}
		default:
			return grp, fmt.Errorf("evalrs2022.groups.%s: unknown key %q%s", name, gk, analyses.NameHint(gk, []string{"weight", "metrics"}))
		}
	}
	return grp, nil
}

// Enabled reports whether the EvalRS 2022 score was asked for.
func (e *EvalRS2022Options) Enabled() bool { return e != nil && len(e.Groups) > 0 }

// Validate checks that every grouped metric has a baseline and a best
// that differ, and that weights are positive.
func (e *EvalRS2022Options) Validate() error {
	const key = "evalrs2022"
	if len(e.Groups) == 0 {
		return analyses.OptionErrorf(key+".groups", "required (at least one group)")
	}
	if err := analyses.CheckFloat(key+".penalty", e.Penalty, -math.MaxFloat64, math.MaxFloat64); err != nil {
		return err
	}
	seen := map[string]string{}
	total := 0.0
	for _, name := range analyses.SortedKeys(e.Groups) {
		g := e.Groups[name]
		gk := key + ".groups." + name
		if err := analyses.CheckFloat(gk+".weight", g.Weight, 0, math.MaxFloat64); err != nil {
			return err
		}
		total += g.Weight
		if len(g.Metrics) == 0 {
			return analyses.OptionErrorf(gk+".metrics", "required")
		}
		if err := analyses.CheckDistinct(gk+".metrics", g.Metrics); err != nil {
			return err
		}
		for _, m := range g.Metrics {
			if other, dup := seen[m]; dup {
				return analyses.OptionErrorf(key+".groups", "metric %q is in groups %q and %q", m, other, name)
			}
			seen[m] = name
			b, ok1 := e.Baseline[m]
			x, ok2 := e.Best[m]
			switch {
			case !ok1:
				return analyses.OptionErrorf(key+".baseline", "no value for %q (group %q)", m, name)
			case !ok2:
				return analyses.OptionErrorf(key+".best", "no value for %q (group %q)", m, name)
			case b == x:
				return analyses.OptionErrorf(key, "best and baseline of %q are both %g: the normalisation (x − baseline)/(best − baseline) is undefined", m, b)
			}
		}
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return analyses.OptionErrorf(key+".groups", "the weights sum to %g; need a positive, finite sum", total)
	}
	for _, t := range []struct {
		key string
		m   map[string]float64
	}{{"baseline", e.Baseline}, {"best", e.Best}, {"threshold", e.Threshold}} {
		for _, m := range analyses.SortedKeys(t.m) {
			if err := analyses.CheckFloat(key+"."+t.key+"."+m, t.m[m], -math.MaxFloat64, math.MaxFloat64); err != nil {
				return err
			}
			if _, ok := seen[m]; !ok && t.key != "threshold" {
				return analyses.OptionErrorf(key+"."+t.key+"."+m, "%q has a %s but is in no group", m, t.key)
			}
		}
	}
	return nil
}

// metricWeight returns a metric's weight in the 2022 score: its group's
// weight shared among the group's metrics, over the sum of weights; 0
// when the metric is in no group.
func (e *EvalRS2022Options) metricWeight(metric string) float64 {
	total := 0.0
	for _, g := range e.Groups {
		total += g.Weight
	}
	for _, g := range e.Groups {
		if moIndexOf(g.Metrics, metric) >= 0 {
			return g.Weight / float64(len(g.Metrics)) / total
		}
	}
	return 0
}

// Metrics lists every metric the 2022 score reads, sorted.
func (e *EvalRS2022Options) Metrics() []string {
	set := map[string]bool{}
	for _, g := range e.Groups {
		for _, m := range g.Metrics {
			set[m] = true
		}
	}
	for m := range e.Threshold {
		set[m] = true
	}
	out := analyses.SortedKeys(set)
	sort.Strings(out)
	return out
}

func moIndexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
