package report

import "testing"

// skipUnderRace skips, in the race pass of make test (-race -short), a
// test whose work runs on the test's own goroutine: the race detector has
// nothing to check there, and the full pass runs it.
func skipUnderRace(t testing.TB, why string) {
	t.Helper()
	if raceEnabled {
		t.Skip("no goroutines for the race detector (the full pass runs it): " + why)
	}
}
