package meta

// Effect-size meta-analysis (Sertkan et al. 2023, §3): a treatment and a
// control compared on every dataset from paired per-unit values, combined
// into one summary effect. This file holds the options, the per-dataset
// effect sizes and the models; meta_builder.go holds the streaming
// accumulation of per-unit values and meta_fit.go the τ² estimators.
//
// Reference implementations matched by the tests: R metafor 3.8 —
// escalc("MD" | "SMD" | "ROM" | "ROMC") for the two-group and ratio
// effects, rma(yi, vi, method = "FE" | "DL" | "REML" | "PM" | "ML" | "HE" |
// "HS" | "SJ" | "EB", test = "z" | "knha") and predict() for the models
// (meta_fit.go, meta_rma.go), leave1out(), influence() and regtest() for
// the sensitivity analysis (meta_sensitivity.go); fixtures and their R
// generators are in testdata/oracle/meta/ — and the Ranger toolkit
// (Sertkan et al. 2023), whose population-sd variant
// `ranger_compat = true` reproduces the published numbers of Sertkan et
// al. 2023.

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/stats"

	"gonum.org/v1/gonum/stat/distuv"
)

// Options are the keys of a `meta_analysis` [[analyses]] table.
type Options struct {
	Treatment string `toml:"treatment"`
	Control   string `toml:"control"`
	Metric    string `toml:"metric"`
	Effect    string `toml:"effect"` // md | smd | hedges_g | rom
	Model     string `toml:"model"`  // random | fixed
	// Tau2 is an estimator (DL | REML | PM | ML | HE | HS | SJ | EB) or a
	// number that fixes τ².
	Tau2     Tau2Option `toml:"tau2"`
	Test     string     `toml:"test"` // z | t | knha
	Alpha    float64    `toml:"alpha"`
	Datasets []string   `toml:"datasets"` // order (and subset) of rows
	// Subgroup names a column of the summary file or, without one, a
	// dataset attribute: per-subgroup summaries and the test between them.
	Subgroup string `toml:"subgroup"`
	// SubgroupTau2 is "separate" (a model per subgroup, each with its own
	// τ²) or "common" (one mixed-effects model with the subgroup as a
	// categorical moderator and a common τ²).
	SubgroupTau2 string `toml:"subgroup_tau2"`
	Missing      string `toml:"missing"` // drop | zero: an empty per-unit value
	// Design says how per-unit values are compared: "paired" (each unit's
	// treatment value with its control value, by unit id or row) or
	// "independent" (two independent groups per dataset, as a two-group
	// summary of the same values).
	Design string `toml:"design"`
	// Summary names a table of per-dataset rows used instead of per-unit
	// values: paired (dataset, n, mean_diff, sd_diff[, r]), two-group
	// (dataset, m1i, sd1i, n1i, m2i, sd2i, n2i) or generic (dataset, yi,
	// vi | sei), told apart by the header.
	Summary Source `toml:"summary"`
	// Sensitivity adds leave-one-out fits, influence diagnostics, the
	// funnel plot and Egger's regression test.
	Sensitivity bool `toml:"sensitivity"`
	// RangerCompat computes S_diff with the population sd (divisor n), as
	// the Ranger toolkit did, to reproduce published numbers.
	RangerCompat bool `toml:"ranger_compat"`
	// Measure names an escalc measure (OR, RR, RD, PR, PLO, PAS, PFT, COR,
	// ZCOR, IR, IRLN): the summary file then holds its columns (see
	// MeasureColumns), and Add, To and Drop00 are escalc's zero-cell
	// options (defaults add = 1/2, to = "only0"; add = 0 for PAS, PFT).
	// Mods are the moderators of a meta-regression (rma's mods = ~ …):
	// columns of the summary file, or dataset attributes.
	Mods []string `toml:"mods"`
	// Cumulative names the column of the summary file (or else the
	// dataset attribute) that orders a cumulative meta-analysis (metafor's
	// cumul(order = …)): ascending, ties in the rows' order.
	Cumulative string   `toml:"cumulative"`
	Measure    string   `toml:"measure"`
	Add        *float64 `toml:"add"`
	To         string   `toml:"to"`
	Drop00     bool     `toml:"drop00"`
	// Better is the direction of a summary's metric ("higher" | "lower"),
	// when no [[metrics]] entry of metric gives it: a summary has no
	// data to take it from, and the forest plot's "favours" sides follow
	// it.
	Better string `toml:"better"`
}

// Effect size indices and model names.
var (
	metaEffects = []string{"md", "smd", "hedges_g", "rom"}
	metaModels  = []string{"random", "fixed"}
	metaTau2    = []string{"DL", "REML", "PM", "ML", "HE", "HS", "SJ", "EB"}
	metaTests   = []string{"z", "t", "knha"}
	metaMissing = []string{"drop", "zero"}
	metaDesigns = []string{"paired", "independent"}
	metaSubTau2 = []string{"separate", "common"}
)

// Defaults sets the defaults the README lists.
func (o *Options) Defaults() {
	o.Effect = "md"
	o.Model = "random"
	o.Tau2 = "DL"
	o.Test = "z"
	o.Alpha = 0.05
	o.Missing = "drop"
	o.Design = "paired"
	o.SubgroupTau2 = "separate"
}

