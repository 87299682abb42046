package report

import (
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
	"strings"
	"testing"
)

func parse(t *testing.T, src string) error {
	t.Helper()
	_, err := manifest.ParseStudy("/study/study.toml", []byte(src), kinds.Kinds())
	return err
}

// TestManifestErrors: every problem names file and line, with a hint.
func TestManifestErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src string
		want      []string
	}{
		{"unknown top key", "title = \"t\"\ntitel = \"x\"\n", []string{`study.toml:2: unknown key "titel" (did you mean "title"?)`}},
		{"unknown analysis key", `title = "t"

[[analyses]]
id = "lb"
type = "aggregate"
metric = "ndcg"
rulez = ["borda"]
`, []string{`study.toml:7: analyses[0] (lb): unknown key "rulez" (did you mean "rules"?)`}},
		{"unknown type", `title = "t"
[[analyses]]
id = "lb"
type = "agregate"
metric = "ndcg"
`, []string{`study.toml:4: analyses[0] (lb): unknown type "agregate" (did you mean "aggregate"?)`}},
		{"duplicate id", `title = "t"
[[analyses]]
id = "lb"
type = "aggregate"
metric = "ndcg"

[[analyses]]
id = "lb"
type = "aggregate"
metric = "ndcg"
`, []string{`study.toml:8: analyses[1].id: "lb" is already used by a page or another analysis (first at line 2)`}},
		{"bad id", "title = \"t\"\n[[analyses]]\nid = \"Leader Board\"\ntype = \"aggregate\"\nmetric = \"x\"\n", []string{`study.toml:3: analyses[0].id: "Leader Board" must be lower-case`}},
		{"bad rule value", `title = "t"
[[analyses]]
id = "lb"
type = "aggregate"
metric = "ndcg"
rules = ["copland"]
`, []string{`study.toml:6: analyses (lb): rules: unknown rule "copland" (did you mean "copeland"?)`}},
		{"missing metric", "title = \"t\"\n[[analyses]]\nid = \"lb\"\ntype = \"aggregate\"\n", []string{`study.toml:2: analyses (lb): metric: required`}},
		{"wrong type of value", "title = \"t\"\n[[analyses]]\nid = \"lb\"\ntype = \"aggregate\"\nmetric = \"x\"\nbeta_max = \"three\"\n", []string{`study.toml:6: analyses[0] (lb).beta_max:`}},
		{"syntax error", "title = \"t\"\nseed = = 3\n", []string{`study.toml:2:`}},
		{"metric direction", "title = \"t\"\n[[metrics]]\nname = \"rmse\"\nbetter = \"lowr\"\n", []string{`study.toml:4: metrics[0].better: unknown value "lowr" (did you mean "lower"?)`}},
		{"unknown input key", "title = \"t\"\n[inputs]\nresult = \"r.csv\"\n", []string{`study.toml:3: inputs: unknown key "result" (did you mean "results"?)`}},
		{"unknown column mapping", "title = \"t\"\n[inputs]\nunits = [{ path = \"u.csv\", columns = { usr = \"ID\" } }]\n", []string{`study.toml:3: inputs.units[0].columns: unknown column "usr"`}},
		{"missing title", "seed = 1\n", []string{`study.toml:1: title: required`}},
		// Files are named after ids and page names: a name too long for a
		// file system passed validate and failed build's write.
		// Options that applied to nothing, while the parameters table
		// showed them as used.
		{"tau2 with a fixed model", "title = \"t\"\n[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\ntreatment = \"A\"\ncontrol = \"B\"\nmetric = \"x\"\nmodel = \"fixed\"\ntau2 = \"REML\"\n", []string{`study.toml:9: analyses (m): tau2: a fixed-effect model estimates no τ²`}},
		{"ranger_compat with a summary", "title = \"t\"\n[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\nsummary = \"s.csv\"\nranger_compat = true\n", []string{`study.toml:6: analyses (m): ranger_compat: applies to per-unit values`}},
		{"samples without bayesian", "title = \"t\"\n[[analyses]]\nid = \"cd\"\ntype = \"critical_difference\"\nmetric = \"x\"\nsamples = 1000\n", []string{`study.toml:6: analyses (cd): samples: only used by the Bayesian test`}},
		// An option that applies only with another's value (appliesRules).
		{"betas without the beta perturbation", "title = \"t\"\n[[analyses]]\nid = \"s\"\ntype = \"stability\"\nmetric = \"x\"\nperturbations = [\"datasets\"]\nbetas = [2.0]\n", []string{`study.toml:7: analyses (s): betas: applies to the "beta" perturbation`}},
		{"contamination without outliers", "title = \"t\"\n[[analyses]]\nid = \"c\"\ntype = \"clusters\"\noutliers = \"none\"\ncontamination = 0.1\n", []string{`study.toml:6: analyses (c): contamination: sets the share of outliers`}},
		{"k_range with k", "title = \"t\"\n[[analyses]]\nid = \"c\"\ntype = \"clusters\"\nk = 3\nk_range = [2, 5]\n", []string{`study.toml:6: analyses (c): k_range: is searched for the best k only when k is not fixed`}},
		{"beta_max with mean_rank", "title = \"t\"\n[[analyses]]\nid = \"d\"\ntype = \"dataset_selection\"\nmetrics = [\"x\"]\nbeta_max = 4.0\n", []string{`study.toml:6: analyses (d): beta_max: applies to the dm_* rules only`}},
		{"permutations with student", "title = \"t\"\n[[analyses]]\nid = \"o\"\ntype = \"offline_metrics\"\n[analyses.compare]\ntest = \"student\"\npermutations = 5000\n", []string{`analyses (o): compare.permutations: counts the permutations of Fisher's test`}},
		// An empty list read as "all": the page listed what was never asked.
		{"empty list", "title = \"t\"\n[[analyses]]\nid = \"lb\"\ntype = \"aggregate\"\nmetric = \"x\"\nrules = []\n", []string{`study.toml:6: analyses[0] (lb).rules: an empty list; leave the key out for the default (all)`}},
		{"long id", "title = \"t\"\n[[analyses]]\nid = \"" + strings.Repeat("a", 101) + "\"\ntype = \"aggregate\"\nmetric = \"x\"\n", []string{`study.toml:3: analyses[0].id: 101 characters; at most 100`}},
		{"long slug", "title = \"t\"\n[[pages]]\ntitle = \"p\"\nsource = \"p.md\"\nslug = \"" + strings.Repeat("b", 101) + "\"\n", []string{`study.toml:5: pages[0].slug: 101 characters; at most 100`}},
		{"two problems reported", "title = \"t\"\nfoo = 1\nbar = 2\n", []string{`study.toml:2: unknown key "foo"`, `study.toml:3: unknown key "bar"`}},
		// Issue 31: an id taken by a page said "first at line 0".
		{"an analysis id a page's name took", "title = \"t\"\n[[pages]]\ntitle = \"Results\"\nsource = \"r.md\"\n[[analyses]]\nid = \"results\"\ntype = \"aggregate\"\nmetric = \"x\"\n",
			[]string{`study.toml:6: analyses[0].id: "results" is already used by a page or another analysis (first at line 2)`}},
		{"an analysis id the overview takes", "title = \"t\"\n[[analyses]]\nid = \"index\"\ntype = \"aggregate\"\nmetric = \"x\"\n",
			[]string{`study.toml:3: analyses[0].id: "index" names the site's overview page (index.html); choose another id`}},
		// Issue 35: the Explore page is explore.html.
		{"an analysis id the Explore page takes", "title = \"t\"\n[[analyses]]\nid = \"explore\"\ntype = \"aggregate\"\nmetric = \"x\"\n",
			[]string{`study.toml:3: analyses[0].id: "explore" names the site's Explore page (explore.html); choose another id`}},
		{"a page named provenance", "title = \"t\"\n[[pages]]\ntitle = \"Provenance\"\nsource = \"p.md\"\n",
			[]string{`study.toml:2: pages[0]: page name "provenance" names the site's provenance page (provenance.html); set slug = "…"`}},
		// 0 read as "unset": permutations = 0 ran 10,000 permutations.
		{"compare.permutations = 0", "title = \"t\"\n[[analyses]]\nid = \"o\"\ntype = \"offline_metrics\"\nruns = \"r/{method}_{dataset}.csv\"\ntruth = \"t/{dataset}.csv\"\n[analyses.compare]\ntest = \"fisher\"\npermutations = 0\n",
			[]string{`study.toml:9: analyses (o): compare.permutations: 0 permutations test nothing; give at least 100, or leave the key out for 10,000`}},
		{"compare.alpha = 0", "title = \"t\"\n[[analyses]]\nid = \"o\"\ntype = \"offline_metrics\"\nruns = \"r/{method}_{dataset}.csv\"\ntruth = \"t/{dataset}.csv\"\ncompare = { alpha = 0 }\n",
			[]string{`study.toml:7: analyses (o): compare.alpha: 0 is not between 0 and 1; leave the key out for 0.05`}},
		// The iprec convention: a release that is neither trec_eval 9 nor 10,
		// and the release written as a number.
		{"trec_eval = 8", "title = \"t\"\n[[analyses]]\nid = \"o\"\ntype = \"offline_metrics\"\nruns = \"r/{method}.csv\"\ntruth = \"t.csv\"\ntrec_eval = \"9.0.8\"\n",
			[]string{`study.toml:7: analyses (o): trec_eval: unknown value "9.0.8" (one of 10, 9)`}},
		{"trec_eval as a number", "title = \"t\"\n[[analyses]]\nid = \"o\"\ntype = \"offline_metrics\"\nruns = \"r/{method}.csv\"\ntruth = \"t.csv\"\ntrec_eval = 9\n",
			[]string{`study.toml:7: analyses[0] (o).trec_eval:`}},
		{"a page name twice", "title = \"t\"\n[[pages]]\ntitle = \"Notes\"\nsource = \"a.md\"\n[[pages]]\ntitle = \"notes\"\nsource = \"b.md\"\n",
			[]string{`study.toml:5: pages[1]: page name "notes" is used twice (first at line 2; set slug = "…")`}},
	}
	for _, c := range cases {
		c := c
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := parse(t, c.src)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\ndoes not contain\n%s", err, w)
				}
			}
		})
	}
}

