package report

import (
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
	"strconv"
	"strings"
	"testing"
)

// The messages a new user meets: each case names the message a mistake
// used to get and the one it gets now, which points at the manifest
// key's line (or the input's file and line) and lists the valid names.

// TestManifestMessages: problems found in the manifest alone.
func TestManifestMessages(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, old, src string
		want           []string
		once           string // a message that must appear exactly once
	}{
		{"authors as a string",
			`authors: toml: incompatible types: TOML value has type string; destination has type slice`,
			"title = \"t\"\nauthors = \"Me\"\n",
			[]string{`study.toml:2: authors is a list: ["Me"]`}, ""},
		{"unknown analysis type",
			`unknown type "cd_diagram"`,
			"title = \"t\"\n[[analyses]]\nid = \"cd\"\ntype = \"cd_diagram\"\n",
			[]string{`study.toml:4: analyses[0] (cd): unknown type "cd_diagram"; valid: ` + quotedTypes()}, ""},
		{"unknown rule",
			`unknown rule "dolan_more"`,
			"title = \"t\"\n[[analyses]]\nid = \"lb\"\ntype = \"aggregate\"\nmetric = \"m\"\nrules = [\"dolan_more\"]\n",
			[]string{`study.toml:6: analyses (lb): rules: unknown rule "dolan_more"; valid: "dm_auc", "dm_lbo", "mean_rank", "mean", "geometric_mean", "harmonic_mean", "copeland", "minimax", "borda", "plurality", "dowdall"`}, ""},
		{"metric as a columns key",
			`unknown column "ndcg@10"`,
			"title = \"t\"\n[inputs]\nresults = [{ path = \"ndcg.csv\", columns = { \"ndcg@10\" = \"Value\" } }]\n",
			[]string{`study.toml:3: inputs.results[0].columns: unknown column "ndcg@10"`,
				`valid: "dataset", "method", "metric", "value", "unit", "k", "run", "feature"`,
				`write metric = "ndcg@10", columns = { value = "Value" }`}, ""},
		{"unknown input entry key, once",
			`unknown key "metrc"` + " (printed twice)",
			"title = \"t\"\n[inputs]\nresults = { path = \"r.csv\", metrc = \"ndcg@10\" }\n",
			[]string{`study.toml:3: inputs.results: unknown key "metrc" (did you mean "metric"?); valid: "columns", "dataset", "duplicates", "ignore", "layout", "method", "metric", "missing", "missing_values", "path"`},
			`unknown key "metrc"`},
		{"metric on a characteristics entry",
			`unknown key "metric"`,
			"title = \"t\"\n[inputs]\ncharacteristics = { path = \"c.csv\", metric = \"ndcg@10\" }\n",
			[]string{`study.toml:3: inputs.characteristics[0].metric: only results and units entries take this key`}, ""},
		{"metric and a metric column",
			"(new key)",
			"title = \"t\"\n[inputs]\nresults = { path = \"r.csv\", metric = \"ndcg@10\", columns = { metric = \"M\" } }\n",
			[]string{`study.toml:3: inputs.results[0]: metric = "ndcg@10" and columns.metric both say which metric a value is; keep one`}, ""},
		{"a list as a dataset attribute",
			`datasets[0].tags: want a string, got []interface {}`,
			"title = \"t\"\n[[datasets]]\nname = \"a\"\ntags = [\"x\"]\n",
			[]string{`study.toml:4: datasets[0].tags: an attribute is a string, number or boolean, not a list`}, ""},
		{"compare names no attribute",
			`(built with exit 0 and a null adjusted Rand index)`,
			"title = \"t\"\n[[datasets]]\nname = \"a\"\npaper_cluster = 1\n[[analyses]]\nid = \"cl\"\ntype = \"clusters\"\ncompare = \"papercluster\"\n",
			[]string{`study.toml:8: analyses (cl): compare: no [[datasets]] entry has an attribute "papercluster" (did you mean "paper_cluster"?); valid: "paper_cluster"`}, ""},
		{"methods entry",
			"(new table)",
			"title = \"t\"\n[[methods]]\nname = \"Random\"\nbaseline = true\n[[methods]]\nname = \"Random\"\n[[methods]]\nlabel = \"x\"\nbaselin = true\n",
			[]string{`study.toml:6: methods[1]: method "Random" is declared twice`, `study.toml:7: methods[2].name: required`,
				`study.toml:9: methods[2]: unknown key "baselin" (did you mean "baseline"?); valid: "baseline", "label", "name"`}, ""},
		{"an entry of an array written over several lines",
			`study.toml:3: inputs.results[1].columns: unknown column "ndcg@10" (the line of results =)`,
			"title = \"t\"\n[inputs]\nresults = [\n  \"a.csv\",  # the first\n  { path = \"ndcg.csv\", columns = { \"ndcg@10\" = \"Value\" } },\n  { path = \"r.csv\", missing = \"zeros\" }\n]\n",
			[]string{`study.toml:5: inputs.results[1].columns: unknown column "ndcg@10"`, `study.toml:6: inputs.results[2].missing: unknown value "zeros" (did you mean "zero"?); valid: "zero", "drop"`}, ""},
		{"metric label key",
			"(new key)",
			"title = \"t\"\n[[metrics]]\nname = \"ndcg@10\"\nlabl = \"nDCG@10\"\n",
			[]string{`study.toml:4: metrics[0]: unknown key "labl" (did you mean "label"?); valid: "better", "label", "max", "name"`}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := parse(t, c.src)
			if err == nil {
				t.Fatalf("no error (was: %s)", c.old)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\ndoes not contain\n%s", err, w)
				}
			}
			if c.once != "" {
				if n := strings.Count(err.Error(), c.once); n != 1 {
					t.Errorf("%q reported %d times:\n%v", c.once, n, err)
				}
			}
		})
	}
}

