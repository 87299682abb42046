package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMetaKindTwoGroupSensitivity builds a meta-analysis of published
// two-group summaries with sensitivity = true and checks the output
// names other tools read: the `test` key, the tables `<id>-leave-one-out`
// and `<id>-influence` with their columns, the figure `<id>-funnel`, the
// JSON `egger: {z, p}`, and the summary keys.
func TestMetaKindTwoGroupSensitivity(t *testing.T) {
	t.Parallel()
	dir := mustBuild(t, `
-- study.toml --
title = "papers"
[[analyses]]
id = "pub"
type = "meta_analysis"
title = "Published numbers"
summary = { path = "papers.csv", columns = { m1i = "mean_new", sd1i = "sd_new", n1i = "n_new" } }
better = "higher"
treatment = "new"
control = "old"
effect = "smd"
tau2 = "REML"
test = "knha"
sensitivity = true
-- papers.csv --
dataset,mean_new,sd_new,n_new,m2i,sd2i,n2i
paper-a,1.20,0.50,10,0.80,0.40,12
paper-b,1.00,0.30,20,0.90,0.50,25
paper-c,2.00,0.60,15,1.10,0.40,14
paper-d,1.10,0.50,30,1.00,0.50,30
paper-e,0.95,0.45,40,0.90,0.50,38
`)
	js := readJSON(t, dir, "data/pub.json")
	if js["test"] != "knha" || js["input_form"] != "two_group" || js["effect"] != "smd" {
		t.Errorf("test %v, input_form %v, effect %v", js["test"], js["input_form"], js["effect"])
	}
	params := js["params"].(map[string]any)
	if src, _ := params["summary"].(map[string]any); src["path"] != "papers.csv" || src["columns"].(map[string]any)["m1i"] != "mean_new" {
		t.Errorf("params.summary %v", params["summary"])
	}
	egger, ok := js["egger"].(map[string]any)
	if !ok || egger["z"] == nil || egger["p"] == nil {
		t.Errorf("egger %v", js["egger"])
	}
	sum := js["summary"].(map[string]any)
	for _, k := range []string{"effect", "se", "ci_low", "ci_high", "p", "tau2", "Q", "df", "p_Q", "I2", "H2", "pi_low", "pi_high"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("summary lacks %q", k)
		}
	}
	for name, head := range map[string]string{
		"pub-leave-one-out": "dataset,effect,se,ci_low,ci_high,p,Q,tau2,I2\n",
		"pub-influence":     "dataset,rstudent,dffits,cooks_d,cov_r,tau2_del,Q_del,hat,weight,influential\n",
		"pub-inputs":        "dataset,m1i,sd1i,n1i,m2i,sd2i,n2i,included,note\n",
	} {
		csv := readFile(t, dir, "data/"+name+".csv")
		if !strings.HasPrefix(csv, head) || strings.Count(csv, "\n") != 6 {
			t.Errorf("%s.csv:\n%s", name, csv)
		}
	}
	tables := js["tables"].(map[string]any)
	if rows, _ := tables["pub-leave-one-out"].([]any); len(rows) != 5 {
		t.Errorf("JSON leave-one-out rows: %v", tables["pub-leave-one-out"])
	}
	svg := readFile(t, dir, "figures/pub-funnel.svg")
	if !strings.Contains(svg, "standard error") || strings.Count(svg, "<path") < 8 {
		t.Error("funnel plot lacks its axis or its points")
	}
	page := readFile(t, dir, "pub.html")
	for _, w := range []string{"Funnel plot", "Knapp–Hartung", "two-group summary", "leave-one-out", "Cook", "Egger&#39;s regression"} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
}

