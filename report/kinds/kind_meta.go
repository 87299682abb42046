package kinds

// The meta_analysis kind (Sertkan et al. 2023): it streams the study's
// per-unit values into meta.Builder (or reads a `summary` file of
// per-dataset rows), runs meta.Analyze and draws the forest plot.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/meta"
	"github.com/evalbook/evalbook/figures"

	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/load/engines"
	"github.com/evalbook/evalbook/report/manifest"
)

func init() { register(metaKind) }

func metaKind() Kind {
	k := NewKind("meta_analysis", "effect sizes of a treatment vs a control on every dataset, combined by a fixed- or random-effects model and drawn as a forest plot (Sertkan et al. 2023)", runMeta)
	k.Units = func(job *Job, opts any) load.UnitsSink {
		if o := opts.(*meta.Options); o.Summary.Path == "" && !job.Inputs.Engines.Reads(o) {
			return NewMetaSink(job, o)
		}
		return nil
	}
	return Titled(k, func(s *manifest.Study, o *meta.Options) string {
		if o.Treatment == "" || o.Control == "" {
			return titleOf("Meta-analysis", metricLabel(s, o.Metric))
		}
		return titleOf(s.Label(manifest.LabelMethod, o.Treatment)+" vs "+s.Label(manifest.LabelMethod, o.Control), metricLabel(s, o.Metric))
	})
}

func runMeta(job *Job, o *meta.Options) (*Output, error) {
	var metric analyses.Metric
	if o.Metric != "" {
		metric = job.Metric(o.Metric)
	}
	var studies []meta.Study
	var ms input.MeasureSummary
	var err error
	if o.Measure != "" {
		ms, err = metaReadMeasure(job, o)
		studies = ms.Studies
	} else if o.Summary.Path != "" {
		studies, err = MetaReadSummary(job, o.Summary)
	} else if err = checkMissingAgrees(job, o); err != nil {
		return nil, err
	} else if job.Inputs.Engines.Reads(o) {
		studies, err = metaEngineUnits(job, o)
	} else {
		studies, err = metaStreamUnits(job, o)
	}
	if err != nil {
		return nil, err
	}
	if o.Summary.Path == "" {
		if err := metaBothMethods(job.Study, o, studies); err != nil {
			return nil, err
		}
	} else {
		if metric, err = summaryDirection(job.Study, o); err != nil {
			return nil, err
		}
	}
	if len(o.Datasets) == 0 {
		studies = metaManifestOrder(job.Study, studies)
	}
	in := meta.Input{Metric: metric, Studies: studies, Naming: job.Study.Naming()}
	if err := metaGroupValues(job, o, &in); err != nil {
		return nil, err
	}
	r, err := meta.Analyze(in, *o)
	if err != nil {
		return nil, err
	}
	r.Naming = job.Study.Naming()
	if o.Measure != "" {
		if err := measureNatural(r, ms); err != nil {
			return nil, err
		}
	}
	figs, err := figures.Meta(job.ID, job.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: MetaMethod(o, r, UnitsMissing(job.Study))}, nil
}

// metaGroupValues sets in's values of the subgroup, of the cumulative
// order and of the moderators (mods): a column of the summary file, else a
// dataset attribute.
func metaGroupValues(job *Job, o *meta.Options, in *meta.Input) error {
	var names []string
	if o.Subgroup != "" {
		names = append(names, o.Subgroup)
	}
	if o.Cumulative != "" {
		names = append(names, o.Cumulative)
	}
	names = append(names, o.Mods...)
	if len(names) == 0 {
		return nil
	}
	vals, err := metaColumnValues(job, o, in.Studies, names)
	if err != nil {
		return err
	}
	if len(o.Mods) > 0 {
		in.ModValues = vals
	}
	if o.Cumulative != "" {
		in.Order = map[string]string{}
		for d, v := range vals {
			if x, ok := v[o.Cumulative]; ok {
				in.Order[d] = x
			}
		}
	}
	if o.Subgroup == "" {
		return nil
	}
	in.Groups = map[string]string{}
	for d, v := range vals {
		if g, ok := v[o.Subgroup]; ok {
			in.Groups[d] = strings.TrimSpace(g)
		}
	}
	if len(in.Groups) == 0 {
		where := "set it in [[datasets]]"
		if o.Summary.Path != "" {
			where = "the summary file has no column of that name either; add one, or set the attribute in [[datasets]]"
		}
		return fmt.Errorf("subgroup: no dataset has the attribute %q (%s)", o.Subgroup, where)
	}
	return nil
}

