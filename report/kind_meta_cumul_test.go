package report

import (
	"encoding/csv"
	"strconv"
	"strings"
	"testing"
)

// cumulative = "year" gives metafor's cumul(rma(…), order = year) on
// dat.bcg's RR (two trials of 1973: ties keep the file's order), with DL
// and z, REML and Knapp–Hartung, the fixed-effect model, and τ² fixed at
// 0.04 with the t test: table <id>-cumulative, one row
// per step, to 1e-9 (REML converged to full precision here, to metafor's
// threshold of 1e-12 in gen.R), and the cumulative forest plot.
func TestMetaCumulativeBuild(t *testing.T) {
	t.Parallel()
	var want map[string]map[string]any
	metaExpected(t, "cumulative", &want)
	for key, keys := range map[string]string{"dl": "", "reml_knha": "tau2 = \"REML\"\ntest = \"knha\"\n",
		"fe": "model = \"fixed\"\n", "fixed_t": "tau2 = 0.04\ntest = \"t\"\n"} {
		site := mustBuild(t, metaSummaryStudy(t, "bcg.csv", "measure = \"RR\"\ncumulative = \"year\"\n"+keys))
		recs, err := csv.NewReader(strings.NewReader(readFile(t, site, "data/m-cumulative.csv"))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		cols := []string{"dataset", "effect", "se", "ci_low", "ci_high", "p", "Q", "p_Q", "tau2", "I2", "H2"}
		w := want[key]
		names := w["dataset"].([]any)
		if strings.Join(recs[0], ",") != strings.Join(cols, ",") || len(recs) != 1+len(names) {
			t.Fatalf("%s: header %v, %d rows; want %v and %d", key, recs[0], len(recs)-1, cols, len(names))
		}
		for i, rec := range recs[1:] {
			if rec[0] != names[i] {
				t.Errorf("%s step %d: %s, metafor %s", key, i+1, rec[0], names[i])
			}
			for j, c := range cols[1:] {
				if _, ok := w[c].([]any); !ok { // metafor's cumul gives a fixed-effect model no τ²
					if rec[j+1] != "" {
						t.Errorf("%s step %d %s: %q, metafor none", key, i+1, c, rec[j+1])
					}
					continue
				}
				x, err := strconv.ParseFloat(rec[j+1], 64)
				if err != nil {
					t.Fatalf("%s step %d %s: %q", key, i+1, c, rec[j+1])
				}
				near(t, key+" "+rec[0]+" "+c, x, w[c].([]any)[i].(float64), 1e-9)
			}
		}
		doc := readJSON(t, site, "data/m.json")
		if doc["cumulative"] != "year" {
			t.Errorf("%s: JSON cumulative %v", key, doc["cumulative"])
		}
		if page := readFile(t, site, "m.html"); !strings.Contains(page, "Cumulative forest plot") {
			t.Errorf("%s: the page has no cumulative forest plot", key)
		}
	}
}

// A dataset without its place in the order, or a value that is not a
// number, is an error at the file's line and column.
func TestMetaCumulativeErrors(t *testing.T) {
	t.Parallel()
	head := "-- study.toml --\ntitle = \"m\"\n[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\nsummary = \"s.csv\"\nbetter = \"lower\"\ncumulative = \"year\"\n-- s.csv --\ndataset,yi,vi,year\n"
	for _, c := range []struct{ name, rows, want string }{
		{"an empty cell", "a,0.1,0.01,2001\nb,0.2,0.02,\n", "s.csv:3:"},
		{"not a number", "a,0.1,0.01,2001\nb,0.2,0.02,late\n", "s.csv:3:"},
		{"no such column", "", ""},
	} {
		archive := head + c.rows
		want := c.want
		if c.name == "no such column" {
			archive = strings.Replace(head, "dataset,yi,vi,year", "dataset,yi,vi", 1) + "a,0.1,0.01\nb,0.2,0.02\n"
			want = `cumulative: dataset a has no value of "year"`
		}
		_, err := buildStudy(t, archive)
		t.Logf("%s: %v", c.name, err)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", c.name, err, want)
		}
	}
}
