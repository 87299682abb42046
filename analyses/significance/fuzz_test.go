package significance

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/evalbook/evalbook/analyses"

	"github.com/evalbook/evalbook/analyses/stats"
)

// FuzzPairedStatistics feeds arbitrary paired samples to every test of
// paired_tests: none may panic, and every p-value and power is NaN
// (undefined, shown as a warning) or in [0, 1].
func FuzzPairedStatistics(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, uint8(0))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0}, uint8(1))
	f.Add([]byte{200, 1, 200, 1, 200, 1, 7, 7, 7, 7}, uint8(2))
	f.Fuzz(func(t *testing.T, raw []byte, zm uint8) {
		var a, b []float64
		for i := 0; i+2 <= len(raw) && len(a) < 80; i += 2 {
			v := float64(int16(binary.LittleEndian.Uint16(raw[i:]))) / 64
			if len(a) == len(b) {
				a = append(a, v)
			} else {
				b = append(b, v)
			}
		}
		if len(a) != len(b) {
			a = a[:len(b)]
		}
		if len(a) == 0 {
			return
		}
		in := PairedTestsInput{Metric: analyses.Metric{Name: "m"}, Over: "units", Methods: []string{"A", "B"}, Values: [][]float64{a, b}}
		for i := range a {
			in.Units = append(in.Units, string(rune('a'+i%26))+string(rune('a'+i/26)))
		}
		r, err := PairedTests(in, PairedTestsOptions{Metric: "m", ZeroMethod: stats.ZeroMethods[int(zm)%3]})
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range r.Tables()[0].Rows {
			for j, c := range row {
				if v, ok := c.(float64); ok {
					if !analyses.Finite(v) {
						t.Fatalf("column %d is %v", j, v)
					}
				}
			}
		}
		p := r.Pairs[0]
		for _, x := range []*float64{p.PPairedT, p.PWilcoxon, p.PSign, p.PWelch, p.PMannWhitney, p.PShapiro, p.PowerPaired, p.PowerIndep, p.PHolm} {
			if x != nil && !(*x >= 0 && *x <= 1+1e-12) {
				t.Fatalf("probability %v out of [0, 1] for %v / %v", *x, a, b)
			}
		}
		_ = math.NaN
	})
}
