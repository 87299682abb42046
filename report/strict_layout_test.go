package report

import (
	"strings"
	"testing"
)

// lbStudy is a study of one aggregate analysis, lb, of metric m over
// results.csv; lbResults is a results.csv for it. unitsMetaStudy is one
// meta_analysis of T against C on m over units files
// {method}_{dataset}.csv. The tests of this file and of
// manifest_collide_test.go add the files and edits they are about.
var (
	lbStudy        = studyFixture("lb")
	lbResults      = studyFixture("lb_results")
	unitsMetaStudy = studyFixture("units_meta")
)

// TestStrictLayoutEveryReader: a file whose layout hides a value — a
// header that ends with a separator (so "0,5" splits into 0 and a value
// in a column without a name), a blank line in a file of one column
// (an empty cell, skipped, moves every later value up a row) — is an
// error at the file and line in every reader, never a number read from
// the wrong place. Each case builds a whole study.
func TestStrictLayoutEveryReader(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, archive, want string }{
		{"results long, trailing comma", lbStudy + `
-- results.csv --
dataset,method,metric,value,
d1,A,m,0,5
d1,B,m,0.25,
d2,A,m,0.75,
d2,B,m,0.125,
`, `results.csv:2:10: a value in column 5, which has no name in the header (the header line ends with a separator) — a decimal comma in "0,5"? quote the value or use a dot`},
		{"units long, trailing comma", `
-- study.toml --
title = "t"
[inputs]
units = "units.csv"
[[analyses]]
id = "ma"
type = "meta_analysis"
title = "ma"
treatment = "T"
control = "C"
metric = "m"
-- units.csv --
dataset,method,unit,metric,value,
d1,T,u1,m,0.5,
d1,C,u1,m,0.25,
d1,T,u2,m,0,5
d1,C,u2,m,0.25,
`, `units.csv:4:13: a value in column 6, which has no name in the header`},
		{"meta summary, trailing comma", `
-- study.toml --
title = "t"
[[analyses]]
id = "ma"
type = "meta_analysis"
title = "ma"
summary = "s.csv"
better = "higher"
effect = "md"
-- s.csv --
dataset,n,mean_diff,sd_diff,
d1,4,0,1,0.178
d2,5,0.3,0.5,
`, `s.csv:2:`},
		{"characteristics long, trailing comma", lbStudy + `
[[analyses]]
id = "ch"
type = "characteristics"
title = "ch"
metric = "m"
[inputs.characteristics]
path = "c.csv"
-- results.csv --
dataset,method,metric,value
d1,A,m,0.5
d1,B,m,0.25
d2,A,m,0.75
d2,B,m,0.125
-- c.csv --
dataset,feature,value,
d1,Density,0,5
d2,Density,0.25,
`, `c.csv:2:`},
		{"units by row, blank line", unitsMetaStudy + `
-- T_d1.csv --
m
0.5

0.75
0.1
0.9
-- C_d1.csv --
m
0.25
0.25
0.5
0.2
0.3
`, `T_d1.csv:3: a blank line in a file of one column`},
		{"units by row, blank line after the header", unitsMetaStudy + `
-- T_d1.csv --
m

0.5
0.75
-- C_d1.csv --
m
0.25
0.25
`, `T_d1.csv:2: a blank line in a file of one column`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := buildStudy(t, c.archive)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}

	// What stays valid: a trailing separator whose column stays empty, a
	// blank line between the records of a file of two columns, blank
	// lines at the end of a file of one column, and an empty cell of a
	// file of one column written as "".
	site := mustBuild(t, lbStudy+`
-- results.csv --
dataset,method,metric,value,
d1,A,m,0.5,

d1,B,m,0.25,
d2,A,m,0.75,
d2,B,m,0.125,
`)
	if got := readFile(t, site, "data/lb.csv"); !strings.Contains(got, "A,0.625") {
		t.Errorf("an empty unnamed column changed the numbers:\n%s", got)
	}
	site = mustBuild(t, strings.Replace(unitsMetaStudy, "metric = \"m\"\n", "metric = \"m\"\nmissing = \"drop\"\n", 1)+`
-- T_d1.csv --
m
0.5
""
0.75


-- C_d1.csv --
m
0.25
0.25
0.4
`)
	if got := readFile(t, site, "data/ma.csv"); !strings.Contains(got, "d1,2,") {
		t.Errorf("an empty cell written as \"\" is not one dropped pair of three:\n%s", got)
	}
}

