// Package testutil holds what the tests of the analyses packages share:
// the tolerance of numeric comparisons, the reading of oracle fixtures and
// the skipping of tests whose published reference data is absent.
package testutil

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// Close reports whether got equals want within tol, absolute or relative
// (gonum's scalar.EqualWithinAbsOrRel); a NaN want matches only a NaN.
func Close(got, want, tol float64) bool {
	if math.IsNaN(want) || math.IsNaN(got) {
		return math.IsNaN(want) && math.IsNaN(got)
	}
	return scalar.EqualWithinAbsOrRel(got, want, tol, tol)
}

// Dir is the analyses directory, so that a test of any package under it
// can name a fixture by its path from there ("stats/testdata/…").
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// ReadJSON decodes the JSON file at path (relative to Dir) into v, or
// fails the test.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Dir(), path))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// SkipWithoutReference skips a test whose published reference data (in
// ../shared/reference) is absent — in a user's clone — but fails it under
// CI, where the data must be there: a missing folder must never turn the
// oracle tests silently green.
func SkipWithoutReference(t testing.TB, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(append([]any{"reference data absent under CI:"}, args...)...)
	}
	t.Skip(append([]any{"reference data absent:"}, args...)...)
}

// Shared is the shared/ folder beside the work tree (reference data of
// the papers the analyses reproduce), which may be absent.
func Shared() string {
	return filepath.Join(Dir(), "..", "..", "shared")
}
