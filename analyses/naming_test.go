package analyses

import (
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNamingColumn: table columns and statistics ids get their labels
// from the one Naming, declared labels first.
func TestNamingColumn(t *testing.T) {
	t.Parallel()
	n := Naming{Metrics: map[string]string{"ndcg@10": "NDCG at 10"}, Methods: map[string]string{"MostPop": "Most popular"},
		Rules: map[string]string{"dm_auc": "DM-AUC", "mean": "Mean", "mean_rank": "Mean rank"}}
	for _, c := range []struct{ id, want string }{
		{"friedman_statistic", "Friedman statistic"},
		{"dm_auc", "DM-AUC"},
		{"dm_auc_rank", "DM-AUC rank"},
		{"mean_rule_rank", "Mean rank"},
		{"ndcg@10", "NDCG at 10"},              // declared beats built in
		{"NDCG@10", "NDCG at 10"},              // metrics match case-insensitively
		{"ndcg@20", "nDCG@20"},                 // built in
		{"delta_mred_gender", "Δ mred_gender"}, // a metric without a label
		{"delta_rmse", "Δ RMSE"},               //
		{"drop_datasets_area", "Removing datasets: area"},
		{"rho_subsets_5", "ρ subsets (5)"},
		{"rho_vs_all_12", "ρ vs all (12)"}, // any size reads as the default ones
		{"LTku", "Long-tail kurtosis"},
		{"d_optimal", "D-optimal"},
		{"no_such_column", "no_such_column"},
	} {
		if got := n.Column(c.id); got != c.want {
			t.Errorf("Column(%q) = %q, want %q", c.id, got, c.want)
		}
	}
	if got := n.Cell("method", "MostPop"); got != "Most popular" {
		t.Errorf("Cell(method, MostPop) = %q", got)
	}
	if got := n.Cell("quantity", "friedman_p"); got != "Friedman p" {
		t.Errorf("Cell(quantity, friedman_p) = %q", got)
	}
	if got := n.Cell("dataset", "MostPop"); got != "MostPop" {
		t.Errorf("a method's label leaked to a dataset: %q", got)
	}
	if got := (Naming{}).Metric("hit_rate"); got != "hit_rate" {
		t.Errorf("a metric that is not built in got a label: %q", got)
	}
}

// TestFormatP: a p-value is written one way in tables, captions and
// findings: four decimals, two significant digits in e-notation below
// 0.001, a computed 0 as a bound; in a sentence "p = …" or "p < …".
func TestFormatP(t *testing.T) {
	t.Parallel()
	for p, want := range map[float64]string{0.04: "0.0400", 0.0373: "0.0373", 0.001: "0.0010", 2.4e-4: "2.4e-04", 6.493e-30: "6.5e-30", 0: "< 1e-300"} {
		if got := FormatP(p); got != want {
			t.Errorf("FormatP(%g) = %q, want %q", p, got, want)
		}
	}
	if got := PClause(0); got != "p < 1e-300" {
		t.Errorf("PClause(0) = %q", got)
	}
	if got := PClause(6.493e-30); got != "p = 6.5e-30" {
		t.Errorf("PClause(6.493e-30) = %q", got)
	}
}

// TestFormatInterval: an estimate and its interval share one precision,
// from the interval's width: two significant digits of it.
func TestFormatInterval(t *testing.T) {
	t.Parallel()
	if d := DecimalsFor(0.0543); d != 3 {
		t.Errorf("DecimalsFor(0.0543) = %d, want 3", d)
	}
	if d := DecimalsFor(0); d != 2 {
		t.Errorf("DecimalsFor(0) = %d, want 2", d)
	}
	// a bound that rounds to zero is written as the tables write it,
	// with its sign: the interval does not cross zero
	if got := FormatInterval(-0.061832, -0.089004, -0.0000001, 3); got != "-0.062 [-0.089, -1.0e-07]" {
		t.Errorf("FormatInterval = %q", got)
	}
	if got := FormatInterval(0, math.Copysign(0, -1), 0.5, 2); got != "0.00 [0.00, 0.50]" {
		t.Errorf("FormatInterval of zeros = %q", got)
	}
}

// TestCount: a number agrees with its noun.
func TestCount(t *testing.T) {
	t.Parallel()
	if got := Count(1, "dataset", "datasets") + ", " + Count(4, "dataset", "datasets") + ", " + Count(0, "outlier", "outliers"); got != "1 dataset, 4 datasets, 0 outliers" {
		t.Errorf("Count: %q", got)
	}
}

// TestNoLazyPlurals: no text a reader sees writes "dataset(s)": notes,
// captions, findings and errors say "1 dataset" or "4 datasets" (Count).
func TestNoLazyPlurals(t *testing.T) {
	t.Parallel()
	lazy := regexp.MustCompile(`[a-z]\(s\)`)
	// inString reports whether byte i of a line of Go lies within a
	// double-quoted string: after an odd number of unescaped quotes
	inString := func(line string, i int) bool {
		n := 0
		for j := 0; j < i; j++ {
			if line[j] == '\\' {
				j++
			} else if line[j] == '"' {
				n++
			}
		}
		return n%2 == 1
	}
	for _, dir := range []string{".", "../figures", "../report"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(b), "\n") {
				for _, m := range lazy.FindAllStringIndex(line, -1) {
					if inString(line, m[0]) {
						t.Errorf("%s:%d: %s", path, i+1, strings.TrimSpace(line))
						break
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestFormatSig: a number in a sentence keeps its significant zeros
// (%g wrote a geometric mean of 0.04199 as 0.042 beside 0.1206 and
// 0.02297); a number fewer digits write exactly stays short.
func TestFormatSig(t *testing.T) {
	for _, c := range []struct {
		x    float64
		n    int
		want string
	}{
		{0.04199714831931194, 4, "0.04200"},
		{0.1206, 4, "0.1206"},
		{2.8333333, 4, "2.833"},
		{16.8166, 4, "16.82"},
		{245, 4, "245"},
		{0, 4, "0"},
		{0.29, 4, "0.29"},
		{5.5, 4, "5.5"},
		{1234.56, 4, "1235"}, // no trailing point
		{0.8, 4, "0.8"},
		{-3, 3, "-3"},
		{1.5e-7, 3, "1.5e-07"},
		{1.523e-7, 3, "1.52e-07"},
		{-0.0997, 2, "-0.10"},
		{123456.7, 3, "1.23e+05"},
		{math.NaN(), 3, "NaN"},
	} {
		if got := FormatSig(c.x, c.n); got != c.want {
			t.Errorf("FormatSig(%v, %d) = %q, want %q", c.x, c.n, got, c.want)
		}
	}
}
