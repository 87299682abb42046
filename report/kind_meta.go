package report

// The meta_analysis kind (SPEC §5.9): it streams the study's per-unit
// values into analyses.MetaBuilder (or reads a `summary` file of
// per-dataset rows), runs analyses.MetaAnalysis and draws the forest plot.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures"
)

func metaKind() Kind {
	k := NewKind("meta_analysis", "effect sizes of a treatment vs a control on every dataset, combined by a fixed- or random-effects model and drawn as a forest plot (seed 000)", runMeta)
	k.Units = func(ctx *Context, opts any) UnitsSink {
		if o := opts.(*analyses.MetaOptions); o.Summary.Path == "" {
			return newMetaSink(ctx, o)
		}
		return nil
	}
	return k
}

func runMeta(ctx *Context, o *analyses.MetaOptions) (*Output, error) {
	var metric analyses.Metric
	if o.Metric != "" {
		metric = ctx.Metric(o.Metric)
	}
	var studies []analyses.MetaStudy
	var err error
	if o.Summary.Path != "" {
		studies, err = metaReadSummary(ctx, o.Summary)
	} else {
		studies, err = metaStreamUnits(ctx, o)
	}
	if err != nil {
		return nil, err
	}
	if len(o.Datasets) == 0 {
		studies = metaManifestOrder(ctx.Study, studies)
	}
	in := analyses.MetaInput{Metric: metric, Studies: studies}
	if o.Subgroup != "" {
		in.Groups = map[string]string{}
		found := false
		for _, s := range studies {
			if v, ok := ctx.Dataset(s.Dataset).Attrs[o.Subgroup]; ok {
				in.Groups[s.Dataset] = v
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("subgroup: no dataset has the attribute %q (set it in [[datasets]])", o.Subgroup)
		}
	}
	r, err := analyses.MetaAnalysis(in, *o)
	if err != nil {
		return nil, err
	}
	figs, err := figures.Meta(ctx.ID, ctx.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: metaMethod(o, r)}, nil
}

// metaSink pairs the treatment's and the control's values of the metric
// as the shared units pass hands them over (see analyses.MetaBuilder for
// what it keeps in memory).
type metaSink struct {
	o        *analyses.MetaOptions
	b        *analyses.MetaBuilder
	metrics  map[string]bool // other metrics met, for the message when the metric has no values
	methods  map[string]bool // methods with values of the metric
	values   int
	label    string
	progress Progress
	// the last method and metric met: rows repeat them
	lastMethod, lastMetric string
}

func newMetaSink(ctx *Context, o *analyses.MetaOptions) *metaSink {
	return &metaSink{o: o, b: analyses.NewMetaBuilder(o.Treatment, o.Control, o.Missing),
		metrics: map[string]bool{}, methods: map[string]bool{},
		label: "meta_analysis " + ctx.ID + ": reading units", progress: ctx.Progress()}
}

func (m *metaSink) Metric() string           { return m.o.Metric }
func (m *metaSink) Wants(method string) bool { return method == m.o.Treatment || method == m.o.Control }

func (m *metaSink) Seen(dataset, method string) {
	m.method(method)
	m.b.Seen(dataset)
}

// method records a method with values of the metric.
func (m *metaSink) method(name string) {
	if name == m.lastMethod {
		return
	}
	if !m.methods[name] && (len(m.methods) < 1000 || m.Wants(name)) {
		m.methods[strings.Clone(name)] = true
	}
	m.lastMethod = name
}

func (m *metaSink) Add(u *UnitRow) error {
	if u.Metric != m.o.Metric {
		if u.Metric != m.lastMetric && len(m.metrics) < 1000 && !m.metrics[u.Metric] {
			m.metrics[strings.Clone(u.Metric)] = true
		}
		m.lastMetric = u.Metric
		return nil
	}
	m.values++
	if m.values&(1<<20-1) == 0 {
		m.progress.Step(m.label, m.values, 0)
	}
	m.method(u.Method)
	if u.Method != m.o.Treatment && u.Method != m.o.Control {
		m.b.Seen(u.Dataset)
		return nil
	}
	if err := m.b.Add(u.Dataset, u.Method, u.Unit, u.Row, u.Value); err != nil {
		return fmt.Errorf("%s:%d: %w", u.File, u.Line, err)
	}
	return nil
}

// metaStreamUnits pairs the treatment's and the control's values of the
// metric from the study's per-unit values (the build's shared units pass).
func metaStreamUnits(ctx *Context, o *analyses.MetaOptions) ([]analyses.MetaStudy, error) {
	sink, err := ctx.ReadUnits(newMetaSink(ctx, o))
	if err != nil {
		return nil, err
	}
	m := sink.(*metaSink)
	if m.values == 0 {
		return nil, fmt.Errorf("metric: no per-unit values of %q%s", o.Metric, analyses.DidYouMean(o.Metric, analyses.SortedKeys(m.metrics)))
	}
	names := analyses.SortedKeys(m.methods)
	for _, name := range []string{o.Treatment, o.Control} {
		if !m.methods[name] {
			return nil, fmt.Errorf("method %q has no per-unit values of %s on any dataset%s", name, o.Metric, analyses.DidYouMean(name, names))
		}
	}
	m.progress.Step(m.label, m.values, m.values)
	return m.b.Finish(), nil
}

// metaManifestOrder puts the studies in the manifest's dataset order.
func metaManifestOrder(s *Study, studies []analyses.MetaStudy) []analyses.MetaStudy {
	names := make([]string, len(studies))
	by := make(map[string]analyses.MetaStudy, len(studies))
	for i, st := range studies {
		names[i] = st.Dataset
		by[st.Dataset] = st
	}
	out := make([]analyses.MetaStudy, 0, len(studies))
	for _, n := range s.orderDatasets(names) {
		out = append(out, by[n])
	}
	return out
}

// metaReadSummary reads a `summary` file: one row per dataset, in one
// of the forms told apart by the header (see readMetaSummary).
func metaReadSummary(ctx *Context, src analyses.MetaSource) ([]analyses.MetaStudy, error) {
	path := ctx.Path(src.Path)
	t, err := ctx.inputs.openMapped(path, src.Columns)
	if err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	defer ctx.inputs.closeCounted(path, t)
	return readMetaSummary(t)
}

// metaSummaryForms names the header of each summary form, for errors.
const metaSummaryForms = "dataset,n,mean_diff,sd_diff[,r] (paired), dataset,m1i,sd1i,n1i,m2i,sd2i,n2i (two groups, as metafor's escalc) or dataset,yi,vi (or dataset,yi,sei: effects as given)"

// metaSummaryForm tells the form of a summary table by its header.
func metaSummaryForm(t *TableReader) (string, error) {
	var forms []string
	if t.Col("yi") >= 0 {
		forms = append(forms, analyses.MetaGeneric)
	}
	for _, c := range []string{"m1i", "m2i", "sd1i", "sd2i", "n1i", "n2i"} {
		if t.Col(c) >= 0 {
			forms = append(forms, analyses.MetaTwoGroup)
			break
		}
	}
	if t.Col("mean_diff") >= 0 || t.Col("sd_diff") >= 0 {
		forms = append(forms, analyses.MetaPaired)
	}
	switch len(forms) {
	case 1:
		return forms[0], nil
	case 0:
		return "", fmt.Errorf("%s:1: not a summary table (header: %s): want %s; map other column names with summary = {path = …, columns = {m1i = \"…\"}}", t.File, strings.Join(t.Header, ","), metaSummaryForms)
	}
	return "", fmt.Errorf("%s:1: the header mixes the columns of %s summaries: want one of %s", t.File, strings.Join(forms, " and "), metaSummaryForms)
}

// readMetaSummary parses per-dataset summary rows (SPEC §5.9 `summary`):
// paired, two-group or generic by the header. A missing cell, an n below
// 2, a zero or negative sd or variance is an error at file:line:column.
func readMetaSummary(t *TableReader) ([]analyses.MetaStudy, error) {
	form, err := metaSummaryForm(t)
	if err != nil {
		return nil, err
	}
	var need []string
	switch form {
	case analyses.MetaPaired:
		need = []string{"dataset", "n", "mean_diff", "sd_diff"}
	case analyses.MetaTwoGroup:
		need = []string{"dataset", "m1i", "sd1i", "n1i", "m2i", "sd2i", "n2i"}
	default:
		need = []string{"dataset", "yi"}
		if t.Col("vi") >= 0 {
			need = append(need, "vi")
		} else if t.Col("sei") >= 0 {
			need = append(need, "sei")
		} else {
			need = append(need, "vi")
		}
	}
	cols := map[string]int{}
	for _, c := range need {
		i, err := t.Require(c)
		if err != nil {
			return nil, fmt.Errorf("%w (a %s summary: %s)", err, metaFormName(form), metaSummaryForms)
		}
		cols[c] = i
	}
	kind := metaFormName(form)
	rcol := -1
	if form == analyses.MetaPaired {
		rcol = t.Col("r")
	}
	seen := map[string]bool{}
	var out []analyses.MetaStudy
	for {
		rec, err := t.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		d := strings.TrimSpace(rec[cols["dataset"]])
		if d == "" {
			return nil, t.Errorf(cols["dataset"], "empty dataset name")
		}
		if seen[d] {
			return nil, t.Errorf(cols["dataset"], "dataset %q has a second row", d)
		}
		seen[d] = true
		num := func(name string) (float64, error) {
			v, ok, err := t.Float(cols[name])
			if err != nil {
				return 0, err
			}
			if !ok {
				return 0, t.Errorf(cols[name], "%s of %s is missing (an empty cell; %s summary)", name, d, kind)
			}
			return v, nil
		}
		positive := func(name string) (float64, error) {
			v, err := num(name)
			if err == nil && !(v > 0) {
				what := "negative"
				if v == 0 {
					what = "zero"
				}
				return 0, t.Errorf(cols[name], "%s of %s is %s: it must be above 0 (%s summary)", name, d, what, kind)
			}
			return v, err
		}
		count := func(name string) (int, error) {
			n, err := num(name)
			if err != nil {
				return 0, err
			}
			if n < 2 || n != math.Trunc(n) || n > 1<<53 {
				return 0, t.Errorf(cols[name], "%s of %s must be a whole number ≥ 2, not %v (%s summary)", name, d, n, kind)
			}
			return int(n), nil
		}
		st := analyses.MetaStudy{Dataset: d, Form: form, R: math.NaN(), MeanDiff: math.NaN(), SDDiff: math.NaN(),
			MeanT: math.NaN(), MeanC: math.NaN(), SDT: math.NaN(), SDC: math.NaN(),
			M1: math.NaN(), M2: math.NaN(), SD1: math.NaN(), SD2: math.NaN(), Yi: math.NaN(), Vi: math.NaN()}
		var errs [6]error
		switch form {
		case analyses.MetaPaired:
			st.N, errs[0] = count("n")
			st.MeanDiff, errs[1] = num("mean_diff")
			st.SDDiff, errs[2] = positive("sd_diff")
			if rcol >= 0 && errs[0] == nil && errs[1] == nil && errs[2] == nil {
				v, ok, err := t.Float(rcol)
				if err != nil {
					return nil, err
				}
				if ok {
					if !(v >= -1 && v <= 1) {
						return nil, t.Errorf(rcol, "r of %s must be between −1 and 1, not %v", d, v)
					}
					st.R = v
				}
			}
		case analyses.MetaTwoGroup:
			st.M1, errs[0] = num("m1i")
			st.SD1, errs[1] = positive("sd1i")
			st.N1, errs[2] = count("n1i")
			st.M2, errs[3] = num("m2i")
			st.SD2, errs[4] = positive("sd2i")
			st.N2, errs[5] = count("n2i")
			st.N = st.N1 + st.N2
		default:
			st.Yi, errs[0] = num("yi")
			if _, ok := cols["vi"]; ok {
				st.Vi, errs[1] = positive("vi")
			} else {
				var se float64
				se, errs[1] = positive("sei")
				st.Vi = se * se
				if errs[1] == nil && !(st.Vi > 0 && !math.IsInf(st.Vi, 0)) {
					errs[1] = t.Errorf(cols["sei"], "sei of %s squares to %v: not a usable variance", d, st.Vi)
				}
			}
		}
		for _, e := range errs {
			if e != nil {
				return nil, e // the first problem in column order
			}
		}
		out = append(out, st)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no rows", t.File)
	}
	return out, nil
}

// metaFormName names a summary form in prose.
func metaFormName(form string) string {
	switch form {
	case analyses.MetaTwoGroup:
		return "two-group"
	case analyses.MetaGeneric:
		return "generic (yi, vi)"
	}
	return "paired"
}

// metaTau2Names names each τ² estimator with its reference.
var metaTau2Names = map[string]string{
	"DL":   "DerSimonian–Laird (DerSimonian & Laird 1986), (Q − (k − 1))/(ΣW − ΣW²/ΣW) truncated at 0",
	"REML": "restricted maximum likelihood (Viechtbauer 2005), by Fisher scoring from the Hedges estimate",
	"ML":   "maximum likelihood (Hardy & Thompson 1996), by Fisher scoring from the Hedges estimate",
	"PM":   "Paule–Mandel (Paule & Mandel 1982): the τ² at which the generalised Q equals k − 1",
	"EB":   "empirical Bayes (Morris 1983), iterated from the Hedges estimate (its fixed point is Paule–Mandel's)",
	"HE":   "Hedges' estimator (Hedges & Olkin 1985): the unweighted variance of the effects less the mean sampling variance",
	"HS":   "Hunter–Schmidt (Hunter & Schmidt 2004), (Q − k)/ΣW truncated at 0",
	"SJ":   "Sidik–Jonkman (Sidik & Jonkman 2005): one weighted step from the variance of the effects",
}

func metaMethod(o *analyses.MetaOptions, r *analyses.MetaResult) string {
	var b strings.Builder
	switch {
	case r.Form == analyses.MetaTwoGroup:
		fmt.Fprintf(&b, "The effects are computed from a **two-group summary** (`%s`: per dataset the mean, sd and size of each group, m1i, sd1i, n1i for %s and m2i, sd2i, n2i for %s, as published), as metafor's escalc() computes them: ", o.Summary.Path, r.Treatment, r.Control)
		switch r.Effect {
		case "smd":
			b.WriteString("the **standardised mean difference** (escalc \"SMD\") is Hedges' g = c(m)·(m1 − m2)/s_p with the pooled sd s_p = √(((n1 − 1)sd1² + (n2 − 1)sd2²)/m), m = n1 + n2 − 2, and the exact correction c(m) = Γ(m/2)/(√(m/2)·Γ((m − 1)/2)) (Hedges 1981), variance 1/n1 + 1/n2 + g²/(2(n1 + n2)) (escalc's default vtype \"LS\"; `hedges_g` is the same effect here). ")
		case "rom":
			b.WriteString("the **log ratio of means** (escalc \"ROM\"; Hedges et al. 1999) is log(m1/m2) with variance sd1²/(n1·m1²) + sd2²/(n2·m2²); a dataset whose ratio of means is not positive has no log and is left out with a note, as metafor drops it. ")
		default:
			b.WriteString("the **mean difference** (escalc \"MD\") is m1 − m2 with variance sd1²/n1 + sd2²/n2 (no equal-variance assumption). ")
		}
	case r.Form == analyses.MetaGeneric:
		fmt.Fprintf(&b, "The effects are **given** in a generic summary (`%s`: per dataset an effect yi and its sampling variance vi, or its standard error sei with vi = sei²), as rma(yi, vi) takes them; the `effect` key does not apply. ", o.Summary.Path)
	default:
		if r.FromUnits {
			b.WriteString(`Each dataset contributes one effect of the treatment over the control, computed from paired per-unit values (seed 000 §3; Borenstein et al. 2009, ch. 4). Units are paired by unit id, or by row number when the files have no id column; units without a partner are counted and reported, not compared. `)
		} else {
			fmt.Fprintf(&b, "The effects are computed from a **paired summary** (`%s`: per dataset n pairs, the mean difference D, the sd of the differences S_diff and, for the standardised effects, the correlation r), as the per-unit path computes them (seed 000 §3; Borenstein et al. 2009, ch. 4). ", o.Summary.Path)
		}
		if r.Effect == "rom" {
			b.WriteString("The **log ratio of means** for matched pairs (metafor's escalc \"ROMC\"; Lajeunesse 2011) is log(m_T/m_C) over the pairs with variance sd_T²/(n·m_T²) + sd_C²/(n·m_C²) − 2r·sd_T·sd_C/(n·m_T·m_C), from each method's mean, sample sd and their correlation r; a dataset whose ratio of means is not positive is left out with a note. ")
		} else {
			b.WriteString("With n pairs, D = mean(x_T − x_C) and S_diff the sample sd of the differences (divisor n − 1")
			if o.RangerCompat {
				b.WriteString("; here **ranger_compat** uses the population sd, divisor n, as the Ranger toolkit did, to reproduce published numbers")
			}
			b.WriteString("): the **mean difference** is D with variance S_diff²/n; the **standardised mean difference** is d = D/S_within with S_within = S_diff/√(2(1−r)), r = Pearson(x_T, x_C), and variance (1/n + d²/(2n))·2(1−r); **Hedges' g** = J·d with J = 1 − 3/(4(n−1) − 1) and variance J²·V_d. ")
		}
	}
	b.WriteString("Effects are treatment minus control (a ratio of means: treatment over control), so which side of zero favours which method depends on the metric's direction. ")
	if o.Model == "fixed" {
		b.WriteString("The summary is the **fixed-effect** inverse-variance mean, weights W = 1/v. ")
	} else {
		fmt.Fprintf(&b, "The summary is the **random-effects** inverse-variance mean, weights W* = 1/(v + τ²), with the between-dataset variance τ² by **%s** ", o.Tau2)
		fmt.Fprintf(&b, "(%s). ", metaTau2Names[o.Tau2])
		switch o.Tau2 {
		case "REML", "ML", "EB", "PM":
			b.WriteString("The iteration runs to full convergence (a change in τ² below 1e-14 times the larger of τ² and the smallest sampling variance), where metafor's default stops at an absolute change of 1e-5; the tests compare with metafor run under the same tight control. ")
		}
	}
	if o.Test == "knha" {
		b.WriteString("Confidence intervals and p values of the summary use the **Knapp–Hartung** adjustment (Knapp & Hartung 2003; Hartung & Knapp 2001), as rma(test = \"knha\"): the variance of the summary is scaled by s² = Σ W*(y − M*)²/(k − 1) and referred to a t distribution on k − 1 degrees of freedom; the prediction interval is M* ± t_{k−1}·√(SE² + τ²), as metafor's predict(). Per-dataset intervals stay Y ± z·SE. ")
	} else {
		b.WriteString("Confidence intervals are Y ± z·SE with z = Φ⁻¹(1 − α/2) and two-sided normal p values (test = \"z\"); the prediction interval is M* ± z·√(SE² + τ²), as metafor's predict() (equal to the confidence interval in the fixed-effect model). ")
	}
	b.WriteString("Q is tested on k − 1 degrees of freedom; I² = τ²/(τ² + ṽ) and H² = (τ² + ṽ)/ṽ with ṽ = (k − 1)/(ΣW − ΣW²/ΣW) the typical within-dataset variance, as metafor reports them (I² in percent; for the fixed-effect model (Q − df)/Q and Q/df). The reference implementation the tests compare with is R metafor 3.8 (Viechtbauer 2010): escalc(), rma(), predict(). ")
	if o.Subgroup != "" {
		b.WriteString("Each subgroup of datasets (by the attribute `" + o.Subgroup + "`) is fitted on its own, with its own τ²; the test of subgroup differences compares the subgroup summaries with Q_between = Σ W_g (M_g − M̄)², W_g = 1/V_Mg, on G − 1 degrees of freedom. ")
	}
	if o.Sensitivity {
		b.WriteString("\n\n**Sensitivity.** The table *leave-one-out* refits the same model without each dataset in turn (metafor's leave1out()): `effect`, `se`, `ci_low`, `ci_high` and `p` of the summary, `Q` (the fixed-effect heterogeneity statistic), `tau2` and `I2` (percent) without that dataset. ")
		b.WriteString("The table *influence* gives metafor's influence() diagnostics (Viechtbauer & Cheung 2010): `rstudent`, the studentized deleted residual (the dataset's effect against the summary fitted without it, over the standard error of that difference); `dffits`, the change of the summary when the dataset is left out in units of its standard error; `cooks_d`, Cook's distance, the squared change of the summary over its variance; `cov_r`, the covariance ratio, the variance of the summary without the dataset over the variance with it (below 1: the dataset makes the summary less precise); `tau2_del` and `Q_del`, τ² and Q without it; `hat`, its leverage (its share of the model's weight); `weight`, its weight as a fraction of 1; and `influential`, metafor's flag: |DFFITS| > 3√(1/(k − 1)), or the χ²₁ probability of Cook's distance above 0.5, or a hat value above 3/k, or |DFBETAS| > 1. ")
		b.WriteString("The funnel plot shows each effect against its standard error with the pseudo-confidence region summary ± z·SE (Sterne & Egger 2001; metafor's funnel()); **Egger's regression test** (Egger et al. 1997) fits the same model with the standard error as a moderator (metafor's regtest() with its default model \"rma\" and predictor \"sei\") and tests its slope (`egger: {z, p}` in the JSON; t with k − 2 degrees of freedom under Knapp–Hartung). ")
		fmt.Fprintf(&b, "The key findings name an influential dataset, and funnel asymmetry when Egger's p is below %g — the threshold Egger et al. (1997) proposed because the test has little power; with fewer than 10 datasets the test is not recommended at all (Sterne et al. 2011). ", analyses.MetaEggerThreshold)
		b.WriteString("For the fixed-effect model and the closed-form estimators (DL, HE, HS, SJ) the k leave-one-out fits reuse the full data's sums (downdating, and a short series in the change of τ²), so all of them together cost about O(k) and 10,000 datasets take a fraction of a second; the iterative estimators (REML, ML, EB, PM) refit from scratch as metafor does, O(k) per iteration of each of the k fits. ")
	}
	b.WriteString("\n\nA dataset whose effect is undefined (fewer than 2 pairs, zero variance of the differences, r = 1 for a standardised effect, a method without values, a ratio of means that is not positive) is shown, named in a note, and left out of the summary.")
	if r.FromUnits {
		if o.Missing == "zero" {
			b.WriteString(" Empty per-unit values count as 0 (`missing = \"zero\"`).")
		} else {
			b.WriteString(" A pair with an empty value is dropped (`missing = \"drop\"`).")
		}
	}
	return b.String()
}
