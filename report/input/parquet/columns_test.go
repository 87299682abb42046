package parquet

import (
	"math/rand/v2"
	"testing"
)

// TestPrintableASCII: the word-at-a-time check agrees with a byte-by-byte
// one on strings of every length up to 40 made of the bytes around the
// bounds (0x1f, 0x20, 0x7e, 0x7f, 0x80, 0xff and a few plain ones), each
// bad byte in every position.
func TestPrintableASCII(t *testing.T) {
	oracle := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] > 0x7e {
				return false
			}
		}
		return true
	}
	near := []byte{0x00, 0x1f, 0x20, 0x21, 0x41, 0x7e, 0x7f, 0x80, 0xa0, 0xff}
	rng := rand.New(rand.NewPCG(7, 32))
	for n := 0; n <= 40; n++ {
		for trial := 0; trial < 300; trial++ {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(0x20 + rng.IntN(0x5f)) // plain
				if rng.IntN(n+1) == 0 {
					b[i] = near[rng.IntN(len(near))]
				}
			}
			if got, want := printableASCII(string(b)), oracle(string(b)); got != want {
				t.Fatalf("printableASCII(%q) = %v, want %v", b, got, want)
			}
		}
	}
}
