package model

import (
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// TestColumnLabels: generic column ids are shown as labels, the study's
// names as its labels, and a CI's two bounds as one interval column at
// the analysis's level.
func TestColumnLabels(t *testing.T) {
	t.Parallel()
	n := analyses.Naming{Metrics: map[string]string{"ndcg@10": "nDCG@10"}, Rules: map[string]string{"dm_auc": "DM-AUC"},
		Methods: map[string]string{"MostPop": "Most popular"}}
	for id, want := range map[string]string{"dm_auc_rank": "DM-AUC rank", "p_paired_t": "p (paired t)", "ndcg@10": "nDCG@10",
		"mean_diff": "Mean difference", "ai": "Events (treatment)", "n1i": "n (treatment)", "yi": "yi", "ti": "Person-time", "best_method_area": analyses.PerturbationLabels["best_method"] + ": area", "Gini_u": "Gini (users)", "odd_thing": "Odd thing",
		// a metric without a label: Δ and its name as the study gives it, as
		// its rows, captions and axes write it
		"delta_mred_gender": "Δ mred_gender", "delta_diversity": "Δ diversity", "delta_ndcg@10": "Δ nDCG@10"} {
		if got := ColumnLabel(id, n); got != want {
			t.Errorf("ColumnLabel(%q) = %q, want %q", id, got, want)
		}
	}
	tab := analyses.Table{Columns: []string{"method", "effect", "ci_low", "ci_high", "p"}, Rows: [][]any{
		{"MostPop", 0.5, 0.25, 0.75, 0.01}, {"EASE", -0.125, -0.5, 0.25, 0.2}}}
	spec := NewTable(tab, "m", TableOptions{Naming: n, Alpha: 0.1})
	var heads []string
	for _, c := range spec.Columns {
		heads = append(heads, c.Header())
	}
	if got := strings.Join(heads, "|"); got != "Method|Effect|90% CI|p" {
		t.Errorf("headers %s", got)
	}
	if got := spec.Rows[0][0]; got.Text != "Most popular" || got.Title != "MostPop" {
		t.Errorf("method cell %+v, want the label with the id as its title", got)
	}
	if got := spec.Rows[1][2].Text; got != "[-0.50, 0.25]" {
		t.Errorf("interval %q", got)
	}
}

// TestTiesAreNotWins: a column's best cell alone is MarkBest and its
// second MarkSecond; cells tied for the best (analyses.Tied) are all
// MarkTied and none is a win; a column whose cells all tie marks none.
func TestTiesAreNotWins(t *testing.T) {
	t.Parallel()
	best := 0.08490566037735849
	tab := analyses.Table{Columns: []string{"method", "mean", "error", "same"},
		Better: map[string]string{"mean": "higher", "error": "lower", "same": "higher"},
		Rows: [][]any{
			{"A", best, 0.3, 1.0},
			{"B", 0.08490566037735850, 0.1, 1.0}, // mean tied with A
			{"C", best * (1 - 1e-6), 0.2, 1.0},
			{"D", nil, nil, 1.0},
		}}
	spec := NewTable(tab, "t", TableOptions{})
	want := [][]CellMark{
		{MarkNone, MarkTied, MarkNone, MarkNone},
		{MarkNone, MarkTied, MarkBest, MarkNone},
		{MarkNone, MarkNone, MarkSecond, MarkNone},
		{MarkNone, MarkNone, MarkNone, MarkNone},
	}
	for i, r := range spec.Rows {
		for j, c := range r {
			if c.Mark != want[i][j] {
				t.Errorf("row %d column %s: mark %d, want %d", i, spec.Columns[j].ID, c.Mark, want[i][j])
			}
		}
	}
	if spec.Rows[3][1].Undefined == "" || spec.UndefinedNote == "" {
		t.Error("a missing value has no reason")
	}
}

// stabilityTables is a stability summary and its curves: plurality's
// best_method area is ρ = 1 at one perturbed matrix of 31 (the other 30
// give no ρ), dm_auc's is over 21 of 31, borda's over all 31, mean's
// over none.
func stabilityTables() []analyses.Table {
	main := analyses.Table{Title: "Stability of each aggregation rule", Columns: []string{"rule", "best_method_area"},
		Rows: [][]any{{"dm_auc", 0.905}, {"plurality", 1.0}, {"borda", 0.97}, {"mean", nil}}}
	curves := analyses.Table{Name: "curves", Columns: []string{"perturbation", "rule", "size", "mean_rho", "sd_rho", "count", "undefined"}}
	for k := 0; k < 31; k++ {
		size := 1 + float64(k)/10
		pl, auc := 0, 1
		if k == 0 {
			pl = 1
		}
		if k >= 21 {
			auc = 0
		}
		curves.Rows = append(curves.Rows,
			[]any{"best_method", "dm_auc", size, 0.9, nil, auc, 1 - auc},
			[]any{"best_method", "plurality", size, nil, nil, pl, 1 - pl},
			[]any{"best_method", "borda", size, 0.97, nil, 1, 0},
			[]any{"best_method", "mean", size, nil, nil, 0, 1})
	}
	return []analyses.Table{main, curves}
}

// TestStabilityAreaCounts: an area over some undefined ρ carries its
// count of defined values ("1/31"), an area over none is undefined with
// its reason, and an area over fewer than half is never the best.
func TestStabilityAreaCounts(t *testing.T) {
	t.Parallel()
	tabs := stabilityTables()
	spec := NewTable(tabs[0], "stability", TableOptions{Siblings: tabs, Naming: analyses.Naming{Rules: map[string]string{"plurality": "Plurality"}}})
	got := map[string]Cell{}
	for _, r := range spec.Rows {
		got[r[0].Text] = r[1]
	}
	if c := got["Plurality"]; c.CountText() != "1/31" || c.Mark != MarkNone {
		t.Errorf("plurality's area %+v, want 1/31 defined and no mark", c)
	}
	if c := got["dm_auc"]; c.CountText() != "21/31" {
		t.Errorf("dm_auc's area %+v, want 21/31", c)
	}
	if c := got["borda"]; c.Partial() || c.Mark != MarkBest {
		t.Errorf("borda's area %+v, want a whole summary and the best", c)
	}
	if c := got["mean"]; !strings.Contains(c.Undefined, "ρ is undefined") {
		t.Errorf("mean's area %+v, want undefined with its reason", c)
	}
	if spec.CountNote == "" {
		t.Error("no note explains the counts")
	}
}

// TestHeterogeneityIntervals: the Q-profile intervals of τ², I² and H²
// are one interval column each, labelled at the table's level (not
// "Tau2 ci low" and five more columns), and H²'s, as H² itself, is a
// detail the paper's table may leave to the CSV.
func TestHeterogeneityIntervals(t *testing.T) {
	t.Parallel()
	tab := analyses.Table{Columns: []string{"group", "tau2", "I2", "H2", "tau2_ci_low", "tau2_ci_high", "I2_ci_low", "I2_ci_high", "H2_ci_low", "H2_ci_high"},
		Rows: [][]any{{"all", 0.02, 98.2, 56.0, 0.01, 0.06, 96.5, 99.4, 28.7, 156.6}}}
	spec := NewTable(tab, "m", TableOptions{Alpha: 0.1})
	var heads []string
	detail := map[string]bool{}
	for _, c := range spec.Columns {
		heads = append(heads, c.Header())
		detail[c.Header()] = c.Detail
	}
	if got := strings.Join(heads, "|"); got != "Group|τ²|I² (%)|H²|90% CI of τ²|90% CI of I² (%)|90% CI of H²" {
		t.Errorf("headers %s", got)
	}
	if !detail["H²"] || !detail["90% CI of H²"] || detail["90% CI of τ²"] {
		t.Errorf("details %v: want H² and its interval only", detail)
	}
	if got := spec.Rows[0][4].Text; !strings.HasPrefix(got, "[") || !strings.Contains(got, ", ") {
		t.Errorf("τ²'s interval %q", got)
	}
}

// TestOneLabelPerColumn: a column the study's built-in terms name
// (analyses.Terms, which findings, macros and figures use) has the same
// label in a table, so a reader meets one name for one thing ("Cook's
// distance", not "Cook's D" in the table and "Cook's distance" in a
// sentence). The exceptions name different things under one id.
func TestOneLabelPerColumn(t *testing.T) {
	t.Parallel()
	differ := map[string]string{
		"spearman": "the term names the method (\"Mean Spearman correlation\"), the column its coefficient (\"Spearman ρ\")",
		"pearson":  "the term names the method, the column its coefficient (\"Pearson r\")",
	}
	for id, info := range columnInfos {
		if l, ok := analyses.Terms[id]; ok && l != info.label && differ[id] == "" {
			t.Errorf("%s: the table says %q, analyses.Terms %q", id, info.label, l)
		}
	}
}

// TestQuantityLabelsShown: every label of quantityLabels is the one a
// table of named quantities shows; one the study's naming (Terms) also
// gives would never be shown, and would say otherwise than the page.
func TestQuantityLabelsShown(t *testing.T) {
	for id, want := range quantityLabels {
		if got := CellLabel("quantity", id, analyses.Naming{}); got != want {
			t.Errorf("quantity %s is shown as %q (the naming's); its label here, %q, is never shown", id, got, want)
		}
	}
}

// TestColumnNamedAfterRowKey: in a metric × metric matrix each column
// is headed as its row is labelled: a labelled metric by its label, an
// unlabelled one by its id in both places ("time_fit@5", not "Time
// fit@5" above the column and "time_fit@5" beside the row).
func TestColumnNamedAfterRowKey(t *testing.T) {
	n := analyses.Naming{Metrics: map[string]string{"ndcg@10": "nDCG@10"}}
	tab := analyses.Table{Columns: []string{"metric", "ndcg@10", "time_fit@5", "diversity@5"}, Rows: [][]any{
		{"ndcg@10", 1.0, 0.4, -0.1}, {"time_fit@5", 0.4, 1.0, 0.2}, {"diversity@5", -0.1, 0.2, 1.0}}}
	spec := NewTable(tab, "corr", TableOptions{Naming: n})
	for i, c := range spec.Columns[1:] {
		if row := spec.Rows[i][0].Text; c.Label != row {
			t.Errorf("column %s is headed %q, its row %q", c.ID, c.Label, row)
		}
	}
	if spec.Columns[1].Label != "nDCG@10" || spec.Columns[2].Label != "time_fit@5" {
		t.Errorf("headers %q, %q", spec.Columns[1].Label, spec.Columns[2].Label)
	}
}

// TestStabilitySizeColumns: stability's reliability columns read alike,
// and rank higher as better, whatever the subset sizes ("ρ subsets (5)"
// beside "ρ subsets (12)", not "ρ, subsets of 12").
func TestStabilitySizeColumns(t *testing.T) {
	tab := analyses.Table{Columns: []string{"rule", "rho_subsets_5", "rho_subsets_12", "rho_vs_all_5", "rho_vs_all_12"},
		Rows: [][]any{{"mean", 0.9, 0.8, 0.95, 0.85}, {"dm_auc", 0.7, 0.6, 0.75, 0.65}}}
	spec := NewTable(tab, "stab", TableOptions{Naming: analyses.Naming{}})
	want := []string{"ρ subsets (5)", "ρ subsets (12)", "ρ vs all (5)", "ρ vs all (12)"}
	for i, c := range spec.Columns[1:] {
		if c.Label != want[i] || c.Better != "higher" {
			t.Errorf("column %s: %q, better %q; want %q, higher", c.ID, c.Label, c.Better, want[i])
		}
	}
}

// TestFeatureColumnsNamedByTheNaming: a dataset characteristic heads its
// column with the label its rows and sentences use (analyses.FeatureLabels:
// "Interactions"), not one of its own ("Ratings" above the column,
// "Interactions" in the association table's rows of the same page).
func TestFeatureColumnsNamedByTheNaming(t *testing.T) {
	var n analyses.Naming
	for id, want := range analyses.FeatureLabels {
		if got := ColumnLabel(id, n); got != want || CellLabel("feature", id, n) != want {
			t.Errorf("feature %s: column %q, row %q; want %q", id, got, CellLabel("feature", id, n), want)
		}
	}
}

// TestIntervalSharesItsEstimatesFormat: τ² and its interval print in one
// format, chosen from the values of both ("4.49e-04" beside
// "[3.51e-04, 1.08e-03]", not beside "[0.000351, 0.001077]"); so do H²
// and its interval.
func TestIntervalSharesItsEstimatesFormat(t *testing.T) {
	tab := analyses.Table{Columns: []string{"group", "tau2", "tau2_ci_low", "tau2_ci_high", "H2", "H2_ci_low", "H2_ci_high"}, Rows: [][]any{
		{"all", 0.000449, 0.000351, 0.001077, 13.3, 10.62, 30.5},
		{"books", 0.00015, 0.0000245, 0.00176, 4.797, 1.62, 45.488}}}
	spec := NewTable(tab, "m", TableOptions{})
	at := map[string]int{}
	for j, c := range spec.Columns {
		at[c.ID] = j
	}
	for _, pair := range [][2]string{{"tau2", "tau2_ci_low"}, {"H2", "H2_ci_low"}} {
		e, v := spec.Columns[at[pair[0]]], spec.Columns[at[pair[1]]]
		if e.Format != v.Format {
			t.Errorf("%s is printed as %+v, its interval as %+v", pair[0], e.Format, v.Format)
		}
	}
	if got := spec.Rows[0][at["tau2"]].Text + " " + spec.Rows[0][at["tau2_ci_low"]].Text; got != "4.49e-04 [3.51e-04, 1.08e-03]" {
		t.Errorf("τ² and its interval: %s", got)
	}
}
