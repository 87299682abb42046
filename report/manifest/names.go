package manifest

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/evalbook/evalbook/analyses"
)

// CheckNames reports the first name not among known, with a hint, as a
// nameError: reported at the line of the option that names it.
func CheckNames(what string, names, known []string) error {
	set := make(map[string]bool, len(known))
	for _, k := range known {
		set[k] = true
	}
	for _, n := range names {
		if !set[n] {
			return NameError{What: what, error: fmt.Errorf("no %s %q in the results%s", what, n, analyses.NameHint(n, known))}
		}
	}
	return nil
}

// NameError is a name an analysis's option gives (metric, methods,
// datasets) that the data lacks: runErrors places it at that option's
// line (what + "s", else what), not at the [[analyses]] header's.
type NameError struct {
	What string
	error
}

// Unwrap returns the error about the name.
func (e NameError) Unwrap() error { return e.error }

// OptionLine is the line of an analysis's option about what ("method":
// methods, else method), or 0 when the analysis gives neither.
func (s *Study) OptionLine(analysisKey, what string) int {
	for _, k := range []string{what + "s", what} {
		if l, ok := s.KeyLines[analysisKey+"."+k]; ok {
			return l
		}
	}
	return 0
}

// CheckDeclared catches the [[methods]] and [[metrics]] entries whose
// names are slips for names of the results (checkDeclaredMethods,
// checkDeclaredMetrics): every analysis of the results calls it.
func CheckDeclared(s *Study, res *analyses.Results) error {
	if err := checkDeclaredMethods(s, res.Methods); err != nil {
		return err
	}
	if err := checkDeclaredDatasets(s, res.Datasets); err != nil {
		return err
	}
	return checkDeclaredMetrics(s, res.Metrics)
}

// checkDeclaredMethods catches a [[methods]] entry whose name is a slip
// for a method of the results ("Randm" for "Random"): its label and
// baseline flag would apply to nothing, and the baseline would become a
// finding's headline. A name with no close method of the results is left
// alone (it may name a method of the units only).
func checkDeclaredMethods(s *Study, have []string) error {
	if s == nil {
		return nil
	}
	set := make(map[string]bool, len(have))
	for _, m := range have {
		set[m] = true
	}
	for i, m := range s.Methods {
		if set[m.Name] {
			continue
		}
		at := fmt.Sprintf("methods[%d] (%s:%d)", i, filepath.Base(s.File), s.Line(fmt.Sprintf("methods.%d.name", i)))
		if hint := analyses.DidYouMean(m.Name, have); hint != "" {
			return fmt.Errorf("%s: no method %q in the results%s", at, m.Name, hint)
		}
		if m.Baseline {
			// a baseline only key findings of the results read: named
			// nowhere in them, it applies to nothing, and the real
			// baseline may headline the findings
			return fmt.Errorf("%s: no method %q in the results%s; its baseline = true would apply to nothing, and key findings could headline the real baseline", at, m.Name, analyses.NameHint(m.Name, have))
		}
	}
	return nil
}

// checkDeclaredDatasets is checkDeclaredMethods for [[datasets]]: an
// entry whose name is a slip for a dataset of the results ("ml1m" for
// "ml-1m") would give its label and attributes (domain, subgroup,
// rating_threshold) to nothing. An entry with an interaction log is a
// dataset of its own, and a name with no close dataset of the results is
// left alone (it may name a dataset of the units or the characteristics).
func checkDeclaredDatasets(s *Study, have []string) error {
	if s == nil {
		return nil
	}
	set := make(map[string]bool, len(have))
	for _, d := range have {
		set[d] = true
	}
	for i, d := range s.Datasets {
		if set[d.Name] || d.Interactions != "" || d.EngineLog != nil {
			continue
		}
		if hint := analyses.DidYouMean(d.Name, have); hint != "" {
			return fmt.Errorf("datasets[%d] (%s:%d): no dataset %q in the results%s; its label and attributes would apply to nothing", i, filepath.Base(s.File), s.Line(fmt.Sprintf("datasets.%d.name", i)), d.Name, hint)
		}
	}
	return nil
}

// checkDeclaredMetrics is checkDeclaredMethods for [[metrics]]: an entry
// whose name is a slip for a metric of the results ("ndcg@1O", "RMSE@10"
// for rmse) would leave that metric higher-is-better, and every ranking
// of a lower-is-better metric upside down. A name with no close metric
// of the results is left alone (it may name a metric of the units only).
//
// Two metrics of the results whose names differ only in case (ndcg@10
// and NDCG@10, from two exports) are an error too.
func checkDeclaredMetrics(s *Study, have []string) error {
	if s == nil {
		return nil
	}
	lower := make([]string, len(have))
	set := make(map[string]bool, len(have))
	first := make(map[string]string, len(have))
	for i, m := range have {
		lower[i] = strings.ToLower(m)
		set[lower[i]] = true
		if prev, ok := first[lower[i]]; ok {
			return fmt.Errorf("the results name two metrics that differ only in case, %q and %q: a [[metrics]] entry (compared case-insensitively) would apply to both, and every analysis would see two metrics; spell them alike in the files", prev, m)
		}
		first[lower[i]] = m
	}
	base := func(m string) string { b, _, _ := strings.Cut(m, "@"); return b }
	for i, m := range s.Metrics {
		name := strings.ToLower(m.Name)
		if set[name] {
			continue
		}
		hint := analyses.DidYouMean(name, lower)
		if hint == "" {
			for j, h := range lower {
				if base(h) == base(name) && strings.Contains(h, "@") != strings.Contains(name, "@") {
					hint = fmt.Sprintf(" (did you mean %q?)", have[j])
					break
				}
			}
		}
		if hint != "" {
			what := fmt.Sprintf("its direction (better = %q)", m.Better)
			if m.Better == "" {
				what = "its entry"
			}
			return fmt.Errorf("metrics[%d] (%s:%d): no metric %q in the results%s; %s would apply to nothing", i, filepath.Base(s.File), s.Line(fmt.Sprintf("metrics.%d.name", i)), m.Name, hint, what)
		}
	}
	return nil
}

// errorWords are the words of a metric's name that mark an error or a
// loss, where lower is better; errorLike matches them as whole words
// ("RMSE@10", "log_loss", "error rate", not "terror").
var errorWords = map[string]bool{
	"rmse": true, "mse": true, "mae": true, "mape": true, "smape": true, "rmsle": true, "msle": true, "nrmse": true,
	"error": true, "err": true, "loss": true, "logloss": true, "perplexity": true, "brier": true, "regret": true,
}

// LooksLowerIsBetter reports whether a metric's name reads as an error
// or a loss, where lower is better: a hint for a study that leaves the
// direction to the default (DirectionAssumed), never a direction itself.
func LooksLowerIsBetter(name string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if errorWords[w] {
			return true
		}
	}
	return false
}
