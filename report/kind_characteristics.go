package report

// Registration of characteristics (SPEC §5.6): reads each dataset's
// interaction log streaming (one worker per log, at most ctx.Jobs at once,
// so memory is bounded by the distinct pairs of ctx.Jobs logs), or takes
// the characteristics input, then relates the features to the results.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures"
)

func characteristicsKind() Kind {
	return NewKind("characteristics", "dataset characteristics from interaction logs and their association with performance (seed 001 §4.3, Fig. 7)", runCharacteristics)
}

func runCharacteristics(ctx *Context, o *analyses.CharacteristicsOptions) (*Output, error) {
	var logs []DatasetSpec
	for _, d := range ctx.Study.Datasets {
		if d.Interactions != "" {
			logs = append(logs, d)
		}
	}
	from := o.From
	if from == analyses.CharFromAuto {
		from = analyses.CharFromInput
		if len(logs) > 0 {
			from = analyses.CharFromLogs
		}
	}
	var in analyses.CharacteristicsInput
	switch from {
	case analyses.CharFromLogs:
		if len(logs) == 0 {
			return nil, fmt.Errorf("from = \"logs\": no [[datasets]] entry has interactions = \"…\"")
		}
		sums, err := characteristicsFromLogs(ctx, logs, o.Preprocessing())
		if err != nil {
			return nil, err
		}
		in.Features = analyses.LogFeatureNames
		for i, d := range logs {
			in.Datasets = append(in.Datasets, d.Name)
			in.Values = append(in.Values, sums[i].Features)
			in.Counts = append(in.Counts, sums[i].Counts)
		}
	default:
		c, err := ctx.Characteristics()
		if err != nil {
			return nil, err
		}
		if c == nil {
			return nil, fmt.Errorf("no characteristics: give [inputs] characteristics = \"…\" or interactions = \"…\" in [[datasets]]")
		}
		in.Datasets, in.Features = c.Datasets, charCanonicalNames(c.Features)
		for _, d := range c.Datasets {
			row := make([]float64, len(c.Features))
			for f, name := range c.Features {
				v, ok := c.Value[d][name]
				if !ok {
					v = math.NaN()
				}
				row[f] = v
			}
			in.Values = append(in.Values, row)
		}
	}
	if len(o.Features) > 0 {
		idx := make([]int, len(o.Features))
		for k, name := range o.Features {
			idx[k] = -1
			for f, have := range in.Features {
				if have == name || (idx[k] < 0 && charFeatureKey(have) == charFeatureKey(name)) {
					idx[k] = f
				}
			}
			if idx[k] < 0 {
				return nil, fmt.Errorf("features: no feature %q (have %s)%s", name, strings.Join(in.Features, ", "), analyses.DidYouMean(name, in.Features))
			}
		}
		for d, row := range in.Values {
			sel := make([]float64, len(idx))
			for k, f := range idx {
				sel[k] = row[f]
			}
			in.Values[d] = sel
		}
		sel := make([]string, len(idx))
		for k, f := range idx {
			sel[k] = in.Features[f]
		}
		in.Features = sel
	}
	var missing []string
	if o.Metric != "" {
		methods, q, err := resultsMatrix(ctx, o.Metric, in.Datasets, o.Methods)
		if err != nil {
			return nil, err
		}
		in.Metric, in.Methods, in.Perf = o.Metric, methods, q
		have := map[string]bool{}
		for _, d := range in.Datasets {
			have[d] = true
		}
		res, _ := ctx.Results() // loaded once, already checked by resultsMatrix
		for _, d := range res.Datasets {
			if !have[d] {
				missing = append(missing, d)
			}
		}
	}
	r, err := analyses.Characteristics(in, *o)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		r.Warnf("%d datasets of the results have no characteristics and are left out: %s", len(missing), strings.Join(missing, ", "))
	}
	figs, err := figures.Characteristics(ctx.ID, ctx.Title, r)
	if err != nil {
		return nil, err
	}
	return &Output{Result: r, Figures: figs, Method: characteristicsMethod(from, o)}, nil
}