// TestMetaKindSameDataSameEffect: a two-group summary and the raw values
// it summarises give the same MD, SMD and ROM: the summary against a
// direct computation from the raw values (mean difference with the
// unpooled variance; Hedges' g with the pooled sd and the exact
// correction, metafor's "SMD"), and the per-unit study with design =
// "independent" against the summary, effect and variance. Where the two
// groups are the same units measured twice, the per-unit paired study's
// mean difference equals the two-group summary's too (the mean of the
// differences is the difference of the means), while its variance
// differs by design.
func TestMetaKindSameDataSameEffect(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	type raw struct{ a, b []float64 }
	datasets := []string{"alpha", "beta", "gamma", "delta"}
	data := map[string]raw{}
	var summary, units strings.Builder
	summary.WriteString("dataset,m1i,sd1i,n1i,m2i,sd2i,n2i\n")
	units.WriteString("dataset,method,unit,score\n")
	for i, d := range datasets {
		n := 8 + 5*i // equal group sizes, so the same values can be units
		var r raw
		for j := 0; j < n; j++ {
			base := rng.NormFloat64()
			r.a = append(r.a, 10+0.3*float64(i)+base+0.5*rng.NormFloat64())
			r.b = append(r.b, 10+base+0.5*rng.NormFloat64())
			fmt.Fprintf(&units, "%s,new,u%d,%.17g\n%s,old,u%d,%.17g\n", d, j, r.a[j], d, j, r.b[j])
		}
		data[d] = r
		m1, s1 := meanSD(r.a)
		m2, s2 := meanSD(r.b)
		fmt.Fprintf(&summary, "%s,%.17g,%.17g,%d,%.17g,%.17g,%d\n", d, m1, s1, n, m2, s2, n)
	}
	study := func(effect string) string {
		return fmt.Sprintf(`
-- study.toml --
title = "same data"
[[metrics]]
name = "score"
[inputs]
units = "units.csv"
[[analyses]]
id = "two"
type = "meta_analysis"
title = "two-group summary"
summary = "two.csv"
better = "higher"
treatment = "new"
control = "old"
effect = %q
[[analyses]]
id = "units"
type = "meta_analysis"
title = "per-unit paired"
treatment = "new"
control = "old"
metric = "score"
effect = "md"
[[analyses]]
id = "indep"
type = "meta_analysis"
title = "per-unit, independent groups"
treatment = "new"
control = "old"
metric = "score"
design = "independent"
effect = %[1]q
-- two.csv --
%s-- units.csv --
%s`, effect, summary.String(), units.String())
	}
	rows := func(dir, id string) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, r := range readJSON(t, dir, "data/"+id+".json")["tables"].(map[string]any)[id].([]any) {
			m := r.(map[string]any)
			out[m["dataset"].(string)] = m
		}
		return out
	}
	for _, effect := range []string{"md", "smd", "rom"} {
		dir := mustBuild(t, study(effect))
		two := rows(dir, "two")
		paired := rows(dir, "units")
		indep := rows(dir, "indep")
		for _, d := range datasets {
			a, b := two[d], indep[d]
			for _, k := range []string{"effect", "variance", "ci_low", "ci_high", "p", "weight"} {
				x, y := a[k].(float64), b[k].(float64)
				if math.Abs(x-y) > 1e-12*math.Max(1, math.Abs(x)) {
					t.Errorf("%s %s: %s from the two-group summary %v, from the same values as independent units %v", effect, d, k, x, y)
				}
			}
			if a["n"].(float64) != b["n"].(float64) {
				t.Errorf("%s %s: n %v vs %v", effect, d, a["n"], b["n"])
			}
		}
		if effect == "rom" {
			continue
		}
		for _, d := range datasets {
			r := data[d]
			m1, s1 := meanSD(r.a)
			m2, s2 := meanSD(r.b)
			n1, n2 := float64(len(r.a)), float64(len(r.b))
			var y, v float64
			if effect == "md" {
				y, v = m1-m2, s1*s1/n1+s2*s2/n2
			} else {
				m := n1 + n2 - 2
				sp := math.Sqrt(((n1-1)*s1*s1 + (n2-1)*s2*s2) / m)
				lg1, _ := math.Lgamma(m / 2)
				lg2, _ := math.Lgamma((m - 1) / 2)
				c := math.Exp(lg1 - math.Log(math.Sqrt(m/2)) - lg2)
				y = c * (m1 - m2) / sp
				v = 1/n1 + 1/n2 + y*y/(2*(n1+n2))
			}
			got := two[d]
			if e, vv := got["effect"].(float64), got["variance"].(float64); math.Abs(e-y) > 1e-12*math.Max(1, math.Abs(y)) || math.Abs(vv-v) > 1e-12*v {
				t.Errorf("%s %s: two-group summary %v (var %v), direct from the raw values %v (var %v)", effect, d, e, vv, y, v)
			}
			if effect == "md" {
				if e := paired[d]["effect"].(float64); math.Abs(e-y) > 1e-12*math.Max(1, math.Abs(y)) {
					t.Errorf("%s: per-unit paired mean difference %v, two-group %v", d, e, y)
				}
			}
		}
	}
}

