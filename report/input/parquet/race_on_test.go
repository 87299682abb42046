//go:build race

package parquet

// raceEnabled: the race detector slows every build several times; the
// long table tests then run a sample of their cases (one per kind of
// file), which is what the detector needs to see every code path.
const raceEnabled = true
