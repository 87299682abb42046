package manifest

import (
	"reflect"
	"slices"
	"strings"
)

// An option that applies only with another option's value: given
// without it, it changed nothing, while the page's parameters showed it
// as used. Such an option is an error at its line. Each rule reads the
// option it depends on after the kind's defaults are filled in, so it
// is checked only when the manifest gives the option itself.
type appliesRule struct {
	key     string // the option given ("compare.permutations")
	on      string // the option it depends on ("compare.test")
	applies func(reflect.Value) bool
	why     string
	// unless, when set, is a value of key that is no error (the
	// default, as the README's reference listings write it)
	unless any
}

var appliesRules = map[string][]appliesRule{
	"stability": {
		{"betas", "perturbations", func(v reflect.Value) bool { return slices.Contains(v.Interface().([]string), "beta") }, `applies to the "beta" perturbation, which perturbations leaves out`, nil},
	},
	"clusters": {
		{"contamination", "outliers", func(v reflect.Value) bool { return v.String() != "none" }, `sets the share of outliers, and outliers = "none" looks for none`, nil},
		{"k_range", "k", func(v reflect.Value) bool { return v.Int() == 0 }, "is searched for the best k only when k is not fixed; keep one", nil},
		{"methods", "metric", func(v reflect.Value) bool { return v.String() != "" }, "selects the methods of the per-cluster leaderboard, which needs metric", nil},
	},
	"characteristics": {
		{"neighbors", "metric", func(v reflect.Value) bool { return v.String() != "" }, "applies to the relations with metric's results, which needs metric", nil},
	},
	"dataset_selection": {
		{"beta_max", "rule", func(v reflect.Value) bool { return strings.HasPrefix(v.String(), "dm_") }, "applies to the dm_* rules only", 3.0},
	},
	"offline_metrics": {
		{"compare.permutations", "compare.test", func(v reflect.Value) bool { return v.String() != "student" }, `counts the permutations of Fisher's test, and test = "student" runs none`, nil},
	},
	"meta_analysis": {
		{"better", "summary", func(v reflect.Value) bool { return v.FieldByName("Path").String() != "" }, "gives the direction of a summary's metric; with per-unit values the metric's [[metrics]] entry gives it", nil},
		{"subgroup_tau2", "subgroup", func(v reflect.Value) bool { return v.String() != "" }, "says how the subgroups of subgroup are fitted, and there is no subgroup", nil},
	},
	"multi_objective": {
		{"dataset", "input", func(v reflect.Value) bool { return v.FieldByName("Path").String() == "" }, "picks a dataset of the study's results, and input gives the rows instead", nil},
	},
}

// optionValue is the field of opts (a pointer to an options struct)
// whose toml tag path is key ("compare.test"); ok is false when there is
// none (or a nil struct on the way).
func optionValue(opts any, key string) (reflect.Value, bool) {
	v := reflect.ValueOf(opts)
	for _, part := range strings.Split(key, ".") {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return v, false
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return v, false
		}
		found := false
		for i := 0; i < v.NumField(); i++ {
			if tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("toml"), ","); tag == part {
				v, found = v.Field(i), true
				break
			}
		}
		if !found {
			return v, false
		}
	}
	return v, true
}

// checkApplies reports each option the manifest gives that does not
// apply with the analysis's other options (appliesRules).
func (p *manifestParser) checkApplies(a AnalysisSpec) {
	for _, r := range appliesRules[a.Type] {
		if _, given := p.s.KeyLines[a.Key+"."+r.key]; !given {
			continue
		}
		if r.unless != nil {
			if v, ok := optionValue(a.Options, r.key); ok && v.CanInterface() && v.Interface() == r.unless {
				continue
			}
		}
		if v, ok := optionValue(a.Options, r.on); ok && !r.applies(v) {
			p.fail(a.Key+"."+r.key, "analyses (%s): %s: %s", a.ID, r.key, r.why)
		}
	}
}