// TestManifestAcceptsSpellings: what was refused and is now read.
func TestManifestAcceptsSpellings(t *testing.T) {
	t.Parallel()
	src := `title = "t"
[[metrics]]
name  = "ndcg@10"
label = "nDCG@10"
[[datasets]]
name = "ml-1m"
label = "MovieLens 1M"
paper_cluster = 1
weight = 0.5
public = true
[[methods]]
name = "Random"
baseline = true
[[methods]]
name = "EASE"
label = "EASE (Steck 2019)"
`
	s, err := manifest.ParseStudy("/study/study.toml", []byte(src), kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	attrs := s.Dataset("ml-1m").Attrs
	for k, want := range map[string]string{"paper_cluster": "1", "weight": "0.5", "public": "true"} {
		if attrs[k] != want {
			t.Errorf("attribute %s = %q, want %q (was: want a string, got int64)", k, attrs[k], want)
		}
	}
	if _, ok := attrs["label"]; ok {
		t.Error("label is kept as an attribute")
	}
	for _, c := range []struct {
		kind      manifest.LabelKind
		id, label string
	}{
		{manifest.LabelMetric, "ndcg@10", "nDCG@10"},
		{manifest.LabelMetric, "NDCG@10", "nDCG@10"},     // metric names are case-insensitive, as [[metrics]] are
		{manifest.LabelMetric, "recall@10", "Recall@10"}, // built in: a metric offline_metrics derives
		{manifest.LabelMetric, "hit_rate", "hit_rate"},   // no label: the id
		{manifest.LabelDataset, "ml-1m", "MovieLens 1M"},
		{manifest.LabelMethod, "EASE", "EASE (Steck 2019)"},
		{manifest.LabelMethod, "Random", "Random"},
		{manifest.LabelRule, "dm_auc", "DM-AUC"},
		{manifest.LabelRule, "mean_rank", "Mean rank"},
	} {
		if got := s.Label(c.kind, c.id); got != c.label {
			t.Errorf("Label(%v, %q) = %q, want %q", c.kind, c.id, got, c.label)
		}
	}
	if !s.IsBaseline("Random") || s.IsBaseline("EASE") {
		t.Errorf("baselines: %v", s.Baselines())
	}
	n := s.Naming()
	if n.Method("EASE") != "EASE (Steck 2019)" || n.Rule("borda") != "Borda" || !n.IsBaseline("Random") {
		t.Errorf("naming %+v", n)
	}
}

// firstHourResults is 4 datasets × 3 methods of ndcg@10 in the shapes a
// researcher has: one file per metric, columns named their own way.
const firstHourNDCG = `Method,Dataset,Value
EASE,ml,0.40
EASE,lastfm,0.30
EASE,books,0.20
EASE,news,0.10
ALS,ml,0.30
ALS,lastfm,0.35
ALS,books,0.10
ALS,news,0.05
Random,ml,0.01
Random,lastfm,0.02
Random,books,0.03
Random,news,0.04
`

// TestOneFilePerMetric: `metric = "…"` on a results entry names the
// metric of a file that holds only values (Method,Dataset,Value), one
// file per metric; the leaderboard reads them as one results table.
func TestOneFilePerMetric(t *testing.T) {
	t.Parallel()
	out := mustBuild(t, `-- study.toml --
title = "One file per metric"
[inputs]
results = [
  { path = "ndcg.csv",   metric = "ndcg@10",   columns = { value = "Value" } },
  { path = "recall.csv", metric = "recall@10" },
]
[[analyses]]
id = "lb"
type = "aggregate"
metric = "ndcg@10"
rules = ["mean"]
[[analyses]]
id = "lb-recall"
type = "aggregate"
metric = "recall@10"
methods = ["EASE", "ALS"]
datasets = ["ml", "lastfm"]
rules = ["mean"]
-- ndcg.csv --
`+firstHourNDCG+`-- recall.csv --
method,dataset,value
EASE,ml,0.5
EASE,lastfm,0.7
ALS,ml,0.6
ALS,lastfm,0.6
`)
	// mean over datasets, by hand from the CSV: EASE (0.4+0.3+0.2+0.1)/4,
	// ALS (0.3+0.35+0.1+0.05)/4, Random (0.01+0.02+0.03+0.04)/4
	js := readJSON(t, out, "data/lb.json")
	rows := js["tables"].(map[string]any)["lb"].([]any)
	want := map[string]float64{"EASE": 0.25, "ALS": 0.2, "Random": 0.025}
	for _, r := range rows {
		row := r.(map[string]any)
		m := row["method"].(string)
		if got := row["mean"].(float64); !nearlyEqual(got, want[m]) {
			t.Errorf("mean of %s = %v, want %v", m, got, want[m])
		}
	}
	js = readJSON(t, out, "data/lb-recall.json")
	rows = js["tables"].(map[string]any)["lb-recall"].([]any)
	// EASE (0.5+0.7)/2 and ALS (0.6+0.6)/2: one score, one shared rank
	for _, r := range rows {
		row := r.(map[string]any)
		if len(rows) != 2 || !nearlyEqual(row["mean"].(float64), 0.6) || row["mean_rule_rank"] != 1.5 {
			t.Errorf("recall leaderboard %v", rows)
		}
	}
}

func nearlyEqual(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// TestInputMessages: problems found reading the inputs.
func TestInputMessages(t *testing.T) {
	t.Parallel()
	lb := "[[analyses]]\nid = \"lb\"\ntype = \"aggregate\"\nmetric = \"%s\"\n"
	cases := []struct {
		name, old, manifest string
		files               map[string]string
		want                []string
		not                 []string
	}{
		{"metric name in another case",
			`no metric "nDCG@10"`,
			"[inputs]\nresults = { path = \"ndcg.csv\", metric = \"ndcg@10\", columns = { value = \"Value\" } }\n" + strings.Replace(lb, "%s", "nDCG@10", 1),
			map[string]string{"ndcg.csv": firstHourNDCG},
			[]string{`study.toml:7: analyses/lb: no metric "nDCG@10" in the results (did you mean "ndcg@10"?); valid: "ndcg@10"`}, nil},
		{"metric constant, file with a metric column",
			"(new key)",
			"[inputs]\nresults = { path = \"long.csv\", metric = \"ndcg@10\" }\n" + strings.Replace(lb, "%s", "ndcg@10", 1),
			map[string]string{"long.csv": "dataset,method,metric,value\nd,A,ndcg@10,1\nd,B,ndcg@10,2\n"},
			[]string{`long.csv:1: the file has a metric column and its input entry (study.toml:3) fixes metric = "ndcg@10"; keep one`}, nil},
		{"metric constant, no value column",
			"(new key)",
			"[inputs]\nresults = { path = \"ndcg.csv\", metric = \"ndcg@10\" }\n" + strings.Replace(lb, "%s", "ndcg@10", 1),
			map[string]string{"ndcg.csv": strings.Replace(firstHourNDCG, "Value", "Score", 1)},
			[]string{`ndcg.csv:1: no column "value" (header: Method,Dataset,Score) (with metric = "ndcg@10" the file needs a value column: map it with columns = { value = "…" })`}, nil},
		{"missing = drop would drop most datasets",
			`(hint: set missing = "drop", which left 3 of 30 datasets)`,
			"[inputs]\nresults = \"r.csv\"\n" + strings.Replace(lb, "%s", "ndcg@10", 1),
			map[string]string{"r.csv": "dataset,method,ndcg@10\nml,EASE,0.4\nml,ALS,0.3\nml,Random,0.01\nbooks,EASE,0.2\nbooks,ALS,0.1\nbooks,Random,\nnews,EASE,0.1\nnews,ALS,0.05\nnews,Random,\n"},
			[]string{`no value for dataset "books", method "Random"; 2 of 3 datasets lack a value for some method (Random lacks 2): leave those methods out with methods = ["EASE", "ALS"] (missing = "drop" would keep only 1 of 3 datasets)`},
			[]string{`set missing = "drop"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			b.WriteString("-- study.toml --\ntitle = \"t\"\n" + c.manifest)
			for name, body := range c.files {
				b.WriteString("-- " + name + " --\n" + body)
			}
			_, err := buildStudy(t, b.String())
			if err == nil {
				t.Fatalf("no error (was: %s)", c.old)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\ndoes not contain\n%s", err, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nstill says\n%s", err, w)
				}
			}
		})
	}
}

// TestWideCharacteristicsTextColumn: a wide characteristics file with a
// Method column failed with `:2:303: not a number: "EASE"`; the error now
// says the column was read as a feature and how to leave it out, and
// ignore = ["Method"] does.
func TestWideCharacteristicsTextColumn(t *testing.T) {
	t.Parallel()
	file := "-- chars.csv --\ndataset,Method,Density,Ginii\nml,EASE,0.01,0.8\nbooks,EASE,0.002,0.6\n"
	in := studyInputs(t, "-- study.toml --\ntitle = \"t\"\n[inputs]\ncharacteristics = \"chars.csv\"\n"+file)
	_, err := in.Characteristics()
	want := `chars.csv:2:4: column "Method" is read as a feature (in a wide file every other column is one): not a number: "EASE"; to leave it out, add ignore = ["Method"] to the input entry`
	if err == nil || err.Error() != want {
		t.Fatalf("error\n%v\nwant\n%s", err, want)
	}
	in = studyInputs(t, "-- study.toml --\ntitle = \"t\"\n[inputs]\ncharacteristics = { path = \"chars.csv\", ignore = [\"method\"] }\n"+file)
	c, err := in.Characteristics()
	if err != nil {
		t.Fatal(err)
	}
	// Ginii takes the README's spelling, Gini_i, for every analysis
	if strings.Join(c.Features, ",") != "Density,Gini_i" || c.Value["books"]["Gini_i"] != 0.6 {
		t.Errorf("features %v, values %v", c.Features, c.Value)
	}
}

// TestFeatureSpellings: feature names compare ignoring case and
// underscores everywhere: `features = ["Ginii"]` selects Gini_i, naming
// one feature twice is an error at the features key (it gave a header
// with Gini_i twice), and a file that spells one feature two ways is an
// error at the second column.
func TestFeatureSpellings(t *testing.T) {
	t.Parallel()
	study := func(features string) string {
		return "-- study.toml --\ntitle = \"t\"\n[inputs]\ncharacteristics = \"chars.csv\"\n[[analyses]]\nid = \"ch\"\ntype = \"characteristics\"\nfeatures = " + features +
			"\n-- chars.csv --\ndataset,Density,Gini_i\nml,0.01,0.8\nbooks,0.002,0.6\nnews,0.03,0.7\n"
	}
	out := mustBuild(t, study(`["Ginii", "density"]`))
	if got := readFile(t, out, "data/ch-features.csv"); !strings.HasPrefix(got, "dataset,Gini_i,Density\n") {
		t.Errorf("features table %q", got)
	}
	_, err := buildStudy(t, study(`["Gini_i", "Ginii"]`))
	if want := `study.toml:7: analyses (ch): features: "Gini_i" and "Ginii" are one feature (feature names ignore case and underscores); name it once`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
	_, err = buildStudy(t, study(`["Gini_u"]`))
	// found when the analysis runs, reported at the key's line (7), not
	// the [[analyses]] header's (4)
	if want := `study.toml:7: analyses/ch: features: no feature "Gini_u" in the characteristics (did you mean "Gini_i"?); valid: "Density", "Gini_i"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
	in := studyInputs(t, "-- study.toml --\ntitle = \"t\"\n[inputs]\ncharacteristics = \"chars.csv\"\n-- chars.csv --\ndataset,Gini_i,Ginii\nml,0.8,0.8\n")
	if _, err := in.Characteristics(); err == nil || err.Error() != `chars.csv:2:8: feature "Ginii" is also given as "Gini_i": feature names ignore case and underscores, so they are one feature; keep one spelling` {
		t.Errorf("error %v", err)
	}
}

// TestBaselineNeverHeadline (end to end): Random is declared a baseline
// and is both the best method of the leaderboard and the method whose
// performance a feature explains best (its nDCG follows Density exactly).
// The overview's findings name EASE instead, say that the baseline ranks
// above, and show labels rather than ids.
func TestBaselineNeverHeadline(t *testing.T) {
	t.Parallel()
	out := mustBuild(t, `-- study.toml --
title = "Baselines"
[[metrics]]
name  = "ndcg@10"
label = "nDCG@10"
[[methods]]
name     = "Random"
baseline = true
[[methods]]
name  = "EASE"
label = "EASE (Steck 2019)"
[inputs]
results         = "results.csv"
characteristics = "chars.csv"
[[analyses]]
id     = "lb"
type   = "aggregate"
metric = "ndcg@10"
rules  = ["mean", "dm_auc"]
[[analyses]]
id     = "ch"
type   = "characteristics"
metric = "ndcg@10"
-- results.csv --
dataset,method,ndcg@10
d1,Random,0.50
d1,EASE,0.30
d1,ALS,0.10
d2,Random,0.60
d2,EASE,0.12
d2,ALS,0.20
d3,Random,0.70
d3,EASE,0.25
d3,ALS,0.15
d4,Random,0.80
d4,EASE,0.28
d4,ALS,0.05
-- chars.csv --
dataset,Density,Users
d1,0.01,400
d2,0.02,100
d3,0.03,300
d4,0.04,200
`)
	readme := readFile(t, out, "README.md")
	// mean over datasets: Random 0.65, EASE 0.2375, ALS 0.125
	for _, want := range []string{
		"On nDCG@10 over 4 datasets, EASE (Steck 2019) ranks first under Mean (0.2375)",
		"the baseline Random ranks above them under Mean and DM-AUC",
		// Spearman by hand (1 − 6Σd²/(n(n²−1)), n = 4): with Density Random 1 (a baseline), EASE −0.2,
		// ALS −0.4; with Users Random −0.2, EASE 0.8, ALS −0.4
		"Users is the feature most associated with nDCG@10 of EASE (Steck 2019) (Spearman 0.8000), baseline Random left out",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("findings lack %q:\n%s", want, readme)
		}
	}
	for _, bad := range []string{"Random ranks first", "of Random", "ndcg@10 over"} {
		if strings.Contains(readme, bad) {
			t.Errorf("findings say %q", bad)
		}
	}
}

// TestKeyLinesOfArrayElements: each element of an array written over
// several lines has its own line, so an entry's error points at it.
func TestKeyLinesOfArrayElements(t *testing.T) {
	t.Parallel()
	src := `title = "t"
[inputs]
results = ["a.csv",
  "b.csv", # two on one line? no: one
  { path = "c.csv", columns = { value = "V" } }, { path = "d.csv" },
  # a comment line
  { path = "e[1].csv" },
]
units = [{ path = "u.csv" }]
characteristics = "x.csv"
`
	lines := manifest.KeyLines([]byte(src))
	for key, want := range map[string]int{
		"inputs.results": 3, "inputs.results.0": 3, "inputs.results.1": 4, "inputs.results.2": 5,
		"inputs.results.4": 7, "inputs.units": 9, "inputs.characteristics": 10,
	} {
		if lines[key] != want {
			t.Errorf("line of %s = %d, want %d", key, lines[key], want)
		}
	}
	if _, ok := lines["inputs.results.3"]; ok {
		t.Error("the second element of a line got a line of its own")
	}
}

// TestDeclaredMethodTypo: a [[methods]] entry that misspells a method of
// the results would make its baseline flag apply to nothing (and the
// baseline a headline): an error naming the entry's line.
func TestDeclaredMethodTypo(t *testing.T) {
	t.Parallel()
	_, err := buildStudy(t, "-- study.toml --\ntitle = \"t\"\n[[methods]]\nname = \"Randm\"\nbaseline = true\n[inputs]\nresults = { path = \"ndcg.csv\", metric = \"ndcg@10\" }\n[[analyses]]\nid = \"lb\"\ntype = \"aggregate\"\nmetric = \"ndcg@10\"\n-- ndcg.csv --\n"+firstHourNDCG)
	if want := `study.toml:7: analyses/lb: methods[0] (study.toml:3): no method "Randm" in the results (did you mean "Random"?)`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
}

// TestUnitsOneFilePerMetric: `metric = "…"` also names the metric of a
// units file holding one value per unit (user,score), one file per
// method and metric; the paired test reads it as any units file.
func TestUnitsOneFilePerMetric(t *testing.T) {
	t.Parallel()
	out := mustBuild(t, `-- study.toml --
title = "Units, one file per metric"
[inputs]
units = [{ path = "users/{method}_ndcg.csv", dataset = "ml", metric = "ndcg@10", columns = { unit = "user", value = "score" } }]
[[analyses]]
id      = "pairs"
type    = "paired_tests"
metric  = "ndcg@10"
dataset = "ml"
-- users/EASE_ndcg.csv --
user,score
u1,0.30
u2,0.50
u3,0.40
u4,0.20
-- users/ALS_ndcg.csv --
user,score
u1,0.10
u2,0.45
u3,0.40
u4,0.05
`)
	js := readJSON(t, out, "data/pairs.json")
	rows := js["tables"].(map[string]any)["pairs"].([]any)
	if len(rows) != 1 {
		t.Fatalf("pairs %v", rows)
	}
	row := rows[0].(map[string]any)
	// differences by hand: 0.2, 0.05, 0, 0.15 (either order of the pair)
	d := row["mean_diff"].(float64)
	if row["n"].(float64) != 4 || !(nearlyEqual(d, 0.1) || nearlyEqual(d, -0.1)) {
		t.Errorf("pair %v", row)
	}
	// the file's metric column would contradict the entry
	_, err := buildStudy(t, "-- study.toml --\ntitle = \"t\"\n[inputs]\nunits = { path = \"u.csv\", dataset = \"ml\", metric = \"ndcg@10\" }\n[[analyses]]\nid = \"pairs\"\ntype = \"paired_tests\"\nmetric = \"ndcg@10\"\ndataset = \"ml\"\n-- u.csv --\nmethod,unit,metric,value\nA,1,ndcg@10,0.1\nB,1,ndcg@10,0.2\n")
	if want := `u.csv:1: the file has a metric column and its input entry (study.toml:3) fixes metric = "ndcg@10"; keep one`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
}

// quotedTypes lists the registered analysis types as the manifest's
// error lists them ("a", "b", …), from the registry, so the test does not
// hard-code the list an added kind extends.
func quotedTypes() string {
	types := kinds.Kinds().Types()
	for i, t := range types {
		types[i] = strconv.Quote(t)
	}
	return strings.Join(types, ", ")
}
