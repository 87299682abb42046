package analyses_test

import (
	"fmt"

	"github.com/evalbook/evalbook/analyses"
)

// RankScores ranks with 1 = best; 0.30 and 0.30 + 1e-12 are tied (within
// TieTolerance) and share ranks 1 and 2. With lower-is-better scores the
// order is reversed.
func ExampleRankScores() {
	fmt.Println(analyses.RankScores([]float64{0.30, 0.25, 0.30 + 1e-12}, true))
	fmt.Println(analyses.RankScores([]float64{0.9, 1.1, 1.0}, false))
	// Output:
	// [1.5 3 1.5]
	// [1 3 2]
}

// Leaders gives every method that shares the best rank.
func ExampleLeaders() {
	fmt.Println(analyses.Leaders([]float64{1.5, 3, 1.5}))
	// Output:
	// [0 2]
}

// DidYouMean is how every unknown name in a manifest gets its hint.
func ExampleDidYouMean() {
	fmt.Printf("unknown rule %q%s\n", "mean_rnak", analyses.DidYouMean("mean_rnak", []string{"mean", "mean_rank", "borda"}))
	// Output:
	// unknown rule "mean_rnak" (did you mean "mean_rank"?)
}
