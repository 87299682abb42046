package significance

// paired_tests carries the argument of Košir et al. (2013, §2.2–2.3): when
// two methods are measured on the same folds or users, the paired test is
// the powerful one; pooling each method's values and comparing them as
// independent samples (ProcIndep) lets the unit-to-unit variation swamp a
// consistent difference. Every pair gets both families side by side —
// paired t, Wilcoxon signed-rank and sign test against Welch's t and
// Mann–Whitney U — with Shapiro–Wilk on the differences choosing between
// the paired t and Wilcoxon (Košir et al. 2013, §2.3, step 3), effect sizes
// and the post-hoc power of both t-tests, so the page shows how much power
// pairing buys.

import (
	"fmt"
	"math"

	"github.com/evalbook/evalbook/analyses"

	"github.com/evalbook/evalbook/analyses/stats"
)

// PairedTestsOptions are the keys of a `paired_tests` analysis.
type PairedTestsOptions struct {
	Metric     string   `toml:"metric"`
	Methods    []string `toml:"methods"` // default all; pairs a before b, differences a − b
	Dataset    string   `toml:"dataset"` // compare over this dataset's units; none: over datasets
	Alpha      float64  `toml:"alpha"`   // 0.05
	ZeroMethod string   `toml:"zero_method"`
	// Missing is "error" (default: a unit without a value of some method
	// names itself) or "drop" (each pair uses the units both methods
	// have, with a warning).
	Missing string `toml:"missing"`
}

// Defaults fills unset options.
func (o *PairedTestsOptions) Defaults() {
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.ZeroMethod == "" {
		o.ZeroMethod = stats.ZeroWilcox
	}
	if o.Missing == "" {
		o.Missing = "error"
	}
}

// Validate checks the options.
func (o *PairedTestsOptions) Validate() error {
	if o.Metric == "" {
		return analyses.OptionErrorf("metric", "required")
	}
	if err := checkAlphaZeroMethod(o.Alpha, o.ZeroMethod); err != nil {
		return err
	}
	if err := analyses.CheckDistinct("methods", o.Methods); err != nil {
		return err
	}
	if err := analyses.OneOf("missing", o.Missing, "error", "drop"); err != nil {
		return err
	}
	if len(o.Methods) == 1 {
		return analyses.OptionErrorf("methods", "need at least 2 methods to compare, got 1")
	}
	return nil
}

// PairedTestsInput holds one value per (method, unit); units are fold or
// user ids, or dataset names when comparing over datasets. NaN marks a
// missing value.
type PairedTestsInput struct {
	Metric  analyses.Metric
	Over    string // "units of <dataset>" or "datasets", for messages
	Units   []string
	Methods []string
	Values  [][]float64 // Values[m][u]
	// Naming names methods, the metric and the dataset in the warnings.
	Naming analyses.Naming
}

// PairedComparison is one pair of methods.
type PairedComparison struct {
	A        string   `json:"a"`
	B        string   `json:"b"`
	N        int      `json:"n"`
	MeanDiff *float64 `json:"mean_diff"`
	MeanA    float64  `json:"mean_a"`
	MeanB    float64  `json:"mean_b"`

	PairedT      *float64 `json:"t_paired"`
	PPairedT     *float64 `json:"p_paired_t"`
	WilcoxonT    *float64 `json:"wilcoxon_statistic"`
	PWilcoxon    *float64 `json:"p_wilcoxon"`
	WilcoxonMode string   `json:"wilcoxon_method,omitempty"`
	SignK        *float64 `json:"sign_positive"`
	PSign        *float64 `json:"p_sign"`
	WelchT       *float64 `json:"t_welch"`
	PWelch       *float64 `json:"p_welch"`
	U            *float64 `json:"mannwhitney_u"`
	PMannWhitney *float64 `json:"p_mannwhitney"`
	ShapiroW     *float64 `json:"shapiro_w"`
	PShapiro     *float64 `json:"p_shapiro"`
	Recommended  string   `json:"recommended"`
	CohenDz      *float64 `json:"cohen_dz"`
	CohenD       *float64 `json:"cohen_d"`
	RankBiserial *float64 `json:"rank_biserial"`
	PowerPaired  *float64 `json:"power_paired"`
	PowerIndep   *float64 `json:"power_independent"`
	PHolm        *float64 `json:"p_holm"`
	Significant  bool     `json:"significant"`

	// The paired values, for the figure (not repeated in the JSON: they
	// are the input).
	Units  []string  `json:"-"`
	ValueA []float64 `json:"-"`
	ValueB []float64 `json:"-"`
}

// PairedTestsResult is what paired_tests computes.
type PairedTestsResult struct {
	Metric     string             `json:"metric"`
	Over       string             `json:"over"`
	Alpha      float64            `json:"alpha"`
	ZeroMethod string             `json:"zero_method"`
	Pairs      []PairedComparison `json:"pairs"`
	// Naming is how the key finding names things (set by the caller; not
	// in JSON).
	Naming analyses.Naming `json:"-"`
	analyses.Warnings
}