// charCanonicalNames spells input features that are SPEC §5.6 features
// under another case or underscoring (seed 001's own file has "Ginii" and
// "Giniu") as the spec does, so the -features columns keep the contract.
// A name that would collide with another column is left as it is.
func charCanonicalNames(names []string) []string {
	key := charFeatureKey
	canon := map[string]string{}
	for _, f := range analyses.LogFeatureNames {
		canon[key(f)] = f
	}
	taken := map[string]bool{}
	for _, n := range names {
		taken[n] = true
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if c, ok := canon[key(n)]; ok && c != n && !taken[c] {
			out[i] = c
			taken[c] = true
		}
	}
	return out
}

// charFeatureKey compares feature names ignoring case and underscores.
func charFeatureKey(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }

// characteristicsFromLogs reads the logs on up to ctx.Jobs workers. Each
// result has its own slot and the error reported is the one of the first
// failing dataset in manifest order, so output never depends on timing.
func characteristicsFromLogs(ctx *Context, logs []DatasetSpec, p analyses.Preprocessing) ([]*analyses.LogSummary, error) {
	n := len(logs)
	out := make([]*analyses.LogSummary, n)
	errs := make([]error, n)
	var next, done atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	prog := ctx.Progress()
	if prog == nil {
		prog = noProgress{}
	}
	for range min(max(1, ctx.Jobs), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				out[i], errs[i] = readCharacteristicsLog(ctx, logs[i], p)
				if errs[i] != nil {
					failed.Store(true)
				}
				prog.Step("characteristics: interaction logs", int(done.Add(1)), n)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readCharacteristicsLog streams one log into an InteractionLog. Errors
// name the file (with line and column where there is one) and the dataset.
func readCharacteristicsLog(ctx *Context, d DatasetSpec, p analyses.Preprocessing) (*analyses.LogSummary, error) {
	if s, ok := d.Attrs["rating_threshold"]; ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !analyses.Finite(v) {
			return nil, fmt.Errorf("dataset %q: rating_threshold = %q is not a number", d.Name, s)
		}
		p.Threshold, p.HasThreshold = v, true
	}
	t, err := ctx.OpenTable(d.Interactions)
	if err != nil {
		return nil, fmt.Errorf("dataset %q: interactions: %w", d.Name, err)
	}
	defer ctx.inputs.closeCounted(ctx.Path(d.Interactions), t)
	col := func(name string) (int, error) {
		i := t.Col(name)
		if i < 0 {
			return -1, fmt.Errorf("%s:1: dataset %q: the interaction log has no %q column (header: %s; want user,item[,rating][,timestamp])%s",
				t.File, d.Name, name, strings.Join(t.Header, ","), suggestColumn(name, t.Header))
		}
		return i, nil
	}
	uc, err := col("user")
	if err != nil {
		return nil, err
	}
	ic, err := col("item")
	if err != nil {
		return nil, err
	}
	rc := t.Col("rating")
	if p.HasThreshold && rc < 0 {
		return nil, fmt.Errorf("%s:1: dataset %q: rating_threshold = %g needs a rating column (header: %s)", t.File, d.Name, p.Threshold, strings.Join(t.Header, ","))
	}
	at := func(err error) error {
		var ie *InputError
		if errors.As(err, &ie) {
			e := *ie
			e.Msg = fmt.Sprintf("dataset %q: %s", d.Name, e.Msg)
			return &e
		}
		return fmt.Errorf("dataset %q: %w", d.Name, err)
	}
	l := analyses.NewInteractionLog()
	for {
		rec, err := t.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, at(err)
		}
		user, item := rec[uc], rec[ic]
		if user == "" {
			return nil, at(t.Errorf(uc, "empty user id"))
		}
		if item == "" {
			return nil, at(t.Errorf(ic, "empty item id"))
		}
		r := math.NaN()
		if rc >= 0 {
			v, ok, err := t.Float(rc)
			if err != nil {
				return nil, at(err)
			}
			if ok {
				if !analyses.Finite(v) {
					return nil, at(t.Errorf(rc, "rating is not a finite number: %q", rec[rc]))
				}
				r = v
			} else if p.HasThreshold {
				return nil, at(t.Errorf(rc, "empty rating (rating_threshold needs every rating)"))
			}
		}
		l.Add(user, item, r)
	}
	s, err := l.Finish(p)
	if err != nil {
		return nil, fmt.Errorf("%s: dataset %q: %w", t.File, d.Name, err)
	}
	return s, nil
}

