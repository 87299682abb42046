package input

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readSummaryText(t testing.TB, text string) error {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "summary.csv")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := OpenTable(p, "summary.csv", nil)
	if err != nil {
		return err
	}
	defer tr.Close()
	studies, err := ReadMetaSummary(tr)
	if err == nil {
		for _, s := range studies {
			bad := false
			switch s.Form {
			case "two_group":
				bad = s.N1 < 2 || s.N2 < 2 || !(s.SD1 > 0) || !(s.SD2 > 0) || math.IsNaN(s.M1) || math.IsNaN(s.M2)
			case "generic":
				bad = math.IsNaN(s.Yi) || !(s.Vi > 0)
			default:
				bad = s.N < 2 || math.IsNaN(s.MeanDiff) || !(s.SDDiff > 0) || s.R > 1 || s.R < -1
			}
			if bad {
				t.Fatalf("accepted a bad row: %+v", s)
			}
		}
	}
	return err
}

// TestReadMetaSummary: malformed summary files give errors at
// file:line:column naming the problem.
func TestReadMetaSummary(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, want string }{
		{"dataset,n,mean_diff,sd_diff,r\na,10,0.1,0.2,0.5\r\nb,20,-0.1,0.3,\n", ""},
		{"dataset,n,mean_diff\na,10,0.1\n", `no column "sd_diff"`},
		{"dataset,n,mean_diff,sd_diff\na,ten,0.1,0.2\n", `summary.csv:2:3: not a number: "ten"`},
		{"dataset,n,mean_diff,sd_diff\na,0,0.1,0.2\n", "whole number"},
		{"dataset,n,mean_diff,sd_diff\na,2.5,0.1,0.2\n", "whole number"},
		{"dataset,n,mean_diff,sd_diff\na,5,,0.2\n", "summary.csv:2:5: mean_diff of a is missing (an empty cell; paired summary)"},
		{"dataset,n,mean_diff,sd_diff\na,5,0.1,-1\n", "summary.csv:2:9: sd_diff of a is negative: it must be above 0 (paired summary)"},
		{"dataset,n,mean_diff,sd_diff\na,5,0.1,0\n", "summary.csv:2:9: sd_diff of a is zero"},
		{"dataset,n,mean_diff,sd_diff\na,1,0.1,1\n", "summary.csv:2:3: n of a must be a whole number ≥ 2, not 1"},
		// Two-group summaries (metafor's escalc names, any column order).
		{"dataset,m1i,sd1i,n1i,m2i,sd2i,n2i\na,1,0.5,10,0.8,0.4,12\n", ""},
		{"n2i,sd2i,m2i,n1i,sd1i,m1i,dataset\n12,0.4,0.8,10,0.5,1,a\n", ""},
		{"dataset,m1i,sd1i,n1i,m2i,sd2i,n2i\na,1,0.5,1,0.8,0.4,12\n", "summary.csv:2:9: n1i of a must be a whole number ≥ 2, not 1"},
		{"dataset,m1i,sd1i,n1i,m2i,sd2i,n2i\na,1,0.5,10,0.8,0,12\n", "summary.csv:2:16: sd2i of a is zero"},
		{"dataset,m1i,sd1i,n1i,m2i,sd2i,n2i\na,1,-0.5,10,0.8,0.4,12\n", "summary.csv:2:5: sd1i of a is negative"},
		{"dataset,m1i,sd1i,n1i,m2i,sd2i,n2i\na,1,0.5,10,,0.4,12\n", "summary.csv:2:12: m2i of a is missing"},
		{"dataset,m1i,sd1i,n1i,m2i,sd2i\na,1,0.5,10,0.8,0.4\n", `no column "n2i"`},
		// Generic effects.
		{"dataset,yi,vi\na,0.3,0.01\n", ""},
		{"dataset,yi,sei\na,0.3,0.1\n", ""},
		{"dataset,yi,vi\na,0.3,0\n", "summary.csv:2:7: vi of a is zero"},
		{"dataset,yi,sei\na,0.3,-0.1\n", "summary.csv:2:7: sei of a is negative"},
		{"dataset,yi,vi\na,,0.1\n", "summary.csv:2:3: yi of a is missing"},
		{"dataset,yi\na,0.3\n", `no column "vi"`},
		{"dataset,yi,sei\na,0.3,1e-300\n", "summary.csv:2:7: sei of a squares to 0"},
		// Neither form, or two at once.
		{"dataset,effect,variance\na,0.3,0.1\n", "not a summary table"},
		{"dataset,yi,vi,m1i\na,0.3,0.1,1\n", "mixes the columns of generic and two_group"},
		{"dataset,n,mean_diff,sd_diff\na,5,NaN,1\n", `summary.csv:2:5: not a number: "NaN"`},
		{"dataset,n,mean_diff,sd_diff\na,5,0x1p-2,1\n", `summary.csv:2:5: not a decimal number: "0x1p-2" (hexadecimal is not accepted)`},
		{"dataset,n,mean_diff,sd_diff\na,5,-Infinity,1\n", `summary.csv:2:5: not a finite number: "-Infinity"`},
		{"dataset,n,mean_diff,sd_diff\na,5,0.1,1,\n", `summary.csv:2:11: 5 fields, the header has 4 — a trailing comma?`},
		{"dataset,n,mean_diff,sd_diff,r\na,5,0.1,1,1.5\n", "between −1 and 1"},
		{"dataset,n,mean_diff,sd_diff\na,5,0.1,1\na,6,0.1,1\n", `"a" has a second row`},
		{"dataset,n,mean_diff,sd_diff\n,5,0.1,1\n", "empty dataset name"},
		{"dataset,n,mean_diff,sd_diff\n", "no rows"},
		{"dataset,n,mean_diff,sd_diff\na,5\n", "2 fields, the header has 4"},
	} {
		err := readSummaryText(t, c.text)
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.text, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
}

// FuzzReadMetaSummary: no summary file makes the reader panic or accept
// a row it cannot use.
func FuzzReadMetaSummary(f *testing.F) {
	f.Add([]byte("dataset,n,mean_diff,sd_diff,r\na,10,0.1,0.2,0.5\n"))
	f.Add([]byte("dataset,n,mean_diff,sd_diff\r\nb,1e3,-1e-3,Inf\r\n"))
	f.Add([]byte("\xef\xbb\xbfdataset,n,mean_diff,sd_diff,r\n\"a,b\",2,0,0,\n"))
	f.Add([]byte("dataset,m1i,sd1i,n1i,m2i,sd2i,n2i\na,1,0.5,10,0.8,0.4,12\n"))
	f.Add([]byte("dataset,yi,sei\na,0.3,1e-300\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		readSummaryText(t, string(data))
	})
}
