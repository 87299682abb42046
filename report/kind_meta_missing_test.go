package report

import (
	"strings"
	"testing"
)

// metaThreeDatasets is unitsMetaStudy's files on d1 and d3 for both
// methods and on d2 for the control only: T_d2.csv is missing.
const metaThreeDatasets = `
-- T_d1.csv --
m
0.5
0.25
0.75
-- C_d1.csv --
m
0.25
0.25
0.5
-- C_d2.csv --
m
0.1
0.3
0.2
-- T_d3.csv --
m
0.9
0.8
0.6
-- C_d3.csv --
m
0.5
0.7
0.4
`

// TestMetaMissingTreatmentFile: a dataset on which the treatment (or
// the control) has no per-unit values — its file is missing — is an
// error naming the dataset and the file the pattern expected, not a row
// left out of the summary with a warning; datasets = […] that leaves
// it out is the explicit way to do so.
func TestMetaMissingTreatmentFile(t *testing.T) {
	t.Parallel()
	_, err := buildStudy(t, unitsMetaStudy+metaThreeDatasets)
	want := `study.toml:4: analyses/ma: dataset "d2": method "T" has no per-unit values of m (expected in T_d2.csv, which is missing or holds none); give them, or leave the dataset out of this analysis with datasets = ["d1", "d3"]`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v\nwant %s", err, want)
	}

	// Neither method on d2 (only another one ran there): not this
	// comparison's dataset, left out with a note.
	site := mustBuild(t, strings.Replace(unitsMetaStudy+metaThreeDatasets, "-- C_d2.csv --\nm\n0.1\n0.3\n0.2\n", "-- A_d2.csv --\nm\n0.1\n", 1))
	if got := readFile(t, site, "data/ma.json"); !strings.Contains(got, "neither T nor C has values") {
		t.Errorf("no note on d2, where neither method ran:\n%s", got)
	}

	// Left out by the manifest: it builds, without d2.
	site = mustBuild(t, strings.Replace(unitsMetaStudy, `metric = "m"`+"\n", `metric = "m"`+"\ndatasets = [\"d1\", \"d3\"]\n", 1)+metaThreeDatasets)
	got := readFile(t, site, "data/ma.csv")
	if strings.Contains(got, "d2") || !strings.Contains(got, "d1") || !strings.Contains(got, "d3") {
		t.Errorf("datasets = [d1, d3]: the table is\n%s", got)
	}
}
