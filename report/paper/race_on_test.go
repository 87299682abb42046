//go:build race

package paper_test

// raceEnabled: this test binary runs under the race detector (make
// test's -race -short pass), which the demo-sized tests skip: they add
// no goroutines the smaller tests do not, and cost most under -race.
const raceEnabled = true