// Validate checks the options on their own (names of methods, datasets
// and metrics are checked against the data when the analysis runs).
func (o *Options) Validate() error {
	// With a summary file treatment and control are only labels.
	if o.Treatment == "" && o.Summary.Path == "" {
		return analyses.OptionErrorf("treatment", "missing (the method whose effect is measured)")
	}
	if o.Control == "" && o.Summary.Path == "" {
		return analyses.OptionErrorf("control", "missing (the method compared against)")
	}
	if o.Treatment == o.Control && o.Treatment != "" {
		return analyses.OptionErrorf("control", "%q is also the treatment", o.Control)
	}
	o.fillEmpty()
	if o.Metric == "" && o.Summary.Path == "" {
		return analyses.OptionErrorf("metric", "missing")
	}
	for _, c := range []struct {
		key     string
		val     *string
		allowed []string
	}{{"effect", &o.Effect, metaEffects}, {"model", &o.Model, metaModels}, {"test", &o.Test, metaTests}, {"missing", &o.Missing, metaMissing}, {"design", &o.Design, metaDesigns}, {"subgroup_tau2", &o.SubgroupTau2, metaSubTau2}} {
		if canon := canonical(*c.val, c.allowed); canon != "" {
			*c.val = canon // "reml" means "REML"
			continue
		}
		return analyses.OneOf(c.key, *c.val, c.allowed...)
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return analyses.OptionErrorf("alpha", "%v is not between 0 and 1", o.Alpha)
	}
	if err := o.checkTau2(); err != nil {
		return err
	}
	if o.Model == "fixed" && o.Tau2 != "DL" {
		// DL is the default: a tau2 given with the fixed-effect model
		// was ignored while the page's parameters showed it
		return analyses.OptionErrorf("tau2", "a fixed-effect model estimates no τ²; leave tau2 out, or set model = \"random\"")
	}

	if o.Better != "" && o.Better != "higher" && o.Better != "lower" {
		return analyses.OneOf("better", o.Better, "higher", "lower")
	}
	if err := o.checkInputKeys(); err != nil {
		return err
	}
	if err := o.checkMeasure(); err != nil {
		return err
	}
	for _, m := range o.Mods {
		if strings.TrimSpace(m) == "" {
			return analyses.OptionErrorf("mods", "an empty moderator name")
		}
	}
	return analyses.FirstError(analyses.CheckDistinct("datasets", o.Datasets), analyses.CheckDistinct("mods", o.Mods))
}

// checkInputKeys checks the keys that apply to one kind of input only:
// ranger_compat and design to per-unit values.
func (o *Options) checkInputKeys() error {
	if o.RangerCompat && o.Summary.Path != "" {
		return analyses.OptionErrorf("ranger_compat", "applies to per-unit values (the sd of their differences); a summary file gives its sd itself")
	}
	if o.Design == "independent" {
		if o.Summary.Path != "" {
			return analyses.OptionErrorf("design", "applies to per-unit values; a summary file's header says its form (two-group: dataset, m1i, sd1i, n1i, m2i, sd2i, n2i)")
		}
		if o.RangerCompat {
			return analyses.OptionErrorf("ranger_compat", "applies to paired values (the sd of the differences); with design = \"independent\" there are none")
		}
	}
	return nil
}

// canonical returns the entry of list equal to s up to case, or "".
func canonical(s string, list []string) string {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return v
		}
	}
	return ""
}

// Forms of a dataset's input: paired values (per-unit values, or paired
// summary rows dataset, n, mean_diff, sd_diff[, r]), two-group summary
// rows (dataset, m1i, sd1i, n1i, m2i, sd2i, n2i, as metafor's escalc) and
// generic effects (dataset, yi, vi or sei).
const (
	Paired   = "paired"
	TwoGroup = "two_group"
	Generic  = "generic"
)

// Study is one dataset's input: what the streaming builder
// accumulates, or one row of a `summary` file.
type Study struct {
	Dataset string
	Form    string // Paired ("" means paired), TwoGroup or Generic
	// Paired values.
	N        int     // number of pairs
	MeanDiff float64 // D = mean(x_T − x_C)
	SDDiff   float64 // sample sd of the differences (n − 1)
	R        float64 // Pearson(x_T, x_C); NaN when unknown or undefined
	// Means and sample sds of each method over the pairs (per-unit path;
	// NaN for summary rows): what the ratio of means (ROMC) needs.
	MeanT, MeanC, SDT, SDC float64
	// Two-group summary (group 1 = treatment, group 2 = control).
	M1, SD1, M2, SD2 float64
	N1, N2           int
	// Generic effect and its sampling variance.
	Yi, Vi float64
	// Given holds the columns of a measure's summary row as the file gives
	// them (GivenCols: escalc's names, ai, n1i, …), which Yi and Vi were
	// computed from; N is then the row's size where the measure has one
	// (the 2×2 table's total, ni), else 0.
	Given     []float64
	GivenCols []string
	// Counts of the per-unit path (zero for summary rows).
	TreatmentValues, ControlValues int // values seen of each method
	UnmatchedTreatment             int // treatment units without a control partner
	UnmatchedControl               int
	DroppedMissing                 int // pairs dropped for an empty value (missing = "drop")
	FromUnits                      bool
}

func (s Study) form() string {
	if s.Form == "" {
		return Paired
	}
	return s.Form
}

// Input is what the analysis needs: the studies in the order seen,
// the metric (its direction names the favoured side) and, with a
// subgroup, each dataset's attribute value.
type Input struct {
	Metric  analyses.Metric
	Studies []Study
	Groups  map[string]string // dataset -> subgroup value
	// ModValues are the moderators of mods: dataset → name → value (a
	// summary's column or the dataset's attribute).
	ModValues map[string]map[string]string
	// Order is each dataset's value of the cumulative key's column or
	// attribute (text, a number).
	Order map[string]string
	// Naming names datasets, methods and the metric in the warnings and
	// in a left-out dataset's note (the numbers never depend on it).
	Naming analyses.Naming
}

// Row is one dataset's effect in the result. Undefined numbers are
// NaN here and nil in tables; Included is false with a Reason when the
// dataset is left out of the summary.
type Row struct {
	Dataset                string
	Group                  string
	N                      int
	MeanDiff, SDDiff, R    float64
	Effect, Variance, SE   float64
	CILow, CIHigh, P       float64
	Weight                 float64 // fraction of 1 in the overall model
	Included               bool
	Reason                 string
	UnmatchedT, UnmatchedC int
	DroppedMissing         int
	TreatmentN, ControlN   int
	FromUnits              bool
	GroupWeight            float64 // fraction of 1 within its subgroup
	in                     Study
}

