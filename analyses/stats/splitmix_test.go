package stats

import "testing"

// TestSplitMix64 checks the first outputs of the generator seeded with 0
// against the reference implementation's (Vigna's splitmix64.c).
func TestSplitMix64(t *testing.T) {
	for i, want := range []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f} {
		if got := SplitMix64(0, uint64(i)); got != want {
			t.Errorf("output %d = %#x, want %#x", i, got, want)
		}
	}
}