// PairedTests compares every pair of methods over the units they share.
func PairedTests(in PairedTestsInput, opts PairedTestsOptions) (*PairedTestsResult, error) {
	opts.Defaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if len(in.Methods) < 2 {
		return nil, fmt.Errorf("metric %q: need at least 2 methods to compare, have %d", in.Metric.Name, len(in.Methods))
	}
	if opts.Missing == "error" {
		if err := pairedMissing(in); err != nil {
			return nil, err
		}
	}
	res := &PairedTestsResult{Metric: in.Metric.Name, Over: in.Over, Alpha: opts.Alpha, ZeroMethod: opts.ZeroMethod}
	var ps []float64
	for i := 0; i < len(in.Methods); i++ {
		for j := i + 1; j < len(in.Methods); j++ {
			pc := pairedPair(in, i, j, opts, &res.Warnings)
			res.Pairs = append(res.Pairs, pc)
			p := math.NaN()
			switch pc.Recommended {
			case "paired_t":
				p = deref(pc.PPairedT)
			case "wilcoxon":
				p = deref(pc.PWilcoxon)
			}
			ps = append(ps, p)
		}
	}
	holm := stats.Holm(ps)
	for i := range res.Pairs {
		res.Pairs[i].PHolm = analyses.Opt(holm[i])
		res.Pairs[i].Significant = !math.IsNaN(holm[i]) && holm[i] <= opts.Alpha
	}
	return res, nil
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func pairedPair(in PairedTestsInput, i, j int, opts PairedTestsOptions, w *analyses.Warnings) PairedComparison {
	A, B := in.Methods[i], in.Methods[j]
	pc := PairedComparison{A: A, B: B}
	pairedShared(in, i, j, &pc, w)
	n := len(pc.Units)
	pc.N = n
	what := fmt.Sprintf("%s vs %s over %d %s", A, B, n, in.Over)
	if n == 0 {
		w.Warnf("%s: no shared values, nothing to test", what)
		pc.Recommended = "none"
		return pc
	}
	d := make([]float64, n)
	allZero := true
	for k := range d {
		d[k] = pc.ValueA[k] - pc.ValueB[k]
		if d[k] != 0 {
			allZero = false
		}
	}
	pc.MeanA, _ = stats.MeanVar(pc.ValueA)
	pc.MeanB, _ = stats.MeanVar(pc.ValueB)
	md, _ := stats.MeanVar(d)
	pc.MeanDiff = analyses.Opt(md)
	if allZero {
		w.Warnf("%s: every difference is zero (the two methods give identical %s), so the paired tests, Shapiro–Wilk and the effect sizes are undefined", what, in.Metric.Name)
	}
	if n < 3 {
		w.Warnf("%s: fewer than 3 pairs, too few to test", what)
	}
	pairedTests(opts, &pc, d, allZero, what, w)
	if n >= 3 && !allZero {
		sw, sp, err := stats.ShapiroWilk(d)
		if err != nil {
			w.Warnf("%s: %v", what, err)
		} else {
			pc.ShapiroW, pc.PShapiro = analyses.Opt(sw), analyses.Opt(sp)
			if n > 5000 {
				w.Warnf("%s: Shapiro–Wilk's p-value is an extrapolation beyond 5000 values (Royston 1995); with this many pairs it rejects normality for trivial departures, and the paired t-test is robust anyway", what)
			}
		}
	}
	switch {
	case allZero || n < 3:
		pc.Recommended = "none"
	case pc.PShapiro != nil && *pc.PShapiro >= opts.Alpha && pc.PPairedT != nil:
		pc.Recommended = "paired_t"
	default:
		pc.Recommended = "wilcoxon"
	}
	dz := stats.CohenDz(d)
	pc.CohenDz = analyses.Opt(dz)
	cd := stats.CohenD(pc.ValueA, pc.ValueB)
	pc.CohenD = analyses.Opt(cd)
	if n >= 2 {
		pc.PowerPaired = analyses.Opt(stats.TTestPower(dz, n, opts.Alpha))
		pc.PowerIndep = analyses.Opt(stats.TTestIndPower(cd, n, n, opts.Alpha))
	}
	return pc
}

// pairedMissing is the error for a unit (a dataset, or a unit of one)
// without a value of some method: it names the first, and says how many
// units lack one and what missing = "drop" does instead. A pair tested
// on fewer units than the others, silently, is a result that might be
// wrong.
func pairedMissing(in PairedTestsInput) error {
	firstU, firstM, incomplete := -1, -1, 0
	for u := range in.Units {
		lacks := false
		for m := range in.Methods {
			if math.IsNaN(in.Values[m][u]) {
				if firstU < 0 {
					firstU, firstM = u, m
				}
				lacks = true
			}
		}
		if lacks {
			incomplete++
		}
	}
	if firstU < 0 {
		return nil
	}
	return fmt.Errorf("metric %q: no value of method %q for %q (one of the %s); %d of the %d lack a value for some method: leave the method out with methods = [...], or declare missing = \"drop\" to test each pair on the %s both methods have",
		in.Metric.Name, in.Methods[firstM], in.Units[firstU], in.Over, incomplete, len(in.Units), in.Over)
}

// pairedShared keeps the units where both methods i and j have a value,
// warning of the others.
func pairedShared(in PairedTestsInput, i, j int, pc *PairedComparison, w *analyses.Warnings) {
	var missA, missB, missBoth int
	for u := range in.Units {
		va, vb := in.Values[i][u], in.Values[j][u]
		switch {
		case math.IsNaN(va) && math.IsNaN(vb):
			missBoth++
			continue
		case math.IsNaN(va):
			missA++
			continue
		case math.IsNaN(vb):
			missB++
			continue
		}
		pc.Units = append(pc.Units, in.Units[u])
		pc.ValueA = append(pc.ValueA, va)
		pc.ValueB = append(pc.ValueB, vb)
	}
	if missA+missB+missBoth > 0 {
		n := in.Naming
		a, b := n.Method(pc.A), n.Method(pc.B)
		miss, have, are := missA+missB+missBoth, "have", "are"
		if miss == 1 {
			have, are = "has", "is"
		}
		w.Warnf("%s vs %s: %d of the %s %s no %s value (%d for %s only, %d for %s only, %d for both) and %s left out of this pair",
			a, b, miss, overLabel(n, in.Over), have, n.Metric(in.Metric.Name), missA, a, missB, b, missBoth, are)
	}
}

// pairedTests runs the paired t, Wilcoxon, sign, Welch and Mann–Whitney
// tests on the pair's values and differences d.
func pairedTests(opts PairedTestsOptions, pc *PairedComparison, d []float64, allZero bool, what string, w *analyses.Warnings) {
	n := len(d)
	pt := stats.PairedT(pc.ValueA, pc.ValueB)
	pc.PairedT, pc.PPairedT = analyses.Opt(pt.Statistic), analyses.Opt(pt.P)
	if pt.P != pt.P && !allZero && n >= 2 {
		w.Warnf("%s: paired t undefined: the differences are all equal (%g)", what, d[0])
	}
	if wr, err := stats.Wilcoxon(d, opts.ZeroMethod, stats.WilcoxonAuto, false); err == nil {
		pc.WilcoxonT, pc.PWilcoxon, pc.WilcoxonMode = analyses.Opt(wr.Statistic), analyses.Opt(wr.P), wr.Method
		pc.RankBiserial = analyses.Opt(stats.RankBiserial(wr))
		if wr.Method == stats.WilcoxonExact && n <= 5 {
			w.Warnf("%s: with %d pairs the smallest two-sided Wilcoxon p-value is %.4g", what, n, 2/math.Pow(2, float64(n)))
		}
	} else if !allZero {
		w.Warnf("%s: Wilcoxon undefined: %v", what, err)
	}
	st, _ := stats.SignTest(d)
	pc.SignK, pc.PSign = analyses.Opt(st.Statistic), analyses.Opt(st.P)
	wt := stats.WelchT(pc.ValueA, pc.ValueB)
	pc.WelchT, pc.PWelch = analyses.Opt(wt.Statistic), analyses.Opt(wt.P)
	if math.IsNaN(wt.P) && n >= 2 {
		w.Warnf("%s: Welch's t undefined: neither method's values vary", what)
	}
	mw, _ := stats.MannWhitneyU(pc.ValueA, pc.ValueB)
	pc.U, pc.PMannWhitney = analyses.Opt(mw.Statistic), analyses.Opt(mw.P)
}

// Tables implements Result: one row per pair with the columns the README
// lists, then the effect sizes and statistics.
func (r *PairedTestsResult) Tables() []analyses.Table {
	v := func(p *float64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	t := analyses.Table{Title: "Paired and independent tests (" + r.Naming.Metric(r.Metric) + ", over " + r.OverLabel() + ")",
		Columns: []string{"a", "b", "n", "mean_diff", "p_paired_t", "p_wilcoxon", "p_sign", "p_welch", "p_mannwhitney",
			"p_shapiro", "recommended", "power_paired", "power_independent", "p_holm",
			"significant", "cohen_dz", "rank_biserial", "cohen_d", "t_paired", "wilcoxon_statistic", "t_welch", "mannwhitney_u", "shapiro_w"}}
	for _, p := range r.Pairs {
		t.Rows = append(t.Rows, []any{p.A, p.B, p.N, v(p.MeanDiff), v(p.PPairedT), v(p.PWilcoxon), v(p.PSign), v(p.PWelch), v(p.PMannWhitney),
			v(p.PShapiro), p.Recommended, v(p.PowerPaired), v(p.PowerIndep), v(p.PHolm),
			p.Significant, v(p.CohenDz), v(p.RankBiserial), v(p.CohenD), v(p.PairedT), v(p.WilcoxonT), v(p.WelchT), v(p.U), v(p.ShapiroW)})
	}
	return []analyses.Table{t}
}

// checkAlphaZeroMethod checks the keys the Wilcoxon-based analyses share.
func checkAlphaZeroMethod(alpha float64, zero string) error {
	if !(alpha > 0 && alpha < 1) {
		return analyses.OptionErrorf("alpha", "must be in (0, 1), got %g", alpha)
	}
	return analyses.OneOf("zero_method", zero, stats.ZeroMethods...)
}