func TestManifestParsesEverything(t *testing.T) {
	t.Parallel()
	src := "\xef\xbb\xbf" + `title    = "From Variability to Stability"
subtitle = "Companion site"
authors  = ["A. Author", "B. Author"]
date     = "2024-08-25"
doi      = "10.1145/3637528.3671655"
links    = { paper = "https://example.org/p", code = "https://example.org/c" }
license  = "CC-BY-4.0"
abstract = """
Multi-line
abstract."""
seed     = 7

[[metrics]]
name   = "RMSE"
better = "lower"
max    = 1.0

[[datasets]]
name         = "movielens-1m"
domain       = "movies"
interactions = "raw/ml-1m.csv"

[inputs]
results         = ["runs/results.csv", "runs/more/*.csv"]
units           = [{ path = "runs/{method}_{dataset}.csv", columns = { unit = "ID" }, missing = "zero" }]
characteristics = "runs/characteristics.csv"

[[pages]]
title  = "Introduction"
source = "pages/intro.md"

[[analyses]]
id      = "leaderboard"
type    = "aggregate"
title   = "Leaderboard"
caption = "c"
metric  = "nDCG@10"
rules   = ["borda", "copeland"]
beta_max = 2.5
`
	s, err := manifest.ParseStudy("/study/study.toml", []byte(src), kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "From Variability to Stability" || len(s.Authors) != 2 || s.Seed != 7 || s.Links["code"] == "" {
		t.Errorf("top level: %+v", s)
	}
	if m := s.Metric("rmse"); m.Better != 1 || m.Max != 1 {
		t.Errorf("metric: %+v", m)
	}
	if d := s.Dataset("movielens-1m"); d.Attrs["domain"] != "movies" {
		t.Errorf("dataset: %+v", d)
	}
	if len(s.Inputs.Results) != 2 || s.Inputs.Units[0].Columns["unit"] != "ID" || s.Inputs.Units[0].Missing != "zero" || len(s.Inputs.Characteristics) != 1 {
		t.Errorf("inputs: %+v", s.Inputs)
	}
	if len(s.Pages) != 1 || s.Pages[0].Slug != "introduction" {
		t.Errorf("pages: %+v", s.Pages)
	}
	a := s.Analyses[0]
	if a.ID != "leaderboard" || a.Line != 32 || a.Title != "Leaderboard" {
		t.Errorf("analysis: %+v", a)
	}
	if a.Options == nil {
		t.Fatal("no options")
	}
	p, err := manifest.ParamsMap(a.Options)
	if err != nil {
		t.Fatal(err)
	}
	if p["beta_max"] != 2.5 || p["metric"] != "nDCG@10" || len(p["rules"].([]any)) != 2 || p["missing"] != "error" {
		t.Errorf("params: %v", p)
	}
}

// TestLongPageTitleSlug: a page named after a very long title gets the
// title's first words as its file name, not a name too long to write.
func TestLongPageTitleSlug(t *testing.T) {
	t.Parallel()
	title := strings.Repeat("word ", 96)
	s, err := manifest.ParseStudy("/study/study.toml", []byte("title = \"t\"\n[[pages]]\ntitle = \""+title+"\"\nsource = \"p.md\"\n"), kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Pages[0].Slug; len(got) > manifest.MaxIDLen || !strings.HasPrefix(got, "word-word-") || strings.HasSuffix(got, "-") {
		t.Errorf("slug %q (%d characters)", got, len(got))
	}
}
