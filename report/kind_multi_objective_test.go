package report

import (
	"encoding/csv"
	"fmt"
	"github.com/evalbook/evalbook/internal/pqtest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/multiobjective"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
)

// evalrs2022Manifest is a study over the EvalRS 2022 submissions with the
// challenge's stage-two constants, as listed in
// shared/reference/evalrs2022/SOURCE.txt (from the repository README and
// RecList/evalRS-CIKM-2022 EvalRSRunner.py, class PhaseOne).
const evalrs2022Manifest = `
title = "EvalRS 2022 post-mortem"
allow_outside = true

[[analyses]]
id = "evalrs"
type = "multi_objective"
input = { path = "%s", columns = { model = "participant_id" } }
base = "hit_rate"
objectives = ["mrr", "mred_country", "mred_track_popularity", "mred_artist_popularity", "mred_user_activity", "mred_gender", "being_less_wrong", "latent_diversity"]
rank_by = "%s"

[analyses.evalrs2022]
baseline = { hit_rate = 0.018763, mrr = 0.001654, mred_country = -0.006944, mred_user_activity = -0.012460, mred_track_popularity = -0.006816, mred_artist_popularity = -0.003915, mred_gender = -0.004354, being_less_wrong = 0.2744871, latent_diversity = -0.324706 }
best = { hit_rate = 0.264642, mrr = 0.067493, mred_country = -0.004490, mred_user_activity = -0.006922, mred_track_popularity = -0.005865, mred_artist_popularity = -0.003623, mred_gender = -0.000032, being_less_wrong = 0.40635, latent_diversity = -0.202812 }
threshold = { hit_rate = 0.015 }

[analyses.evalrs2022.groups]
performance = { weight = 1.0, metrics = ["hit_rate", "mrr"] }
fairness = { weight = 1.5, metrics = ["mred_country", "mred_user_activity", "mred_track_popularity", "mred_artist_popularity", "mred_gender"] }
behavioural = { weight = 1.5, metrics = ["being_less_wrong", "latent_diversity"] }
`

const evalrs2022Reference = "../../shared/reference/evalrs2022/evalrs_2022_submissions.parquet.snappy"