// Summary is a combined effect, under the keys of the analysis's JSON (a
// contract: readers' scripts parse them). Values that are undefined (k = 1:
// heterogeneity, the prediction interval) are null.
type Summary struct {
	K      int      `json:"k"`
	N      int      `json:"n"`
	noN    bool     // n is unknown (markSizes)
	Effect *float64 `json:"effect"`
	SE     *float64 `json:"se"`
	CILow  *float64 `json:"ci_low"`
	CIHigh *float64 `json:"ci_high"`
	P      *float64 `json:"p"`
	Tau2   *float64 `json:"tau2"`
	Q      *float64 `json:"Q"`
	DF     int      `json:"df"`
	PQ     *float64 `json:"p_Q"`
	I2     *float64 `json:"I2"` // percent, as metafor prints it
	H2     *float64 `json:"H2"`
	PILow  *float64 `json:"pi_low"`
	PIHigh *float64 `json:"pi_high"`
	// Q-profile confidence intervals of τ², I² and H² (random effects;
	// confint(rma), level 1 − alpha).
	Tau2CILow  *float64 `json:"tau2_ci_low"`
	Tau2CIHigh *float64 `json:"tau2_ci_high"`
	I2CILow    *float64 `json:"I2_ci_low"`
	I2CIHigh   *float64 `json:"I2_ci_high"`
	H2CILow    *float64 `json:"H2_ci_low"`
	H2CIHigh   *float64 `json:"H2_ci_high"`
}

// Result is the result of a meta-analysis.
type Result struct {
	analyses.Warnings
	Treatment string `json:"treatment"`
	Control   string `json:"control"`
	Metric    string `json:"metric"`
	Better    string `json:"better"` // "higher" | "lower"
	// Naming is how the key finding names things (set by the caller; not
	// in JSON).
	Naming     analyses.Naming `json:"-"`
	Effect     string          `json:"effect"`
	Model      string          `json:"model"`
	Tau2Method string          `json:"tau2_method"`
	// Tau2Fixed is the τ² given as a number (tau2 = 0.04; Tau2Method
	// "given"), nil when τ² is estimated.
	Tau2Fixed    *float64 `json:"tau2_fixed,omitempty"`
	Test         string   `json:"test"` // "z" | "knha"
	Alpha        float64  `json:"alpha"`
	RangerCompat bool     `json:"ranger_compat"`
	// Form is the kind of input: "paired" (per-unit values or paired
	// summary rows), "two_group" or "generic".
	Form      string `json:"input_form"`
	FromUnits bool   `json:"-"`

	Rows    []Row   `json:"-"`
	Summary Summary `json:"summary"`

	Subgroup      string             `json:"subgroup,omitempty"`
	SubgroupOrder []string           `json:"subgroup_order,omitempty"`
	Subgroups     map[string]Summary `json:"subgroups,omitempty"`
	// Printed maps the JSON Pointers of the numbers written at the
	// analysis's one precision (Decimals) to their decimals: the
	// summary's and each subgroup's effect, standard error and
	// intervals. The paper's macros write them so, as the tables, the
	// forest plot and the key finding do.
	Printed   map[string]int `json:"decimals,omitempty"`
	QBetween  *float64       `json:"Q_between,omitempty"`
	DFBetween int            `json:"df_between,omitempty"`
	PBetween  *float64       `json:"p_between,omitempty"`
	// SubgroupTau2 is "separate" or "common"; with a common τ² the test
	// between is the model's QM (F under test = "t" or "knha", with
	// DFBetween2 its denominator's degrees of freedom) and Within its
	// test of residual heterogeneity.
	SubgroupTau2 string        `json:"subgroup_tau2,omitempty"`
	DFBetween2   int           `json:"df_between_denominator,omitempty"`
	Within       *WithinGroups `json:"within,omitempty"`

	// Sensitivity (sensitivity = true): leave-one-out fits, influence
	// diagnostics and Egger's regression test (meta_sensitivity.go).
	Sensitivity bool `json:"sensitivity"`
	// Measure is the escalc measure of a summary of counts, proportions,
	// correlations or rates ("" otherwise), and Natural its summary
	// back-transformed (OR, RR, PLO, PAS, PFT, ZCOR, IRLN).
	Measure     string      `json:"measure,omitempty"`
	Natural     *Natural    `json:"natural,omitempty"`
	LeaveOneOut []LeaveOut  `json:"-"`
	Influence   []Influence `json:"-"`
	Egger       *Egger      `json:"egger,omitempty"`
	PubBias     *PubBias    `json:"publication_bias,omitempty"`
	// Moderators is the meta-regression of mods (nil without).
	Moderators *ModResult `json:"moderators,omitempty"`
	// CumulativeBy names the order of the cumulative meta-analysis
	// (cumulative = …), whose steps are Cumulative.
	CumulativeBy string       `json:"cumulative,omitempty"`
	Cumulative   []CumulRow   `json:"-"`
	Funnel       *FunnelLines `json:"-"`
}

// EffectLabel names the effect size index for axes and captions.
func (r *Result) EffectLabel() string {
	if l, ok := MeasureLabels[r.Measure]; ok {
		return l
	}
	switch r.Effect {
	case "smd":
		if r.Form == TwoGroup {
			return "standardised mean difference g"
		}
		return "standardised mean difference d"
	case "hedges_g":
		return "Hedges' g"
	case "rom":
		return "log ratio of means"
	case "yi":
		return "effect"
	}
	return "mean difference"
}

// onMetric is " on <metric>" for prose, or "" when a summary file gives
// the effects without naming a metric.
func (r *Result) onMetric() string {
	if r.Metric == "" {
		return ""
	}
	return " on " + r.Naming.Metric(r.Metric)
}

// FavoursTreatmentRight reports whether an effect above zero favours the
// treatment (true for a higher-is-better metric: effects are x_T − x_C).
func (r *Result) FavoursTreatmentRight() bool { return r.Better != "lower" }

