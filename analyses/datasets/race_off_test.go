//go:build !race

package datasets

import "testing"

// skipUnderRace: see race_on_test.go; without the race detector every
// test runs.
func skipUnderRace(*testing.T, string) {}