// runStudyAnalysis parses a manifest in dir and runs its first analysis.
func runStudyAnalysis(t *testing.T, dir, manifestPath string) *kinds.Output {
	t.Helper()
	s, err := manifest.ParseStudy(filepath.Join(dir, "study.toml"), []byte(manifestPath), kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	a := s.Analyses[0]
	ctx := &kinds.Job{ID: a.ID, Title: a.Title, Study: s, Seed: kinds.DeriveSeed(s.Seed, a.ID), Workers: 1, Inputs: newInputs(s), ProgressTo: kinds.NoProgress{}}
	out, err := kinds.Kinds()[a.Type].Run(ctx, a.Options)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func runStudyError(t *testing.T, dir, manifestPath string) error {
	t.Helper()
	s, err := manifest.ParseStudy(filepath.Join(dir, "study.toml"), []byte(manifestPath), kinds.Kinds())
	if err != nil {
		return err
	}
	a := s.Analyses[0]
	ctx := &kinds.Job{ID: a.ID, Title: a.Title, Study: s, Workers: 1, Inputs: newInputs(s), ProgressTo: kinds.NoProgress{}}
	_, err = kinds.Kinds()[a.Type].Run(ctx, a.Options)
	return err
}

// TestMultiObjectiveEvalRS2022 is the acceptance test of issue 8: the
// leaderboard of each participant's best 2022 score reproduces the
// official top five. The five numbers are the published leaderboard
// (the README of the EvalRS 2022 repository, RecList/evalRS-CIKM-2022,
// after Chia et al. 2023), compared at their 2 decimals.
func TestMultiObjectiveEvalRS2022(t *testing.T) {
	t.Parallel()
	ref, err := filepath.Abs(evalrs2022Reference)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ref); err != nil {
		skipWithoutReference(t, err)
	}
	out := runStudyAnalysis(t, t.TempDir(), fmt.Sprintf(evalrs2022Manifest, filepath.ToSlash(ref), "evalrs2022"))
	r := out.Result.(*multiobjective.Result)
	if len(r.Models) != 770 {
		t.Fatalf("read %d submissions, want 770", len(r.Models))
	}
	tables := r.Tables()
	lb := tables[1]
	if lb.Name != "leaderboard" || len(lb.Rows) != 57 {
		t.Fatalf("leaderboard %q has %d rows, want 57 participants", lb.Name, len(lb.Rows))
	}
	published := []string{"1.70", "1.55", "1.33", "1.18", "1.14"}
	for i, want := range published {
		got := lb.Rows[i][2].(float64)
		if s := fmt.Sprintf("%.2f", got); s != want {
			t.Errorf("leaderboard #%d (%s): best 2022 score %.4f, published %s", i+1, lb.Rows[i][0], got, want)
		}
	}
	// The main table keeps one row per submission, with the 2022 score.
	if len(tables[0].Rows) != 770 || tables[0].Columns[3] != "evalrs2022_score" {
		t.Fatalf("main table: %d rows, columns %v", len(tables[0].Rows), tables[0].Columns)
	}
	// The note reports the fitted slopes and the implied importances.
	fits := tables[2]
	for _, row := range fits.Rows {
		if row[0] == "mrr" {
			// Hit rate and MRR agree: one submission is best on both, so
			// the pair has no trade-off to fit and mrr leaves the score.
			if row[1] != 1 || row[2] != nil || !strings.Contains(strings.Join(r.Notes(), "\n"), "(hit_rate, mrr) has 1 distinct point") {
				t.Errorf("mrr: %d Pareto points, slope %v, notes %q", row[1], row[2], r.Notes())
			}
			continue
		}
		if row[2] == nil || row[5] == nil {
			t.Errorf("fit of %s: slope %v, implied importance %v", row[0], row[2], row[5])
			continue
		}
		slope := fmt.Sprintf("%.4g", row[2].(float64))
		if !strings.Contains(out.Method, fmt.Sprintf("- %s: slope β = %s", row[0], slope)) {
			t.Errorf("method note does not report the slope of %s (%s)", row[0], slope)
		}
		t.Logf("%-24s points %3d  slope %+.6g  intercept %+.6g  r2 %.4f  implied importance %.4g", row[0], row[1], row[2], row[3], row[4], row[5])
	}
	for i := 0; i < 5; i++ {
		t.Logf("#%d %s 2022 %.4f new %.4g", i+1, lb.Rows[i][0], lb.Rows[i][2], lb.Rows[i][1])
	}
	if len(out.Figures) != 8+2 {
		t.Errorf("%d figures, want 8 trade-offs, the comparison and the front", len(out.Figures))
	}
}

var moStudy = studyFixture("mo")

// TestMultiObjectiveBuild builds a study end to end, once from CSV and
// once from the same leaderboard written as Parquet: the two sites must
// hold the same numbers.
func TestMultiObjectiveBuild(t *testing.T) {
	t.Parallel()
	csvSite := mustBuild(t, fmt.Sprintf(moStudy, "subs.csv"))
	type sub struct {
		Team      string  `parquet:"team"`
		HitRate   float64 `parquet:"hit_rate"`
		Fairness  float64 `parquet:"fairness"`
		Diversity float64 `parquet:"diversity"`
	}
	var rows []sub
	for _, line := range strings.Split(strings.TrimSpace(strings.SplitN(moStudy, "-- subs.csv --\n", 2)[1]), "\n")[1:] {
		var s sub
		f := strings.Split(line, ",")
		s.Team = f[0]
		fmt.Sscan(f[1], &s.HitRate)
		fmt.Sscan(f[2], &s.Fairness)
		fmt.Sscan(f[3], &s.Diversity)
		rows = append(rows, s)
	}
	pq := filepath.Join(t.TempDir(), "subs.parquet")
	pqtest.Write(t, pq, rows)
	pqSite := mustBuild(t, fmt.Sprintf(moStudy, filepath.ToSlash(pq)))
	for _, f := range []string{"data/mo.csv", "data/mo-leaderboard.csv", "data/mo-fits.csv", "data/mo-results.csv"} {
		if a, b := readFile(t, csvSite, f), readFile(t, pqSite, f); a != b {
			t.Errorf("%s differs between CSV and Parquet input:\n%s\n%s", f, a, b)
		}
	}
	lb := readFile(t, csvSite, "data/mo-leaderboard.csv")
	if !strings.HasPrefix(lb, "model,best_score,best_evalrs2022_score\n") || strings.Count(lb, "\n") != 5 {
		t.Errorf("leaderboard:\n%s", lb)
	}
	main := readFile(t, csvSite, "data/mo.csv")
	if !strings.HasPrefix(main, "model,front,score,evalrs2022_score,delta_fairness,delta_diversity\n") || strings.Count(main, "\n") != 8 {
		t.Errorf("main table:\n%s", main)
	}
	// green's second submission is below the threshold: −100.
	if !strings.Contains(main, "green,") || !strings.Contains(main, ",-100,") {
		t.Errorf("no −100 below the threshold:\n%s", main)
	}
	for _, f := range []string{"mo.html", "figures/mo-tradeoff-fairness.svg", "figures/mo-tradeoff-diversity.svg", "figures/mo-evalrs2022.svg", "figures/mo-front.svg", "figures/mo-results-tradeoff-rmse.svg"} {
		if _, err := os.Stat(filepath.Join(csvSite, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	page := readFile(t, csvSite, "mo.html")
	for _, want := range []string{"Fitted trade-offs of this study", "implied λ"} {
		if !strings.Contains(page, want) {
			t.Errorf("mo.html lacks %q", want)
		}
	}
	// From results: rmse is lower-is-better, so it is negated before the
	// front: A (0.30, −0.95), B (0.25, −0.85), C (0.20, −0.80) trade off;
	// D is dominated.
	j := readJSON(t, csvSite, "data/mo-results.json")
	front := j["front"].([]any)
	if fmt.Sprint(front) != "[1 1 1 2]" {
		t.Errorf("results fronts %v, want [1 1 1 2]", front)
	}
	// Parquet is recorded in the provenance like any input.
	if !strings.Contains(readFile(t, pqSite, "data/provenance.json"), "subs.parquet") {
		t.Error("provenance does not list the Parquet input")
	}
}

// TestMultiObjectiveInputErrors: problems in the input name the file and
// the column.
func TestMultiObjectiveInputErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ edit, want string }{
		{`s/"hit_rate"/"hitrate"/`, `subs.csv:1: no column "hitrate"`},
		{`s/model = "team"/model = "squad"/`, `no column "squad" (mapped from "model")`},
		{`s/red,0.40/red,abc/`, `subs.csv:2:5: not a number: "abc"`},
	}
	for _, c := range cases {
		src := fmt.Sprintf(moStudy, "subs.csv")
		parts := strings.Split(c.edit, "/")
		src = strings.Replace(src, parts[1], parts[2], 1)
		_, err := buildStudy(t, src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.edit, err, c.want)
		}
	}
}

// moIDsStudy is a challenge whose teams submit several times: team and
// submission together identify a row.
var moIDsStudy = studyFixture("mo_ids")

// TestMultiObjectiveIdentifiers: an input's identifier columns
// (input.ids) stay in every table and data file, so two submissions of
// one team are two rows a reader can tell apart; the leaderboard names
// the submission that scored each team's best; a repeated (team,
// submission) is an error at its line; without ids, rows sharing a team
// get a warning that says how to keep them apart.
func TestMultiObjectiveIdentifiers(t *testing.T) {
	t.Parallel()
	site := mustBuild(t, fmt.Sprintf(moIDsStudy, `, ids = ["submission"]`))
	main := readCSV(t, site, "data/mo.csv")
	if got := strings.Join(main[0][:3], ","); got != "model,submission,front" {
		t.Fatalf("data/mo.csv header %v, want model, submission, front, …", main[0])
	}
	want := []string{"aurora 1", "aurora 2", "aurora 3", "basalt 1", "basalt 2"}
	var got []string
	best := map[string][2]string{} // team → submission, score of its best row
	scoreCol := -1
	for i, c := range main[0] {
		if c == "score" {
			scoreCol = i
		}
	}
	for _, row := range main[1:] {
		got = append(got, row[0]+" "+row[1])
		if b, ok := best[row[0]]; !ok || parseF(t, row[scoreCol]) > parseF(t, b[1]) {
			best[row[0]] = [2]string{row[1], row[scoreCol]}
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows (model, submission) %v, want %v", got, want)
	}
	lb := readCSV(t, site, "data/mo-leaderboard.csv")
	if got := strings.Join(lb[0], ","); got != "model,submission,best_score,best_evalrs2022_score" {
		t.Errorf("leaderboard header %q", got)
	}
	for _, row := range lb[1:] {
		if b := best[row[0]]; row[1] != b[0] || row[2] != b[1] {
			t.Errorf("leaderboard row %v: want submission %s with score %s (the team's best row of data/mo.csv)", row, b[0], b[1])
		}
	}
	// The page's table shows the submission of every row.
	page := readFile(t, site, "mo.html")
	for _, w := range want {
		team, sub, _ := strings.Cut(w, " ")
		if !regexp.MustCompile(`<td[^>]*>` + team + `</td>\s*<td[^>]*>` + sub + `</td>`).MatchString(page) {
			t.Errorf("mo.html: no table row %s, submission %s", team, sub)
		}
	}
	if j := readJSON(t, site, "data/mo.json"); fmt.Sprint(j["id_columns"]) != "[submission]" {
		t.Errorf("data/mo.json id_columns = %v", j["id_columns"])
	}

	// Without ids: the same rows, and a warning that says what to do.
	plain := mustBuild(t, fmt.Sprintf(moIDsStudy, ""))
	if w := fmt.Sprint(readJSON(t, plain, "data/mo.json")["warnings"]); !strings.Contains(w, "5 rows share their model id") || !strings.Contains(w, "ids = [") {
		t.Errorf("no warning about rows that share a model id: %s", w)
	}

	for _, c := range []struct{ ids, edit, want string }{
		{`, ids = ["submission"]`, "basalt,2,", `subs.csv:6:8: model "basalt" with submission 1 repeats data row 4`},
		{`, ids = ["round"]`, "", `input.ids: subs.csv:1: no column "round"`},
		{`, ids = ["team"]`, "", `"team" is the model's column`},
		{`, ids = ["hit_rate"]`, "", `"hit_rate" is a metric of the analysis`},
		{`, ids = ["submission", "submission"]`, "", `input.ids`},
		{`, id = ["submission"]`, "", `input: unknown key "id" (did you mean "ids"?)`},
	} {
		src := fmt.Sprintf(moIDsStudy, c.ids)
		if c.edit != "" {
			src = strings.Replace(src, c.edit, "basalt,1,", 1)
		}
		_, err := buildStudy(t, src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ids%s, edit %q: error %v, want %q", c.ids, c.edit, err, c.want)
		}
	}
}

func readCSV(t *testing.T, dir, name string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(readFile(t, dir, name))).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("%s: %v", name, err)
	}
	return rows
}

func parseF(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return f
}
