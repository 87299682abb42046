package report

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
	studies, err := readMetaSummary(tr)
	if err == nil {
		for _, s := range studies {
			if s.N < 1 || math.IsNaN(s.MeanDiff) || math.IsNaN(s.SDDiff) || s.SDDiff < 0 || s.R > 1 || s.R < -1 {
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
		{"dataset,n,mean_diff,sd_diff\na,5,,0.2\n", "mean_diff of a is not a finite number"},
		{"dataset,n,mean_diff,sd_diff\na,5,0.1,-1\n", "sd_diff of a is negative"},
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
	f.Fuzz(func(t *testing.T, data []byte) {
		readSummaryText(t, string(data))
	})
}