// Tables implements Result: the forest plot's table (one row per
// dataset, then the summary), the inputs behind each effect, the summary
// with its heterogeneity, with a subgroup one summary per subgroup and,
// with sensitivity = true, the leave-one-out fits and the influence
// diagnostics.
func (r *Result) Tables() []analyses.Table {
	main := analyses.Table{Name: "", Title: "Effect per dataset and summary effect",
		Columns: []string{"dataset", "n", "effect", "variance", "se", "ci_low", "ci_high", "p", "weight"}}
	nCell := func(n int) any {
		if r.Form == Generic && n == 0 {
			return nil // effects given as they are come without sample sizes
		}
		return n
	}
	for _, row := range r.Rows {
		main.Rows = append(main.Rows, []any{row.Dataset, nCell(row.N), analyses.CellValue(row.Effect), analyses.CellValue(row.Variance), analyses.CellValue(row.SE),
			analyses.CellValue(row.CILow), analyses.CellValue(row.CIHigh), analyses.CellValue(row.P), analyses.CellValue(row.Weight)})
	}
	s := r.Summary
	main.Rows = append(main.Rows, []any{"summary", nCell(s.N), ptr(s.Effect), sq(s.SE), ptr(s.SE), ptr(s.CILow), ptr(s.CIHigh), ptr(s.P), 1.0})

	in := r.inputsTable()
	het := analyses.Table{Name: "heterogeneity", Title: "Summary effect and heterogeneity",
		Columns: []string{"group", "k", "n", "effect", "se", "ci_low", "ci_high", "p", "tau2", "Q", "df", "p_Q", "I2", "H2", "pi_low", "pi_high",
			"tau2_ci_low", "tau2_ci_high", "I2_ci_low", "I2_ci_high", "H2_ci_low", "H2_ci_high"}}
	add := func(name string, s Summary) {
		het.Rows = append(het.Rows, []any{name, s.K, nCell(s.N), ptr(s.Effect), ptr(s.SE), ptr(s.CILow), ptr(s.CIHigh), ptr(s.P),
			ptr(s.Tau2), ptr(s.Q), s.DF, ptr(s.PQ), ptr(s.I2), ptr(s.H2), ptr(s.PILow), ptr(s.PIHigh),
			ptr(s.Tau2CILow), ptr(s.Tau2CIHigh), ptr(s.I2CILow), ptr(s.I2CIHigh), ptr(s.H2CILow), ptr(s.H2CIHigh)})
	}
	add("all", r.Summary)
	if r.Subgroup != "" {
		for _, g := range r.SubgroupOrder {
			add(g, r.Subgroups[g])
		}
	}
	tables := append([]analyses.Table{main, in, het}, r.naturalTable()...)
	tables = append(tables, r.modsTables()...)
	tables = append(tables, r.cumulativeTable()...)
	if r.Subgroup != "" {
		tables = append(tables, r.subgroupsTable())
	}
	if r.Sensitivity {
		tables = append(tables, r.sensitivityTables()...)
	}
	r.setDecimals(tables)
	for _, t := range tables {
		t.Check()
	}
	return tables
}

// inputsTable lists what each effect was computed from, by input form.
func (r *Result) inputsTable() analyses.Table {
	switch r.Form {
	case TwoGroup:
		t := analyses.Table{Name: "inputs", Title: "Two-group summaries behind each effect",
			Columns: []string{"dataset", "m1i", "sd1i", "n1i", "m2i", "sd2i", "n2i", "included", "note"}}
		for _, row := range r.Rows {
			s := row.in
			t.Rows = append(t.Rows, []any{row.Dataset, analyses.CellValue(s.M1), analyses.CellValue(s.SD1), s.N1, analyses.CellValue(s.M2), analyses.CellValue(s.SD2), s.N2, row.Included, row.Reason})
		}
		return t
	case Generic:
		if t, ok := r.measureInputsTable(); ok {
			return t
		}
		t := analyses.Table{Name: "inputs", Title: "Effects and sampling variances as given",
			Columns: []string{"dataset", "yi", "vi", "included", "note"}}
		for _, row := range r.Rows {
			t.Rows = append(t.Rows, []any{row.Dataset, analyses.CellValue(row.in.Yi), analyses.CellValue(row.in.Vi), row.Included, row.Reason})
		}
		return t
	}
	t := analyses.Table{Name: "inputs", Title: "Paired values behind each effect",
		Columns: []string{"dataset", "n", "mean_diff", "sd_diff", "r", "unmatched_treatment", "unmatched_control", "dropped_missing", "included", "note"}}
	if r.FromUnits && r.Effect == "rom" {
		t.Columns = []string{"dataset", "n", "mean_treatment", "sd_treatment", "mean_control", "sd_control", "r", "unmatched_treatment", "unmatched_control", "dropped_missing", "included", "note"}
	}
	for _, row := range r.Rows {
		if len(t.Columns) == 12 {
			s := row.in
			t.Rows = append(t.Rows, []any{row.Dataset, row.N, analyses.CellValue(s.MeanT), analyses.CellValue(s.SDT), analyses.CellValue(s.MeanC), analyses.CellValue(s.SDC), analyses.CellValue(row.R),
				row.UnmatchedT, row.UnmatchedC, row.DroppedMissing, row.Included, row.Reason})
			continue
		}
		t.Rows = append(t.Rows, []any{row.Dataset, row.N, analyses.CellValue(row.MeanDiff), analyses.CellValue(row.SDDiff), analyses.CellValue(row.R),
			row.UnmatchedT, row.UnmatchedC, row.DroppedMissing, row.Included, row.Reason})
	}
	return t
}

// measureInputsTable lists, for a measure's summary, the columns each
// effect was computed from as the file gives them, then escalc's yi and
// vi; ok is false when the effects were given as they are.
func (r *Result) measureInputsTable() (t analyses.Table, ok bool) {
	var cols []string
	for _, row := range r.Rows {
		if cols = row.in.GivenCols; cols != nil {
			break
		}
	}
	if cols == nil {
		return t, false
	}
	t = analyses.Table{Name: "inputs", Title: measureInputsTitle(r.Measure) + " behind each effect",
		Columns: append(append([]string{"dataset"}, cols...), "yi", "vi", "included", "note")}
	for _, row := range r.Rows {
		cells := []any{row.Dataset}
		for i, c := range cols {
			v := math.NaN()
			if i < len(row.in.Given) {
				v = row.in.Given[i]
			}
			cells = append(cells, givenCell(c, v))
		}
		t.Rows = append(t.Rows, append(cells, analyses.CellValue(row.in.Yi), analyses.CellValue(row.in.Vi), row.Included, row.Reason))
	}
	return t, true
}

// measureInputsTitle names what a measure's summary rows hold.
func measureInputsTitle(measure string) string {
	switch measure {
	case MeasureOR, MeasureRR, MeasureRD:
		return "2×2 tables"
	case MeasureCOR, MeasureZCOR:
		return "Correlations and sizes"
	case MeasureIR, MeasureIRLN:
		return "Events and person-time"
	}
	return "Events and sizes"
}

