package model

import (
	"math"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// TestColumnFormats: a column's numbers share one format chosen from its
// values; the expected texts follow the rules in docs/READING.md.
func TestColumnFormats(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		vals []any
		want []string
	}{
		// ragged four-significant-digit columns become fixed decimals
		{"ndcg", []any{0.1197, 0.09429, 0.0868}, []string{"0.11970", "0.09429", "0.08680"}},
		// whole numbers as integers, whatever their Go type
		{"count", []any{3.0, 12.0, int64(7)}, []string{"3", "12", "7"}},
		// half ranks: the fewest decimals that write every value exactly
		{"mean_rank_rank", []any{1.0, 2.5, 2.5}, []string{"1.0", "2.5", "2.5"}},
		// a non-zero value the column's decimals would round to zero
		{"mean_diff", []any{0.5, 0.25, 1e-7}, []string{"0.5000", "0.2500", "1.0e-07"}},
		// p-values keep their tail: never 0 (an underflow is a bound),
		// and what float64 holds is printed
		{"p_holm", []any{0.0, 1e-300, 2e-16, 3.2e-7, 0.00081, 0.0345, 1.0}, []string{"< 1e-300", "1.0e-300", "2.0e-16", "3.2e-07", "8.1e-04", "0.0345", "1.0000"}},
		{"p", []any{0.5, 0.0, 1.065e-42}, []string{"0.5000", "< 1e-300", "1.1e-42"}},
		// big or tiny columns in e-notation, three significant digits
		{"seconds", []any{1234567.5, 2.25e7 + 0.25}, []string{"1.23e+06", "2.25e+07"}},
		{"users", []any{1.5e6, 2.25e7}, []string{"1500000", "22500000"}},
		{"variance", []any{1.5e-9, 2.25e-9}, []string{"1.50e-09", "2.25e-09"}},
		// a column named like a p-value but outside [0, 1] is no p-value
		{"t_p", []any{-2.5, 3.25}, []string{"-2.50", "3.25"}},
	} {
		f := ChooseFormat(c.name, c.vals)
		for i, v := range c.vals {
			got := makeCell(Column{ID: c.name, Format: f}, v, analyses.Naming{}).Text
			if got != c.want[i] {
				t.Errorf("%s %v: %v shown as %q, want %q", c.name, c.vals, v, got, c.want[i])
			}
		}
	}
	// Monte Carlo estimates: 0 and 1 of the draws are bounds at the
	// resolution, 1/draws (0 of 50,000 draws was "< 1e-15").
	for _, c := range []struct {
		draws int
		p     float64
		want  string
	}{
		{50000, 0, "< 2e-5"}, {50000, 1, "> 1 − 2e-5"}, {50000, 3.0 / 50000, "6.0e-05"}, {50000, 0.25, "0.2500"},
		{10000, 0, "< 1e-4"}, {30000, 0, "< 3.4e-5"}, {1000, 0, "< 0.001"},
	} {
		f := NumberFormat{Kind: NumMonteCarlo, Res: 1 / float64(c.draws)}
		if got := makeCell(Column{Format: f}, c.p, analyses.Naming{}).Text; got != c.want {
			t.Errorf("%g of %d draws shown as %q, want %q", c.p, c.draws, got, c.want)
		}
	}
	if got := makeCell(Column{Format: NumberFormat{Kind: NumFixed, Decimals: 2}}, math.NaN(), analyses.Naming{}).Text; got != "—" {
		t.Errorf("NaN shown as %q", got)
	}
}