// TestStrictIDsTrimmed: unit ids and the user and item ids of an
// interaction log are trimmed as every name is (" u1" is u1), and an
// empty unit id is an error, as an empty name is.
func TestStrictIDsTrimmed(t *testing.T) {
	t.Parallel()
	const meta = `
-- study.toml --
title = "t"
[inputs]
units = "{method}_{dataset}.csv"
[[analyses]]
id = "ma"
type = "meta_analysis"
title = "ma"
treatment = "T"
control = "C"
metric = "m"
-- C_d1.csv --
unit,m
u1,0.25
u2,0.25
u3,0.5
u4,0.2
`
	site := mustBuild(t, meta+`
-- T_d1.csv --
unit,m
 u1,0.5
u2 ,0.75
u3,0.6
u4,0.9
`)
	if got := readFile(t, site, "data/ma.csv"); !strings.Contains(got, "d1,4,") {
		t.Errorf("\" u1\" and \"u2 \" did not pair with u1 and u2:\n%s", got)
	}
	_, err := buildStudy(t, meta+`
-- T_d1.csv --
unit,m
u1,0.5
,0.75
`)
	if err == nil || !strings.Contains(err.Error(), "T_d1.csv:3:1: empty unit id") {
		t.Errorf("an empty unit id: %v", err)
	}

	site = mustBuild(t, `
-- study.toml --
title = "t"
[inputs]
results = "results.csv"
[[datasets]]
name = "d1"
interactions = "d1.csv"
[[datasets]]
name = "d2"
interactions = "d2.csv"
[[analyses]]
id = "ch"
type = "characteristics"
title = "ch"
metric = "m"
features = ["Nu", "Density"]
-- results.csv --
dataset,method,metric,value
d1,A,m,0.5
d1,B,m,0.25
d2,A,m,0.75
d2,B,m,0.125
-- d1.csv --
user,item
u1,i1
u1 ,i2
u2, i1
-- d2.csv --
user,item
u1,i1
u2,i2
`)
	if got := readFile(t, site, "data/ch-features.csv"); !strings.Contains(got, "d1,2,0.75") {
		t.Errorf("\"u1 \" and \" i1\" counted apart from u1 and i1:\n%s", got)
	}
}

// TestStrictCutoffs: a k column written 10.0 (pandas, when the column has
// an empty cell) or 010 made the separate metrics m@10.0 and m@010; a
// metric that already names its cutoff (m@10) with a k column became
// m@10@10.
func TestStrictCutoffs(t *testing.T) {
	t.Parallel()
	study := strings.Replace(lbStudy, `metric = "m"`, `metric = "m@10"`, 1)
	site := mustBuild(t, study+`
-- results.csv --
dataset,method,metric,k,value
d1,A,m,10.0,0.5
d1,B,m,10,0.25
d2,A,m,010,0.75
d2,B,m, 10 ,0.125
`)
	if got := readFile(t, site, "data/lb.csv"); !strings.Contains(got, "A,0.625") || !strings.Contains(got, "B,0.1875") {
		t.Errorf("10.0, 010 and 10 are not one cutoff:\n%s", got)
	}
	_, err := buildStudy(t, study+`
-- results.csv --
dataset,method,metric,k,value
d1,A,m@10,10,0.5
`)
	if want := `results.csv:2:11: metric "m@10" already names its cutoff, and the k column adds "10"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("m@10 with k = 10: %v, want %q", err, want)
	}
}