// givenCell is a measure's column value as a cell: a whole count as an
// integer, anything else as the number it is.
func givenCell(col string, v float64) any {
	if col != "ri" && col != "ti" && v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return int64(v)
	}
	return analyses.CellValue(v)
}

func ptr(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func sq(p *float64) any {
	if p == nil {
		return nil
	}
	return *p * *p
}

// Analyze computes every dataset's effect size and the summary
// effect (Sertkan et al. 2023, Eqs. 1–8). Datasets whose effect is
// undefined (fewer than 2 pairs, zero variance of the differences, r = 1
// for a standardised effect, a method without values) are reported with a
// warning naming dataset and method, and left out of the summary.
func Analyze(in Input, o Options) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	res := metaNewResult(in, o)
	studies, err := metaSelect(in.Studies, o.Datasets)
	if err != nil {
		return nil, err
	}
	if err := metaForm(res, studies, o); err != nil {
		return nil, err
	}
	o.Effect = res.Effect
	what := in.Metric.Name
	if what == "" {
		what = "the summary rows"
	}
	metaRows(res, in, o, studies, what)
	var idx []int
	for i, r := range res.Rows {
		if r.Included {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil, fmt.Errorf("no dataset has a defined %s of %s vs %s on %s (see the reasons: %s)", o.Effect, o.Treatment, o.Control, what, reasons(res.Rows))
	}
	metaSummarise(res, idx, o)
	if o.Subgroup != "" {
		if err := metaSubgroupsBy(res, idx, o); err != nil {
			return nil, err
		}
	}
	metaHetCIs(res, idx, o)
	if err := metaMods(res, in, idx, o); err != nil {
		return nil, err
	}
	if err := metaCumulative(res, in, idx, o); err != nil {
		return nil, err
	}
	if o.Sensitivity {
		if err := metaSensitivity(res, idx, o.conf()); err != nil {
			return nil, err
		}
	}
	res.setPrinted()
	res.markSizes()
	return res, nil
}

// markSizes marks the summaries of effects given without sample sizes
// (yi, vi; a measure of rates): their n is unknown, null in the JSON,
// not 0.
func (r *Result) markSizes() {
	if r.Form != Generic {
		return
	}
	if r.Summary.N == 0 {
		r.Summary.noN = true
	}
	for g, s := range r.Subgroups {
		if s.N == 0 {
			s.noN = true
			r.Subgroups[g] = s
		}
	}
}

// MarshalJSON writes the summary under its keys, n as null where the
// inputs give no sample sizes (markSizes).
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	if !s.noN {
		return json.Marshal(plain(s))
	}
	return json.Marshal(struct {
		plain
		N *int `json:"n"`
	}{plain: plain(s)})
}

// setPrinted sets Printed.
func (r *Result) setPrinted() {
	d := r.Decimals()
	r.Printed = map[string]int{}
	add := func(prefix string) {
		for _, k := range []string{"effect", "se", "ci_low", "ci_high", "pi_low", "pi_high"} {
			r.Printed[prefix+k] = d
		}
	}
	add("/summary/")
	esc := strings.NewReplacer("~", "~0", "/", "~1") // RFC 6901
	for _, g := range r.SubgroupOrder {
		add("/subgroups/" + esc.Replace(g) + "/")
	}
}

// metaNewResult is the result with its settings and labels.
func metaNewResult(in Input, o Options) *Result {
	res := &Result{Treatment: o.Treatment, Control: o.Control, Metric: in.Metric.Name, Better: "higher",
		Effect: o.Effect, Model: o.Model, Tau2Method: string(o.Tau2), Test: o.Test, Alpha: o.Alpha, RangerCompat: o.RangerCompat,
		Sensitivity: o.Sensitivity, Measure: o.Measure}
	if res.Treatment == "" {
		res.Treatment = "treatment"
	}
	if res.Control == "" {
		res.Control = "control"
	}
	if in.Metric.Better == analyses.LowerIsBetter {
		res.Better = "lower"
	}
	if o.Model == "fixed" {
		res.Tau2Method = ""
	}
	if x, ok := o.Tau2.Fixed(); ok {
		res.Tau2Method, res.Tau2Fixed = "given", &x
	}
	return res
}

// metaForm sets the input form shared by every study (an error when they
// mix forms) and the effect measure it allows.
func metaForm(res *Result, studies []Study, o Options) error {
	if len(studies) > 0 {
		res.Form = studies[0].form()
		res.FromUnits = studies[0].FromUnits
		for _, s := range studies {
			if s.form() != res.Form {
				return fmt.Errorf("the datasets mix %s and %s inputs", res.Form, s.form())
			}
		}
	}
	switch {
	case res.Form == Generic:
		res.Effect = "yi" // the effects are given
	case res.Form == TwoGroup && o.Effect == "hedges_g":
		res.Effect = "smd" // metafor's SMD is Hedges' g
	case res.Form == Paired && !res.FromUnits && o.Effect == "rom":
		return fmt.Errorf("effect = \"rom\" needs each method's mean and sd: a paired summary (dataset, n, mean_diff, sd_diff) has only their difference; give a two-group summary (dataset, m1i, sd1i, n1i, m2i, sd2i, n2i) or per-unit values")
	}
	return nil
}

// metaRows computes every study's effect row, warning of the studies left
// out and, in one note each, of unmatched units and dropped pairs (so that
// thirty datasets do not make thirty notes).
func metaRows(res *Result, in Input, o Options, studies []Study, what string) {
	z := distuv.UnitNormal.Quantile(1 - o.Alpha/2)
	var unmatched, dropped []string
	n := in.Naming
	lo := o // o with the methods' labels, for the notes
	lo.Treatment, lo.Control = n.Method(o.Treatment), n.Method(o.Control)
	label := what
	if in.Metric.Name != "" {
		label = n.Metric(what)
	}
	for _, s := range studies {
		row := metaEffect(s, lo, z)
		if o.Subgroup != "" {
			g, ok := in.Groups[s.Dataset]
			if !ok || g == "" {
				g = "(no " + o.Subgroup + ")"
				res.Warnf("dataset %s has no value of %q: grouped under %q", n.Dataset(s.Dataset), o.Subgroup, g)
			}
			row.Group = g
		}
		if !row.Included {
			res.Warnf("dataset %s (%s vs %s, %s): %s; left out of the summary", n.Dataset(s.Dataset), lo.Treatment, lo.Control, label, row.Reason)
		} else {
			if row.UnmatchedT > 0 || row.UnmatchedC > 0 {
				unmatched = append(unmatched, fmt.Sprintf("%s (%d of %s, %d of %s)", n.Dataset(s.Dataset), row.UnmatchedT, lo.Treatment, row.UnmatchedC, lo.Control))
			}
			if row.DroppedMissing > 0 {
				dropped = append(dropped, fmt.Sprintf("%s (%d)", n.Dataset(s.Dataset), row.DroppedMissing))
			}
		}
		res.Rows = append(res.Rows, row)
	}
	if len(unmatched) > 0 {
		res.Warnf("units without a partner, not compared: %s", strings.Join(unmatched, ", "))
	}
	if len(dropped) > 0 {
		res.Warnf("pairs with an empty %s value dropped (missing = \"drop\"): %s", label, strings.Join(dropped, ", "))
	}
}

