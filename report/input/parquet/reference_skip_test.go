package parquet

import (
	"os"
	"testing"
)

// skipWithoutReference skips a test whose published reference data (in
// ../shared/reference) is absent — in a user's clone — but fails it under
// CI, where the data must be there: a missing folder must never turn the
// oracle tests silently green.
func skipWithoutReference(t testing.TB, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(append([]any{"reference data absent under CI:"}, args...)...)
	}
	t.Skip(append([]any{"reference data absent:"}, args...)...)
}

// evalrs2022Reference is the EvalRS 2022 submissions file (as in
// report's multi-objective tests, two directories further up).
const evalrs2022Reference = "../../../../shared/reference/evalrs2022/evalrs_2022_submissions.parquet.snappy"
