package kinds

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

// Kind is one analysis type of the registry: its name, its options and
// how to run it. A new analysis is one file in analyses/, one in figures/,
// one Kind here (kind_<type>.go, which registers itself) and its method
// note (notes/<type>.md).
type Kind struct {
	Type    string
	Summary string // one line, for docs and `evalbook validate`
	// NewOptions returns a pointer to a fresh options struct holding the
	// defaults. The [[analyses]] table is decoded into it by its `toml`
	// tags; keys it does not declare are errors. If it has a method
	// `Validate() error`, or `Check(*Study) error`, they are called after
	// decoding and their error is reported at the analysis's line.
	NewOptions func() any
	// Run computes the analysis from its decoded options.
	Run func(ctx *Job, opts any) (*Output, error)
	// Feeds marks a kind whose outputs become inputs of the others
	// (offline_metrics): its analyses run first, and the Results and Units
	// of their Output are added to the study's results and units.
	Feeds bool
	// Units, when set, makes the kind a reader of the study's per-unit
	// values: it returns the sink for an analysis with these options (nil
	// when they read no units). The build feeds every such sink of a
	// phase in one shared pass over the units files before their Run is
	// called, and Run gets the fed sink back from ctx.ReadUnits.
	Units func(ctx *Job, opts any) load.UnitsSink
	// Check, when set, checks options against the rest of the manifest
	// (a dataset attribute an option names); an *analyses.OptionError
	// is reported at its key's line.
	Check func(s *manifest.Study, opts any) error
	// Title, when set, titles an analysis whose manifest gives no title,
	// from its options and the study's names ("Leaderboard: nDCG@10");
	// without it, or when it returns "", the title is the analysis's id.
	Title func(s *manifest.Study, opts any) string
}

// Titled returns k titled by a function of its typed options (see
// Kind.Title).
func Titled[O any](k Kind, title func(s *manifest.Study, o *O) string) Kind {
	k.Title = func(s *manifest.Study, opts any) string {
		if o, ok := opts.(*O); ok {
			return title(s, o)
		}
		return ""
	}
	return k
}

// titleOf is an untitled analysis's title: what it is, then its
// subject (a metric's label, "BPR vs MF") when it has one.
func titleOf(what, subject string) string {
	if subject == "" {
		return what
	}
	return what + ": " + subject
}

// metricTitle titles the analyses of a kind by what they are and the
// label of their metric option.
func metricTitle[O any](k Kind, what string, metric func(*O) string) Kind {
	return Titled(k, func(s *manifest.Study, o *O) string {
		return titleOf(what, metricLabel(s, metric(o)))
	})
}

// metricLabels are the labels of metrics, joined by commas.
func metricLabels(s *manifest.Study, metrics []string) string {
	labels := make([]string, len(metrics))
	for i, m := range metrics {
		labels[i] = metricLabel(s, m)
	}
	return strings.Join(labels, ", ")
}

// metricLabel is a metric's label, or "" for no metric.
func metricLabel(s *manifest.Study, metric string) string {
	if metric == "" {
		return ""
	}
	return s.Label(manifest.LabelMetric, metric)
}

// Output is what a run hands to the site writer.
type Output struct {
	Result  analyses.Result
	Figures []figures.Figure
	// Method is the method note in Markdown: what was computed, the paper
	// and reference implementation it follows, and the choices this tool
	// made where the paper is silent.
	Method string
	// Results are rows (dataset, method, metric, value) added to the
	// study's results, and Units streams values added to its units, for
	// the analyses that follow; only kinds with Feeds set provide them.
	Results []load.ResultRow
	Units   func(fn func(u *load.UnitRow) error) error
}

// NewKind builds a Kind from a typed run function, so each registration
// is one call: NewKind("aggregate", "…", runAggregate) where
// runAggregate(ctx *Job, o *leaderboard.AggregateOptions) (*Output, error)
// and O's zero value, after an optional Defaults() method, holds the
// defaults.
func NewKind[O any](typ, summary string, run func(*Job, *O) (*Output, error)) Kind {
	return Kind{
		Type:    typ,
		Summary: summary,
		NewOptions: func() any {
			o := new(O)
			if d, ok := any(o).(interface{ Defaults() }); ok {
				d.Defaults()
			}
			return o
		},
		Run: func(ctx *Job, opts any) (*Output, error) {
			o, ok := opts.(*O)
			if !ok {
				panic(fmt.Sprintf("report: %s options have type %v", typ, reflect.TypeOf(opts)))
			}
			out, err := run(ctx, o)
			if err == nil && out != nil && out.Result != nil {
				ctx.directionNotes(out)
			}
			return out, err
		},
	}
}

// registered are the constructors of the built-in kinds: each kind's
// file registers its own (func init() { register(spreadKind) }), so
// adding an analysis type touches no list.
var registered []func() Kind

// register adds a kind's constructor to the built-in registry.
func register(k func() Kind) { registered = append(registered, k) }
