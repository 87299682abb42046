//go:build race

package meta

import "testing"

// skipUnderRace skips a test in the race pass of make test (-race -short)
// when the race detector has nothing there that other tests do not give
// it: its work runs on the test's own goroutine, or it drives the same
// workers as a smaller test that does run. The full pass runs it.
func skipUnderRace(t *testing.T, why string) {
	t.Helper()
	t.Skip("skipped under the race detector (the full pass runs it): " + why)
}