// metaSummarise fits the model to the included rows idx: their weights,
// the summary and its warnings.
func metaSummarise(res *Result, idx []int, o Options) {
	fit := metaFitRows(res.Rows, idx, o.conf())
	for j, i := range idx {
		res.Rows[i].Weight = fit.w[j]
	}
	res.Summary = fit.summary(res.Rows, idx)
	if len(idx) == 1 {
		res.Warnf("only one dataset (%s) has a defined effect: the summary is that dataset's effect; τ², Q, I², H² and the prediction interval are undefined", res.Rows[idx[0]].Dataset)
	}
	if fit.warn != "" {
		res.Warnf("%s", fit.warn)
	}
	if o.Test == "knha" && o.Model == "fixed" {
		// metafor's rma(method = "FE", test = "knha") warns the same
		res.Warnf("Knapp & Hartung method is not meant to be used in the context of FE models (as metafor warns): its factor rescales a variance that a fixed-effect model takes as known; use test = \"z\", or model = \"random\"")
	}
	if o.Test == "knha" && len(idx) == 1 {
		res.Warnf("the Knapp–Hartung test needs at least 2 datasets (t with k − 1 degrees of freedom): the interval and p are undefined")
	}
	if o.Test == "t" && len(idx) == 1 {
		res.Warnf("the t test needs at least 2 datasets (t with k − 1 degrees of freedom): the interval and p are undefined")
	}
}

func reasons(rows []Row) string {
	s := ""
	for i, r := range rows {
		if i > 0 {
			s += "; "
		}
		s += r.Dataset + ": " + r.Reason
	}
	return s
}

// metaSelect orders and subsets the studies by the `datasets` key.
func metaSelect(studies []Study, names []string) ([]Study, error) {
	if len(names) == 0 {
		return studies, nil
	}
	by := map[string]Study{}
	var all []string
	for _, s := range studies {
		by[s.Dataset] = s
		all = append(all, s.Dataset)
	}
	out := make([]Study, 0, len(names))
	for _, n := range names {
		s, ok := by[n]
		if !ok {
			return nil, fmt.Errorf("datasets: %q has no values%s", n, analyses.NameHint(n, all))
		}
		out = append(out, s)
	}
	return out, nil
}

// metaEffect computes one dataset's effect size and variance (Borenstein et
// al. 2009 ch. 4, as Sertkan et al. 2023, Eqs. 1–5, and Ranger, for paired
// values; metafor's escalc for two-group summaries and the ratio of means).
func metaEffect(s Study, o Options, z float64) Row {
	row := Row{Dataset: s.Dataset, N: s.N, MeanDiff: s.MeanDiff, SDDiff: s.SDDiff, R: s.R,
		UnmatchedT: s.UnmatchedTreatment, UnmatchedC: s.UnmatchedControl, DroppedMissing: s.DroppedMissing,
		TreatmentN: s.TreatmentValues, ControlN: s.ControlValues, FromUnits: s.FromUnits, in: s,
		Effect: math.NaN(), Variance: math.NaN(), SE: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN(), P: math.NaN(), Weight: math.NaN(), GroupWeight: math.NaN()}
	fail := func(format string, args ...any) Row {
		row.Reason = fmt.Sprintf(format, args...)
		return row
	}
	var y, v float64
	switch s.form() {
	case Generic:
		row.N = s.N // a measure's size, 0 for effects given as they are
		y, v = s.Yi, s.Vi
	case TwoGroup:
		row.N = s.N1 + s.N2
		if s.N1 < 2 || s.N2 < 2 {
			return fail("a group has fewer than 2 units (n1i = %d, n2i = %d)", s.N1, s.N2)
		}
		y, v = metaTwoGroup(s, o.Effect)
		if o.Effect == "rom" && !(s.M1/s.M2 > 0) {
			return fail("the ratio of means m1i/m2i = %g/%g is not positive: its log is undefined (metafor drops the dataset)", s.M1, s.M2)
		}
	default:
		var reason string
		y, v, reason = metaPairedEffect(s, o, &row)
		if reason != "" {
			return fail("%s", reason)
		}
	}
	if !(v > 0) || !analyses.Finite(y) || !analyses.Finite(v) {
		return fail("the effect or its variance is not a finite positive number")
	}
	row.Effect, row.Variance, row.SE = y, v, math.Sqrt(v)
	row.CILow, row.CIHigh = y-z*row.SE, y+z*row.SE
	row.P = stats.NormalTwoSidedP(y / row.SE)
	row.Included = true
	return row
}

// metaTwoGroup is metafor's escalc for two independent groups (group 1
// the treatment): "MD" (m1 − m2, sd1²/n1 + sd2²/n2), "SMD" (Hedges' g:
// the exact bias correction c(m) = Γ(m/2)/(√(m/2)·Γ((m−1)/2)),
// m = n1 + n2 − 2, times (m1 − m2)/s_pooled; variance
// 1/n1 + 1/n2 + g²/(2(n1 + n2)), escalc's default vtype "LS") and "ROM"
// (log(m1/m2), sd1²/(n1·m1²) + sd2²/(n2·m2²)).
func metaTwoGroup(s Study, effect string) (y, v float64) {
	n1, n2 := float64(s.N1), float64(s.N2)
	switch effect {
	case "smd", "hedges_g":
		m := n1 + n2 - 2
		sp := math.Sqrt(((n1-1)*s.SD1*s.SD1 + (n2-1)*s.SD2*s.SD2) / m)
		y = metaCorrection(m) * (s.M1 - s.M2) / sp
		v = 1/n1 + 1/n2 + y*y/(2*(n1+n2))
	case "rom":
		y = math.Log(s.M1 / s.M2)
		v = s.SD1*s.SD1/(n1*s.M1*s.M1) + s.SD2*s.SD2/(n2*s.M2*s.M2)
	default:
		y = s.M1 - s.M2
		v = s.SD1*s.SD1/n1 + s.SD2*s.SD2/n2
	}
	return y, v
}

