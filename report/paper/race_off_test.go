//go:build !race

package paper_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false