// summaryDirection is the metric of a summary meta-analysis with its
// direction, which the manifest must declare: better = … on the analysis
// or a [[metrics]] entry of metric that says better = …. Per-unit
// values are a metric of the data, higher-is-better unless declared
// otherwise, as everywhere; a summary's rows are not, and taking higher
// as better put the forest plot's "favours" labels on the wrong sides
// for a metric such as length of stay.
func summaryDirection(s *manifest.Study, o *meta.Options) (analyses.Metric, error) {
	m := analyses.Metric{Name: o.Metric, Better: analyses.HigherIsBetter, Max: math.Inf(1)}
	declared := ""
	if i, ok := s.MetricIndex[strings.ToLower(o.Metric)]; ok && o.Metric != "" {
		declared = s.Metrics[i].Better
	}
	switch {
	case o.Better != "" && declared != "" && o.Better != declared:
		return m, fmt.Errorf("better = %q, while the [[metrics]] entry of %q says better = %q; keep one", o.Better, o.Metric, declared)
	case o.Better == "" && declared == "":
		return m, fmt.Errorf("a summary's metric needs its direction, which sets the forest plot's \"favours\" sides: add better = \"higher\" or \"lower\" to this analysis (or name its metric with metric = \"…\" and give that a [[metrics]] entry with better = …)")
	}
	if o.Better == "lower" || declared == "lower" {
		m.Better = analyses.LowerIsBetter
	}
	return m, nil
}

// MetaSink pairs the treatment's and the control's values of the metric
// as the shared units pass hands them over (see meta.Builder for
// what it keeps in memory).
type MetaSink struct {
	o        *meta.Options
	B        metaAccumulator
	Metrics  map[string]bool // other metrics met, for the message when the metric has no values
	Methods  map[string]bool // methods with values of the metric
	Values   int
	label    string
	progress Progress
	// the last methods and other metrics met: rows repeat them (side by
	// side files alternate their methods row by row)
	lastMethods [4]string
	lastMetric  [2]string
	// TakeRound's scratch: the handles of each batch's names, and a row
	// for Add
	handles [][]metaHandle
	row     load.UnitRow
}

// metaAccumulator turns per-unit values into per-dataset studies:
// meta.Builder pairs them, meta.Groups keeps two
// independent groups.
type metaAccumulator interface {
	Add(dataset, method, unit string, row int64, v float64) error
	Seen(dataset string)
	Finish() []meta.Study
}

// NewMetaSink is the units sink of a meta-analysis with options o.
func NewMetaSink(job *Job, o *meta.Options) *MetaSink {
	var b metaAccumulator = meta.NewBuilder(o.Treatment, o.Control, o.Missing)
	if o.Design == "independent" {
		b = meta.NewGroups(o.Treatment, o.Control, o.Missing)
	}
	return &MetaSink{o: o, B: b,
		Metrics: map[string]bool{}, Methods: map[string]bool{},
		label: "meta_analysis " + job.ID + ": reading units", progress: job.Progress()}
}

// Metric is the metric the sink takes.
func (m *MetaSink) Metric() string { return m.o.Metric }

// Wants reports whether the sink takes a method's values.
func (m *MetaSink) Wants(method string) bool { return method == m.o.Treatment || method == m.o.Control }

// Seen tells the sink a file it did not need holds its metric for a dataset and method.
func (m *MetaSink) Seen(dataset, method string) {
	m.method(method)
	m.B.Seen(dataset)
}

// method records a method with values of the metric.
func (m *MetaSink) method(name string) {
	for _, l := range m.lastMethods {
		// the same string mostly (the pass's names are interned): no
		// call to compare bytes
		if len(name) == len(l) && (len(l) == 0 || unsafe.StringData(name) == unsafe.StringData(l)) {
			return
		}
	}
	for i, l := range m.lastMethods {
		if name == l {
			m.lastMethods[i] = name // the copy the rows now come with (each byte range interns its own)
			return
		}
	}
	if !m.Methods[name] && (len(m.Methods) < 1000 || m.Wants(name)) {
		m.Methods[strings.Clone(name)] = true
	}
	copy(m.lastMethods[1:], m.lastMethods[:3])
	m.lastMethods[0] = name
}