// metaCorrection is metafor's exact small-sample correction of the
// standardised mean difference (Hedges 1981): Γ(m/2)/(√(m/2)·Γ((m−1)/2)).
func metaCorrection(m float64) float64 {
	a, _ := math.Lgamma(m / 2)
	b, _ := math.Lgamma((m - 1) / 2)
	return math.Exp(a - math.Log(math.Sqrt(m/2)) - b)
}

// metaPairedEffect computes a paired effect: md, smd and hedges_g as
// Borenstein et al. (2009, ch. 4), rom as metafor's "ROMC" (ratio of
// means for matched pairs: log(m_T/m_C), variance sd_T²/(n·m_T²) +
// sd_C²/(n·m_C²) − 2r·sd_T·sd_C/(n·m_T·m_C)). It returns a reason when
// the effect is undefined.
func metaPairedEffect(s Study, o Options, row *Row) (y, v float64, reason string) {
	if s.FromUnits {
		switch {
		case s.TreatmentValues == 0 && s.ControlValues == 0:
			return 0, 0, fmt.Sprintf("neither %s nor %s has values", o.Treatment, o.Control)
		case s.TreatmentValues == 0:
			return 0, 0, fmt.Sprintf("method %s has no values", o.Treatment)
		case s.ControlValues == 0:
			return 0, 0, fmt.Sprintf("method %s has no values", o.Control)
		}
	}
	if s.N < 2 {
		return 0, 0, fmt.Sprintf("fewer than 2 paired units (n = %d): the sd of the differences is undefined", s.N)
	}
	if o.Effect == "rom" {
		return metaPairedROM(s, o)
	}
	if !analyses.Finite(s.MeanDiff) || !analyses.Finite(s.SDDiff) || s.SDDiff < 0 {
		return 0, 0, "mean_diff or sd_diff is not a finite number"
	}
	sd := s.SDDiff
	if o.RangerCompat && s.FromUnits {
		sd *= math.Sqrt(float64(s.N-1) / float64(s.N)) // population sd, as Ranger's np.std
		row.SDDiff = sd
	}
	if sd == 0 {
		return 0, 0, fmt.Sprintf("the differences %s − %s have zero variance (every pair differs by %g): the effect's variance is 0", o.Treatment, o.Control, s.MeanDiff)
	}
	switch o.Effect {
	case "md":
		y, v = s.MeanDiff, sd*sd/float64(s.N)
	case "smd", "hedges_g":
		return metaPairedSMD(s, o, sd)
	}
	return y, v, ""
}

// metaPairedROM is the log ratio of means of paired values and its
// variance.
func metaPairedROM(s Study, o Options) (y, v float64, reason string) {
	n := float64(s.N)
	if !(s.MeanT/s.MeanC > 0) {
		return 0, 0, fmt.Sprintf("the ratio of the means %g/%g of %s and %s is not positive: its log is undefined", s.MeanT, s.MeanC, o.Treatment, o.Control)
	}
	y = math.Log(s.MeanT / s.MeanC)
	v = s.SDT*s.SDT/(n*s.MeanT*s.MeanT) + s.SDC*s.SDC/(n*s.MeanC*s.MeanC)
	if s.SDT > 0 && s.SDC > 0 {
		if math.IsNaN(s.R) {
			return 0, 0, fmt.Sprintf("the correlation r of %s and %s is undefined", o.Treatment, o.Control)
		}
		v -= 2 * s.R * s.SDT * s.SDC / (n * s.MeanT * s.MeanC)
	}
	if !(v > 0) {
		return 0, 0, fmt.Sprintf("the variance of the log ratio of means is %g (the values of %s and %s are proportional or constant)", v, o.Treatment, o.Control)
	}
	return y, v, ""
}

// metaPairedSMD is the standardised mean difference of paired values
// (Hedges' g with the small-sample correction) from the sd of the
// differences sd and the correlation r, and its variance, as Borenstein
// et al. (2009, eqs. 4.27–4.28, 4.22): S_within = sd/√(2(1 − r)),
// d = D/S_within, V_d = (1/n + d²/(2n))·2(1 − r); g = J·d, V_g = J²·V_d,
// J = 1 − 3/(4(n − 1) − 1). It is neither escalc's "SMCC" nor "SMCR".
func metaPairedSMD(s Study, o Options, sd float64) (y, v float64, reason string) {
	n := float64(s.N)
	r := s.R
	if math.IsNaN(r) {
		if s.FromUnits {
			return 0, 0, fmt.Sprintf("the correlation r of %s and %s is undefined (one of them is constant)", o.Treatment, o.Control)
		}
		return 0, 0, fmt.Sprintf("the summary row has no r, which %s needs", o.Effect)
	}
	if r >= 1-1e-12 { // 1 up to rounding of the co-moments
		return 0, 0, fmt.Sprintf("the correlation r of %s and %s is 1: the within-group sd S_diff/√(2(1−r)) is undefined", o.Treatment, o.Control)
	}
	if r < -1 {
		return 0, 0, fmt.Sprintf("r = %g is below −1", r)
	}
	sw := sd / math.Sqrt(2*(1-r))
	d := s.MeanDiff / sw
	vd := (1/n + d*d/(2*n)) * 2 * (1 - r)
	y, v = d, vd
	if o.Effect == "hedges_g" {
		df := n - 1
		j := 1 - 3/(4*df-1)
		y, v = j*d, j*j*vd
	}
	return y, v, ""
}

