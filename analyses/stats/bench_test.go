package stats

import "testing"

func BenchmarkNemenyiQ(b *testing.B) {
	for i := 0; i < b.N; i++ {
		NemenyiQ(0.05, 11)
	}
}
