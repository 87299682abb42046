package report

import (
	"fmt"

	"github.com/evalbook/evalbook/analyses"
)

// checkNames reports the first name not among known, with a hint.
func checkNames(what string, names, known []string) error {
	set := make(map[string]bool, len(known))
	for _, k := range known {
		set[k] = true
	}
	for _, n := range names {
		if !set[n] {
			return fmt.Errorf("no %s %q in the results%s", what, n, analyses.DidYouMean(n, known))
		}
	}
	return nil
}
