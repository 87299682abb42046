package meta

import (
	"fmt"
	"math"
	"strconv"

	"github.com/evalbook/evalbook/analyses"
)

// Why this file exists: the tau2 key takes an estimator's name ("REML")
// or a number that fixes τ² (metafor's rma(tau2 = 0.04)).

// Tau2Option is the tau2 key: the name of a τ² estimator, or the decimal
// text of a number that fixes τ² (written as a TOML number, never as a
// string).
type Tau2Option string

// UnmarshalTOML accepts an estimator's name or a number; a number written
// as a string is refused, so that the two never mix.
func (t *Tau2Option) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		if _, err := strconv.ParseFloat(x, 64); err == nil {
			return fmt.Errorf("tau2 = %q: a fixed τ² is a number, written without quotes (tau2 = %s)", x, x)
		}
		*t = Tau2Option(x)
	case float64:
		*t = Tau2Option(strconv.FormatFloat(x, 'g', -1, 64))
	case int64:
		*t = Tau2Option(strconv.FormatInt(x, 10))
	default:
		return fmt.Errorf("tau2: want an estimator's name (\"REML\") or a number, got %T", v)
	}
	return nil
}

// MarshalTOML writes a fixed τ² as a number and a name as a string.
func (t Tau2Option) MarshalTOML() ([]byte, error) {
	if _, ok := t.Fixed(); ok {
		return []byte(t), nil
	}
	return []byte(strconv.Quote(string(t))), nil
}

// Fixed returns the fixed τ² and true when the option is a number.
func (t Tau2Option) Fixed() (float64, bool) {
	x, err := strconv.ParseFloat(string(t), 64)
	return x, err == nil
}

// fillEmpty gives test and subgroup_tau2 their defaults when options were
// built without Defaults.
func (o *Options) fillEmpty() {
	if o.Test == "" {
		o.Test = "z"
	}
	if o.SubgroupTau2 == "" {
		o.SubgroupTau2 = "separate"
	}
}

// checkTau2 canonicalises an estimator's name ("reml" is "REML") and
// checks a fixed τ²: a finite number ≥ 0 with a random-effects model and
// no sensitivity analysis (nor test = "t" with one).
func (o *Options) checkTau2() error {
	if o.Test == "t" && o.Sensitivity {
		return analyses.OptionErrorf("test", "\"t\" with sensitivity = true: the leave-one-out, influence and publication-bias analyses are not checked against metafor under the t test; use test = \"z\" or \"knha\", or leave sensitivity out")
	}
	x, fixed := o.Tau2.Fixed()
	if !fixed {
		canon := canonical(string(o.Tau2), metaTau2)
		if canon == "" {
			return analyses.OneOf("tau2", string(o.Tau2), metaTau2...)
		}
		o.Tau2 = Tau2Option(canon)
		return nil
	}
	switch {
	case !(x >= 0) || math.IsInf(x, 1):
		return analyses.OptionErrorf("tau2", "%v: a fixed τ² must be a finite number ≥ 0", x)
	case o.Model == "fixed":
		return analyses.OptionErrorf("tau2", "%v: a fixed-effect model has τ² = 0; leave tau2 out, or set model = \"random\"", x)
	case o.Sensitivity:
		return analyses.OptionErrorf("tau2", "%v with sensitivity = true: the leave-one-out, influence and publication-bias analyses are not checked against metafor with a fixed τ²; estimate τ² (tau2 = \"REML\", …) or leave sensitivity out", x)
	}
	return nil
}