func characteristicsMethod(from string, o *analyses.CharacteristicsOptions) string {
	var b strings.Builder
	if from == analyses.CharFromLogs {
		pre := []string{"repeated (user, item) pairs are merged first, keeping the last rating in file order"}
		if o.RatingThreshold != nil {
			pre = append(pre, fmt.Sprintf("ratings below τ = %g are dropped (a dataset attribute `rating_threshold` overrides τ for that dataset, as the seed's per-dataset thresholds, App. A.1)", *o.RatingThreshold))
		} else {
			pre = append(pre, "a dataset with the attribute `rating_threshold` keeps only ratings at or above it")
		}
		if o.MinItem > 0 || o.MinUser > 0 {
			pre = append(pre, fmt.Sprintf("items with fewer than %d interactions are dropped, then users with fewer than %d (one pass each, items first: the seed's F-filter, §3.2)", o.MinItem, o.MinUser))
		}
		if o.Core > 0 {
			pre = append(pre, fmt.Sprintf("then the %d-core: users and items with fewer than %d interactions are dropped repeatedly until none is left", o.Core, o.Core))
		}
		fmt.Fprintf(&b, "Each dataset's interaction log is read streaming; %s. The `-preprocessing` table counts the interactions each step removed.\n", strings.Join(pre, "; "))
		b.WriteString(`The eighteen features follow seed 001 §4.3 (after Deldjoo et al. 2021) as defined in SPEC §5.6: Nu, Ni, Nr; SpaceSize = Nu·Ni; Shape = Nu/Ni; Density = Nr/(Nu·Ni); Rpu = Nr/Nu; Rpi = Nr/Ni; Gini_u and Gini_i = 1 − 2Σ(n+1−i)c₍ᵢ₎/((n+1)Σc) over the per-user / per-item counts sorted ascending; the popularity bias of a user is the mean, over their items, of the share of users who interacted with the item, summarised as APB (mean), StPB (population sd), SkPB (skewness) and KuPB (excess kurtosis); the long tail is what remains after the head, the shortest prefix of items sorted by count (descending, ties by item id in byte order) holding at least 80% of interactions (decided in integers, 5·head ≥ 4·Nr), and each user's share of long-tail items is summarised as LTavg, LTstd, LTsk, LTku. Skewness and kurtosis are the biased moment estimators (scipy's defaults) and are undefined (left empty, with a note) when the values are constant.
`)
	} else {
		b.WriteString("The features are read from the `characteristics` input, as given; a column that names one of the eighteen features of SPEC §5.6 with other case or underscores (seed 001's file has `Ginii`, `Giniu`) is shown under the spec's name (`Gini_i`, `Gini_u`).\n")
	}
	if o.Metric != "" {
		fmt.Fprintf(&b, `Each feature is related to each method's per-dataset %s over the datasets where both are present, and to all (dataset, method) pairs pooled (column %s): Pearson's r and Spearman's ρ (as scipy.stats), and the mutual information in nats by the Kraskov–Stögbauer–Grassberger k-nearest-neighbour estimator with k = %d, computed as scikit-learn's mutual_info_regression (each variable divided by its standard deviation, max-norm neighbours, negative estimates set to 0) but without its 1e-10 random jitter, so the value is deterministic; on continuous data without ties the two agree. The estimate needs more than k pairs.`, o.Metric, analyses.CharPooled, o.Neighbors)
	}
	return b.String()
}
