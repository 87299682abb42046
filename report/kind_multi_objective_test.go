package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// evalrs2022Manifest is a study over the EvalRS 2022 submissions with the
// challenge's stage-two constants, as listed in
// shared/reference/evalrs2022/SOURCE.txt (from the repository README and
// RecList/evalRS-CIKM-2022 EvalRSRunner.py, class PhaseOne).
const evalrs2022Manifest = `
title = "EvalRS 2022 post-mortem"

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
func runStudyAnalysis(t *testing.T, dir, manifest string) *Output {
	t.Helper()
	s, err := ParseStudy(filepath.Join(dir, "study.toml"), []byte(manifest), Kinds())
	if err != nil {
		t.Fatal(err)
	}
	a := s.Analyses[0]
	ctx := &Context{ID: a.ID, Title: a.Title, Study: s, Seed: deriveSeed(s.Seed, a.ID), Jobs: 1, inputs: newInputs(s), progress: noProgress{}}
	out, err := a.Kind.Run(ctx, a.Options)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func runStudyError(t *testing.T, dir, manifest string) error {
	t.Helper()
	s, err := ParseStudy(filepath.Join(dir, "study.toml"), []byte(manifest), Kinds())
	if err != nil {
		return err
	}
	a := s.Analyses[0]
	ctx := &Context{ID: a.ID, Title: a.Title, Study: s, Jobs: 1, inputs: newInputs(s), progress: noProgress{}}
	_, err = a.Kind.Run(ctx, a.Options)
	return err
}

// TestMultiObjectiveEvalRS2022 is the acceptance test of issue 8: the
// leaderboard of each participant's best 2022 score reproduces the
// official top five. The five numbers are the published leaderboard
// (seed 004's repository README), compared at their 2 decimals.
func TestMultiObjectiveEvalRS2022(t *testing.T) {
	t.Parallel()
	ref, err := filepath.Abs(evalrs2022Reference)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ref); err != nil {
		t.Skipf("reference data absent: %v", err)
	}
	out := runStudyAnalysis(t, t.TempDir(), fmt.Sprintf(evalrs2022Manifest, filepath.ToSlash(ref), "evalrs2022"))
	r := out.Result.(*analyses.MultiObjectiveResult)
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