// OtherMetric tells the sink a file holds another metric's values.
func (m *MetaSink) OtherMetric(_, _, metric string) {
	if metric != m.lastMetric[0] && metric != m.lastMetric[1] {
		if len(m.Metrics) < 1000 && !m.Metrics[metric] {
			m.Metrics[strings.Clone(metric)] = true
		}
		m.lastMetric[1], m.lastMetric[0] = m.lastMetric[0], metric
	}
}

// Add takes one per-unit value.
func (m *MetaSink) Add(u *load.UnitRow) error {
	m.Values++
	if m.Values&(1<<20-1) == 0 {
		m.progress.Step(m.label, m.Values, 0)
	}
	m.method(u.Method)
	if u.Method != m.o.Treatment && u.Method != m.o.Control {
		m.B.Seen(u.Dataset)
		return nil
	}
	if err := m.B.Add(u.Dataset, u.Method, u.Unit, u.Row, u.Value); err != nil {
		return input.Errorf(u.File, int(u.Line), "%w", err)
	}
	return nil
}

// metaHandle is what a sink does with the rows of one of a batch's
// names (found at the first such row): hand them to a slot of the
// builder, or count them only (a method other than the treatment and
// the control).
type metaHandle struct {
	state uint8 // 0: not found yet; 1: slot; 2: counted only
	slot  meta.Slot
}