func meanSD(x []float64) (float64, float64) {
	var m float64
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	var ss float64
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return m, math.Sqrt(ss / float64(len(x)-1))
}

// TestMetaKindSummaryErrors: bad summary files and options fail the
// build with the file and line (or the manifest key).
func TestMetaKindSummaryErrors(t *testing.T) {
	t.Parallel()
	base := `
-- study.toml --
title = "e"
[[analyses]]
id = "m"
type = "meta_analysis"
title = "t"
summary = "s.csv"
better = "higher"
EFFECT
-- s.csv --
`
	for _, c := range []struct{ effect, csv, want string }{
		{"", "dataset,m1i,sd1i,n1i,m2i,sd2i,n2i\na,1,0.5,10,0.8,0.4,12\nb,1,0.5,10,0.8,-0.4,12\n", "s.csv:3:"},
		{"", "dataset,yi,vi\na,0.1,0.01\nb,0.2,\n", "s.csv:3:"},
		{`effect = "rom"`, "dataset,n,mean_diff,sd_diff\na,10,0.1,0.2\nb,12,0.2,0.3\n", "a two-group summary"},
		{`test = "knh"`, "dataset,yi,vi\na,0.1,0.01\n", `did you mean "knha"`},
		{`tau2 = "sj"`, "dataset,yi,vi\na,0.1,0.01\nb,0.2,0.02\nc,0.3,0.01\n", ""},
		{`summary = { path = "s.csv", colums = {} }`, "dataset,yi,vi\na,0.1,0.01\n", `did you mean "columns"`},
		{`summary = { path = "s.csv", columns = { m1 = "x" } }`, "dataset,yi,vi\na,0.1,0.01\n", `did you mean "m1i"`},
	} {
		s := strings.Replace(base, "EFFECT", c.effect, 1) + c.csv
		if strings.HasPrefix(c.effect, "summary") {
			s = strings.Replace(strings.Replace(base, `summary = "s.csv"`, "", 1), "EFFECT", c.effect, 1) + c.csv
		}
		_, err := buildStudy(t, s)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.effect, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: error %v, want %q", c.effect, c.csv, err, c.want)
		}
	}
	// A ratio of means that is not positive is left out with a note, as
	// metafor drops it.
	dir := mustBuild(t, strings.Replace(base, "EFFECT", `effect = "rom"`, 1)+
		"dataset,m1i,sd1i,n1i,m2i,sd2i,n2i\na,1,0.5,10,0.8,0.4,12\nb,-1,0.5,10,0.8,0.4,12\nc,1.5,0.5,10,0.8,0.4,12\n")
	js := readJSON(t, dir, "data/m.json")
	if w := fmt.Sprint(js["warnings"]); !strings.Contains(w, "dataset b") || !strings.Contains(w, "not positive") {
		t.Errorf("warnings %v", w)
	}
	if _, err := os.Stat(filepath.Join(dir, "figures", "m-funnel.svg")); err == nil {
		t.Error("a funnel plot without sensitivity = true")
	}
}