// metaSubgroups fits the model within every subgroup (each with its own
// τ², as metafor's separate fits and Borenstein et al. ch. 19) and tests
// the subgroup differences with Q_between = Σ W_g (M_g − M̄)², W_g = 1/V_Mg,
// on G − 1 degrees of freedom (a fixed-effect model over the subgroup
// summaries, as rma(M_g, sei = SE_g, method = "FE")).
func metaSubgroups(res *Result, idx []int, o Options) {
	members := subgroupMembers(res, idx, o)
	var ys, vs []float64
	for _, g := range res.SubgroupOrder {
		m := members[g]
		if len(m) == 0 {
			res.Subgroups[g] = Summary{}
			res.Warnf("subgroup %s: no dataset with a defined effect", g)
			continue
		}
		fit := metaFitRows(res.Rows, m, o.conf())
		for j, i := range m {
			res.Rows[i].GroupWeight = fit.w[j]
		}
		s := fit.summary(res.Rows, m)
		res.Subgroups[g] = s
		if len(m) == 1 {
			res.Warnf("subgroup %s has one dataset (%s): its summary is that dataset's effect", g, res.Rows[m[0]].Dataset)
		}
		if s.Effect == nil || s.SE == nil || !(*s.SE > 0) {
			// Knapp–Hartung leaves a one-dataset subgroup without a
			// standard error (t on 0 degrees of freedom), and gives 0
			// when its effects are all equal.
			res.Warnf("subgroup %s has no positive standard error of its summary: left out of the test of subgroup differences", g)
			continue
		}
		ys = append(ys, *s.Effect)
		vs = append(vs, *s.SE**s.SE)
	}
	if len(ys) < 2 {
		res.Warnf("the test of subgroup differences needs at least 2 subgroups with a defined summary")
		return
	}
	fe := metaFit(ys, vs, metaConf{model: "fixed", test: "z", alpha: o.Alpha})
	res.QBetween = analyses.Opt(fe.q)
	res.DFBetween = len(ys) - 1
	res.PBetween = analyses.Opt(fe.pq)
}

// Decimals is how many decimals the analysis's effects are shown with,
// in the forest plot, the funnel plot's caption and the key finding
// alike: enough to tell the narrowest confidence interval's ends apart
// (of a dataset or of the summary), from 2 (effects near 1) to 6
// (differences of 1e-5).
func (r *Result) Decimals() int {
	w := math.Inf(1)
	for _, row := range r.Rows {
		if row.Included {
			w = math.Min(w, row.CIHigh-row.CILow)
		}
	}
	if s := r.Summary; s.CIHigh != nil && s.CILow != nil {
		w = math.Min(w, *s.CIHigh-*s.CILow)
	}
	return analyses.DecimalsFor(w)
}

// setDecimals has the tables print the effect, its standard error and
// its intervals with Decimals, as the forest plot and the key finding
// print them (and as metafor prints an estimate, its SE and its
// bounds: one precision), in every table of the summary effect, and the
// inputs that are the effects themselves (a paired mean difference, a
// generic yi); not the meta-regression's coefficients, another quantity.
func (r *Result) setDecimals(tables []analyses.Table) {
	d := r.Decimals()
	for i, t := range tables {
		if !slices.Contains([]string{"", "heterogeneity", "leave-one-out", "cumulative", "inputs"}, t.Name) {
			continue
		}
		for _, c := range t.Columns {
			switch {
			case c == "effect", c == "se", c == "ci_low", c == "pi_low", c == "yi", c == "mean_diff" && r.Effect == "md":
				tables[i].Decimals = setDecimal(tables[i].Decimals, c, d)
			}
		}
	}
}

// HetText writes τ² ("tau2") or I² ("I2") of the summary or a subgroup
// as the heterogeneity table prints its column, for the key finding and
// the forest plot's summaries.
func (r *Result) HetText(col string, v float64) string {
	pick := func(s Summary) *float64 {
		if col == "tau2" {
			return s.Tau2
		}
		return s.I2
	}
	var vals []float64
	add := func(s Summary) {
		if p := pick(s); p != nil && analyses.Finite(*p) {
			vals = append(vals, *p)
		}
	}
	add(r.Summary)
	if r.Subgroup != "" {
		for _, g := range r.SubgroupOrder {
			add(r.Subgroups[g])
		}
	}
	return analyses.ColumnText(v, vals)
}

// CumulText writes τ² ("tau2") or I² ("I2") of a cumulative fit as the
// cumulative table prints its column, for the cumulative forest plot.
func (r *Result) CumulText(col string, v float64) string {
	var vals []float64
	for _, c := range r.Cumulative {
		x := c.I2
		if col == "tau2" {
			x = c.Tau2
		}
		if analyses.Finite(x) {
			vals = append(vals, x)
		}
	}
	return analyses.ColumnText(v, vals)
}

// setDecimal sets d for column c in m, making m when nil.
func setDecimal(m map[string]int, c string, d int) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[c] = d
	return m
}

// Interval is an effect and its interval at the analysis's decimals,
// "-0.062 [-0.089, -0.035]".
func (r *Result) Interval(e, lo, hi float64) string {
	return analyses.FormatInterval(e, lo, hi, r.Decimals())
}

// Highlight: the summary effect with its interval, and which method it favours.
func (r *Result) Highlight() string {
	s := r.Summary
	if s.Effect == nil || s.CILow == nil || s.CIHigh == nil {
		return ""
	}
	text := fmt.Sprintf("%s vs %s%s: summary %s %s over %s", r.Naming.Method(r.Treatment), r.Naming.Method(r.Control), r.onMetric(),
		r.EffectLabel(), r.Interval(*s.Effect, *s.CILow, *s.CIHigh), analyses.Count(s.K, "dataset", "datasets"))
	if s.P != nil {
		text += ", " + analyses.PClause(*s.P) // a 0 is "p < 1e-300": the tail underflowed
	}
	if s.I2 != nil {
		text += ", I² = " + r.HetText("I2", *s.I2) + "%"
	}
	switch {
	case *s.CILow > 0 || *s.CIHigh < 0:
		better := r.Naming.Method(r.Treatment)
		if (*s.Effect > 0) != (r.Better != "lower") {
			better = r.Naming.Method(r.Control)
		}
		text += "; " + better + " is better"
	default:
		text += "; the interval includes no difference"
	}
	return text + "." + r.sensitivityHighlight()
}