// TakeRound is Add for each row of a round that the pass hands over
// (see load.RoundTaker), in the same order, with the same effects: the
// builder's slot for a batch's dataset and method is found at the first
// row that has them, where Add would have found them.
func (m *MetaSink) TakeRound(round []*load.UnitsBatchOf, wants [][]bool) error {
	builder, ok := m.B.(*meta.Builder)
	longest := 0
	m.handles = m.handles[:0]
	for _, b := range round {
		longest = max(longest, len(b.Rows))
		hs := slices.Grow(load.NextScratch(m.handles), len(b.Names))[:len(b.Names)]
		clear(hs)
		m.handles = append(m.handles, hs)
	}
	if len(round) == 1 && ok { // (a file alone in its group: its rows in order)
		b, w, hs := round[0], wants[0], m.handles[0]
		for k := range b.Rows {
			if r := &b.Rows[k]; w[r.Names] {
				if err := m.takeRow(builder, b, r, &hs[r.Names]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for k := 0; k < longest; k++ {
		for i, b := range round {
			if k >= len(b.Rows) || !wants[i][b.Rows[k].Names] {
				continue
			}
			r := &b.Rows[k]
			if !ok {
				b.Row(k, &m.row)
				if err := m.Add(&m.row); err != nil {
					return err
				}
				continue
			}
			if err := m.takeRow(builder, b, r, &m.handles[i][r.Names]); err != nil {
				return err
			}
		}
	}
	return nil
}

// takeRow is Add for row r of batch b, whose names' handle is h.
func (m *MetaSink) takeRow(builder *meta.Builder, b *load.UnitsBatchOf, r *load.BatchRow, h *metaHandle) error {
	m.Values++
	if m.Values&(1<<20-1) == 0 {
		m.progress.Step(m.label, m.Values, 0)
	}
	n := &b.Names[r.Names]
	if h.state == 0 {
		m.method(n.Method)
		h.state = 2
		if slot, ok := builder.Slot(n.Dataset, n.Method); ok {
			h.state, h.slot = 1, slot
		} else {
			builder.Seen(n.Dataset)
		}
	}
	if h.state != 1 {
		return nil
	}
	unit := ""
	if r.UnitLen > 0 {
		unit = unsafe.String(&b.Ids[r.Unit], int(r.UnitLen))
	}
	if err := h.slot.Add(unit, r.Row, r.Value); err != nil {
		return input.Errorf(n.File, int(r.Line), "%w", err)
	}
	return nil
}

// metaStreamUnits pairs the treatment's and the control's values of the
// metric from the study's per-unit values (the build's shared units pass).
func metaStreamUnits(job *Job, o *meta.Options) ([]meta.Study, error) {
	sink, err := job.ReadUnits(NewMetaSink(job, o))
	if err != nil {
		return nil, err
	}
	m := sink.(*MetaSink)
	if m.Values == 0 {
		return nil, fmt.Errorf("metric: no per-unit values of %q%s", o.Metric, analyses.NameHint(o.Metric, analyses.SortedKeys(m.Metrics)))
	}
	names := analyses.SortedKeys(m.Methods)
	for _, name := range []string{o.Treatment, o.Control} {
		if !m.Methods[name] {
			return nil, fmt.Errorf("method %q has no per-unit values of %s on any dataset%s", name, o.Metric, analyses.NameHint(name, names))
		}
	}
	m.progress.Step(m.label, m.Values, m.Values)
	return m.B.Finish(), nil
}

// metaManifestOrder puts the studies in the manifest's dataset order.
func metaManifestOrder(s *manifest.Study, studies []meta.Study) []meta.Study {
	names := make([]string, len(studies))
	by := make(map[string]meta.Study, len(studies))
	for i, st := range studies {
		names[i] = st.Dataset
		by[st.Dataset] = st
	}
	out := make([]meta.Study, 0, len(studies))
	for _, n := range s.OrderDatasets(names) {
		out = append(out, by[n])
	}
	return out
}

// MetaReadSummary reads a `summary` file: one row per dataset, in one
// of the forms told apart by the header (see readMetaSummary).
func MetaReadSummary(job *Job, src meta.Source) ([]meta.Study, error) {
	path := job.Path(src.Path)
	t, err := job.Inputs.OpenMapped(path, src.Columns)
	if err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	defer job.Inputs.CloseCounted(path, t)
	return input.ReadMetaSummary(t)
}

// MetaMethod is the method note (notes/meta_analysis.md); entries are
// the units input entries' own missing rules (UnitsMissing), which
// apply before the analysis's.
func MetaMethod(o *meta.Options, r *meta.Result, entries EntryRules) string {
	_, fixed := o.Tau2.Fixed()
	return methodNote("meta_analysis", struct {
		Form, Effect, SummaryPath, Treatment, Control string
		Model, Tau2, Test, Subgroup, Missing          string
		FromUnits, RangerCompat, Sensitivity          bool
		Tau2Fixed, SubgroupCommon, Bubble             bool
		Cumulative                                    string
		EggerThreshold                                float64
		Entries                                       EntryRules
	}{r.Form, r.Effect, o.Summary.Path, r.Treatment, r.Control,
		o.Model, string(o.Tau2), o.Test, o.Subgroup, o.Missing,
		r.FromUnits, o.RangerCompat, o.Sensitivity, fixed, o.SubgroupTau2 == "common", r.Moderators != nil && r.Moderators.Bubble != nil,
		o.Cumulative, meta.EggerThreshold, entries})
}

// EntryRules are the missing rules the units input entries set
// themselves ("zero" or "drop"): they apply as the files are read, so
// an analysis never sees an empty cell of such an entry's files.
type EntryRules struct {
	// All is the rule every entry sets, or "" when one sets none or
	// they differ.
	All string
	// Set lists the entries that set a rule, where they differ.
	Set []EntryRule
	// File is the manifest's file name.
	File string
}

// EntryRule is one units input entry's missing rule and its line.
type EntryRule struct {
	Line    int
	Missing string
}

// UnitsMissing returns the units input entries' own missing rules, of
// files and engine tables alike.
func UnitsMissing(s *manifest.Study) EntryRules {
	r := EntryRules{File: filepath.Base(s.File)}
	entries := append(append([]manifest.InputEntry{}, s.Inputs.Units...), s.Inputs.EngineUnits...)
	same := true
	for _, e := range entries {
		if e.Missing != "" {
			r.Set = append(r.Set, EntryRule{Line: e.Line, Missing: e.Missing})
		}
		same = same && e.Missing == entries[0].Missing
	}
	if len(r.Set) > 0 && same {
		r.All, r.Set = r.Set[0].Missing, nil
	}
	return r
}

// checkMissingAgrees refuses an analysis's missing = "…" that a units
// entry's own missing contradicts: the entry's rule applies as the file
// is read ("zero" turns an empty cell into 0), so the analysis would
// never see an empty value, and its page would say it dropped them.
func checkMissingAgrees(job *Job, o *meta.Options) error {
	s := job.Study
	for _, a := range s.Analyses {
		if a.ID != job.ID {
			continue
		}
		line, explicit := s.KeyLines[a.Key+".missing"]
		if !explicit {
			return nil
		}
		for _, e := range s.Inputs.Units {
			if e.Missing != "" && e.Missing != o.Missing {
				return fmt.Errorf("missing = %q (%s:%d), but the units input entry at %s:%d sets missing = %q, which applies as its files are read: the analysis would never see an empty value; keep one",
					o.Missing, filepath.Base(s.File), line, filepath.Base(s.File), e.Line, e.Missing)
			}
		}
	}
	return nil
}

// metaBothMethods refuses a dataset of the per-unit values on which one
// of the treatment and the control has values and the other none: most
// often its file is missing (a run that failed, a file not copied), and
// a summary that silently leaves the dataset out answers another
// question than the one asked. A dataset on which neither has a value
// (only other methods ran there) is not this comparison's, and is left
// out with a note, as before.
// A study that means to leave it out says so with datasets = […]; a
// dataset outside that list is not checked.
func metaBothMethods(s *manifest.Study, o *meta.Options, studies []meta.Study) error {
	var keep map[string]bool
	if len(o.Datasets) > 0 {
		keep = map[string]bool{}
		for _, d := range o.Datasets {
			keep[d] = true
		}
	}
	for _, st := range studies {
		if !st.FromUnits || keep != nil && !keep[st.Dataset] {
			continue
		}
		// Neither: the dataset is another comparison's (only other
		// methods' units), left out with its note as before.
		var none []string
		switch {
		case st.TreatmentValues == 0 && st.ControlValues > 0:
			none = []string{o.Treatment}
		case st.ControlValues == 0 && st.TreatmentValues > 0:
			none = []string{o.Control}
		default:
			continue
		}
		what := "method " + strconv.Quote(none[0]) + " has no"
		return fmt.Errorf("dataset %q: %s per-unit values of %s%s; give them, or leave the dataset out of this analysis with datasets = [%s]",
			st.Dataset, what, o.Metric, metaExpectedFiles(s, none, st.Dataset), metaOtherDatasets(studies, st.Dataset))
	}
	return nil
}

// metaExpectedFiles names the file each path pattern of the units would
// have matched for the methods on the dataset:
// " (expected in T_d2.csv, which is missing or holds none)".
func metaExpectedFiles(s *manifest.Study, methods []string, dataset string) string {
	var want []string
	for _, e := range s.Inputs.Units {
		if !strings.Contains(e.Path, "{method}") && !strings.Contains(e.Path, "{dataset}") {
			continue
		}
		for _, m := range methods {
			p := strings.ReplaceAll(strings.ReplaceAll(e.Path, "{method}", m), "{dataset}", dataset)
			if !slices.Contains(want, p) {
				want = append(want, p)
			}
		}
	}
	if len(want) == 0 {
		return " in the units files"
	}
	return " (expected in " + strings.Join(want, ", ") + ", which is missing or holds none)"
}

// metaOtherDatasets lists the datasets but one, quoted, for the hint.
func metaOtherDatasets(studies []meta.Study, but string) string {
	var q []string
	for _, st := range studies {
		if st.Dataset != but {
			q = append(q, strconv.Quote(st.Dataset))
		}
	}
	return strings.Join(q, ", ")
}

// RoundSink makes the units pass hand the sink whole rounds (RoundTaker).
func (m *MetaSink) RoundSink() load.RoundTaker { return m }

// metaEngineUnits computes a meta-analysis's per-dataset studies from the
// engine's sums (the engine's counterpart of metaStreamUnits).
func metaEngineUnits(job *Job, o *meta.Options) ([]meta.Study, error) {
	e := job.Inputs.Engines.Units
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-job.Done:
			cancel()
		case <-ctx.Done():
		}
	}()
	cat, err := e.Catalogue(ctx)
	if err != nil {
		return nil, err
	}
	q, datasets, shifts, err := e.MetaPlan(cat, o)
	if err != nil {
		return nil, err
	}
	rows, err := e.Run(ctx, job.ID, q)
	if err != nil {
		return nil, err
	}
	// A repeated unit id: the paired sums count them (the independent
	// ones do not); a query of its own names the first exactly.
	var studies []meta.Study
	repeated := o.Design == "independent"
	if !repeated {
		studies, err = e.PairedStudies(ctx, job.ID, rows, datasets, shifts, o)
		if repeated = errors.Is(err, engines.ErrEngineRepeat); !repeated && err != nil {
			return nil, err
		}
	}
	if repeated {
		rep, err := e.Run(ctx, job.ID, e.Src.RepeatSQL(o.Metric, o.Treatment, o.Control))
		if err != nil {
			return nil, err
		}
		if len(rep) > 0 && len(rep[0]) == 4 {
			r := rep[0]
			return nil, e.RepeatError(engines.Str(r[0]), engines.Str(r[1]), r[2], engines.U64(r[3]))
		}
		if o.Design != "independent" {
			return nil, e.Errorf("the paired sums count a repeated unit id that no query of repeats finds; was the table written to during the build?")
		}
		return engines.GroupStudies(rows, datasets, shifts, o), nil
	}
	return studies, nil
}
