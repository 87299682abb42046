package paper_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures/model"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
	"github.com/evalbook/evalbook/report/paper"
)

// TestDemoMacros: paper/evalbook.tex of the demo compiles, and every
// macro, typeset by pdflatex and read back with pdftotext, shows the
// value its comment's JSON Pointer names in the site's data/<id>.json
// (resolved here, independently of the writer): a number to four
// significant digits, a name exactly. The macros cover the key numbers
// the issue names.
func TestDemoMacros(t *testing.T) {
	needTeX(t)
	study, site := builtDemo(t)
	st, err := manifest.LoadStudy(filepath.Join(study, "study.toml"), kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	naming := st.Naming()
	src, err := os.ReadFile(filepath.Join(site, "paper", "evalbook.tex"))
	if err != nil {
		t.Fatal(err)
	}
	type def struct {
		id, name string
		ptrs     []string
	}
	var defs []def
	lines := strings.Split(string(src), "\n")
	newcmd := regexp.MustCompile(`^\\newcommand\{\\([A-Za-z]+)\}\{.*\}$`)
	for i, l := range lines {
		m := newcmd.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		f := strings.Fields(strings.TrimPrefix(lines[i-1], "% "))
		if len(f) < 2 {
			t.Fatalf("macro %s has no comment naming its value", m[1])
		}
		defs = append(defs, def{id: f[0], name: m[1], ptrs: f[1:]})
	}
	if len(defs) < 100 {
		t.Fatalf("%d macros", len(defs))
	}
	var doc strings.Builder
	doc.WriteString("\\documentclass{article}\n\\usepackage[margin=1cm,paperwidth=60cm,paperheight=100cm]{geometry}\n\\input{evalbook.tex}\n\\begin{document}\n")
	for _, d := range defs {
		doc.WriteString("\\noindent\\mbox{MACRO " + d.name + ": \\" + d.name + "}\\par\n")
	}
	doc.WriteString("\\end{document}\n")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "evalbook.tex"), src, 0o644)
	text := compileTeX(t, dir, doc.String())
	shown := map[string]string{}
	for _, l := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(l, "MACRO "); ok {
			name, val, _ := strings.Cut(rest, ": ")
			shown[name] = strings.TrimSpace(val)
		}
	}
	docs := map[string]any{}
	fixed := 0
	for _, d := range defs {
		if docs[d.id] == nil {
			data, err := os.ReadFile(filepath.Join(site, "data", d.id+".json"))
			if err != nil {
				t.Fatalf("macro %s: %v", d.name, err)
			}
			var v any
			json.Unmarshal(data, &v)
			docs[d.id] = v
		}
		got, ok := shown[d.name]
		if !ok {
			t.Errorf("\\%s: not in the PDF", d.name)
			continue
		}
		var names []string
		for _, p := range d.ptrs {
			v, err := resolve(docs[d.id], p)
			if err != nil {
				t.Errorf("\\%s: %s %s: %v", d.name, d.id, p, err)
				continue
			}
			printed, _ := docs[d.id].(map[string]any)["decimals"].(map[string]any)
			switch x := v.(type) {
			case float64:
				key := p[strings.LastIndex(p, "/")+1:]
				if dec, ok := printed[p].(float64); ok {
					// a number the analysis writes at its one precision:
					// as its tables, figures and key finding write it
					if want := analyses.FixedText(x, int(dec)); strings.ReplaceAll(strings.ReplaceAll(got, " ", ""), "−", "-") != want {
						t.Errorf("\\%s shows %q, data/%s.json%s is %v, written %s", d.name, got, d.id, p, x, want)
					}
					fixed++
				} else if model.IsPValueColumn(key) && x >= 0 && x <= 1 {
					// a p-value as the tables write it: to its printed digits
					if !showsPValue(got, x) {
						t.Errorf("\\%s shows %q, data/%s.json%s is %v (written as the tables write p-values)", d.name, got, d.id, p, x)
					}
				} else if !showsNumber(got, x) {
					t.Errorf("\\%s shows %q, data/%s.json%s is %v", d.name, got, d.id, p, x)
				}
			case string:
				names = append(names, x)
			default:
				t.Errorf("\\%s: %s%s is %T", d.name, d.id, p, v)
			}
		}
		if len(names) > 0 && !showsName(got, names, naming) {
			t.Errorf("\\%s shows %q, data/%s.json names %q", d.name, got, d.id, names)
		}
	}
	if fixed < 10 {
		t.Errorf("%d macros of numbers written at an analysis's one precision", fixed)
	}
	// The key numbers the issue lists are among them.
	for _, want := range []string{
		"ebMetaEaseVsAlsRmseSummaryEffect", "ebMetaEaseVsAlsRmseSummaryCiLow", "ebMetaEaseVsAlsRmseSummaryCiHigh", "ebMetaEaseVsAlsRmseSummaryP",
		"ebLeaderboardWinnerMean", "ebLeaderboardWinnerMeanScore", "ebLeaderboardWinnerBorda",
		"ebCriticalDifferenceFriedmanP", "ebCriticalDifferenceCriticalDifference",
	} {
		if _, ok := shown[want]; !ok {
			t.Errorf("no macro \\%s", want)
		}
	}
}

// showsName reports whether a name macro shows the names of the data
// (joint winners joined by "and"), each as itself or as one of its
// labels in the study's naming; LaTeX's spaces and underscores aside.
func showsName(got string, names []string, n analyses.Naming) bool {
	squeeze := strings.NewReplacer(" ", "", "_", "", "–", "-", "’", "'").Replace // LaTeX sets ' as ’
	var alts [][]string
	for _, id := range names {
		a := []string{id, n.Metric(id), n.Method(id), n.Dataset(id), n.Rule(id), n.Strategy(id), n.Term(id)}
		if d, ok := strings.CutPrefix(id, "units of "); ok {
			a = append(a, "units of "+n.Dataset(d))
		}
		alts = append(alts, a)
	}
	var try func(i int, acc []string) bool
	try = func(i int, acc []string) bool {
		if i == len(alts) {
			return squeeze(got) == squeeze(strings.Join(acc, " and "))
		}
		for _, a := range alts[i] {
			if try(i+1, append(acc, a)) {
				return true
			}
		}
		return false
	}
	return try(0, nil)
}

// resolve follows a JSON Pointer (RFC 6901).
func resolve(v any, ptr string) (any, error) {
	if ptr == "" {
		return v, nil
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return nil, os.ErrNotExist
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, os.ErrNotExist
			}
			v = x[i]
		default:
			return nil, os.ErrNotExist
		}
	}
	return v, nil
}

// showsNumber reports whether text (pdftotext of a number, maybe
// "1.234×10-5") is x rounded to the digits it shows: a macro writes a
// number as its table does (Doc.Shown), else to four significant
// digits, and either way no digit it shows is wrong.
func showsNumber(text string, x float64) bool {
	text = strings.ReplaceAll(strings.ReplaceAll(text, " ", ""), "−", "-")
	mant, exp, _ := strings.Cut(text, "×10")
	v, err := strconv.ParseFloat(mant, 64)
	if err != nil {
		return false
	}
	e := 0
	if exp != "" {
		if e, err = strconv.Atoi(exp); err != nil {
			return false
		}
	}
	decimals := 0
	if _, frac, ok := strings.Cut(mant, "."); ok {
		decimals = len(frac)
	}
	if x == 0 {
		return v == 0
	}
	unit := math.Pow(10, float64(e-decimals))
	return math.Abs(v*math.Pow(10, float64(e))-x) <= unit/2*(1+1e-9)
}

// showsPValue reports whether text (the PDF's "2.4 × 10−4", "0.0114")
// is p as analyses.FormatP writes it.
func showsPValue(text string, p float64) bool {
	want := strings.NewReplacer("e-0", "×10-", "e-", "×10-").Replace(analyses.FormatP(p))
	return strings.ReplaceAll(strings.ReplaceAll(text, " ", ""), "−", "-") == want
}

// TestMacroName: the naming rule gives letters only, spells digits and
// capitalises each part.
func TestMacroName(t *testing.T) {
	for _, c := range []struct {
		parts []string
		want  string
	}{
		{[]string{"meta-ease-vs-als", "summary", "ci_low"}, "ebMetaEaseVsAlsSummaryCiLow"},
		{[]string{"leaderboard", "winner", "ndcg@10"}, "ebLeaderboardWinnerNdcgOneZero"},
		{[]string{"stability", "summary", "dm_auc", "subset_rho", "10"}, "ebStabilitySummaryDmAucSubsetRhoOneZero"},
		{[]string{"x2y", "I2"}, "ebXTwoYITwo"},
	} {
		got := paper.MacroName(c.parts...)
		if got != c.want {
			t.Errorf("MacroName(%q) = %s, want %s", c.parts, got, c.want)
		}
		if !regexp.MustCompile(`^[A-Za-z]+$`).MatchString(got) {
			t.Errorf("%s: not letters only", got)
		}
	}
}

// TestMacrosCollision: two values whose names collide are an error
// naming both, not a macro silently showing one of them.
func TestMacrosCollision(t *testing.T) {
	_, err := paper.Macros([]paper.Doc{{ID: "a", JSON: []byte(`{"p_q": 1, "pQ": 2}`)}})
	if err == nil || !strings.Contains(err.Error(), `\ebAPQ`) || !strings.Contains(err.Error(), "/pQ") || !strings.Contains(err.Error(), "/p_q") {
		t.Errorf("collision: %v", err)
	}
}

// TestMacrosShowLabels: a name macro shows the label the study's naming
// gives the id (a metric, the winners, a control method, an option value
// with a term), never the id itself, which stays in the JSON.
func TestMacrosShowLabels(t *testing.T) {
	n := analyses.Naming{Metrics: map[string]string{"ndcg@10": "nDCG@10"}, Methods: map[string]string{"MostPop": "Most popular"}}
	doc := `{"metric": "ndcg@10", "control": "MostPop", "effect": "smd", "over": "units of ml", "model": "random",
		"methods": ["MostPop", "EASE"], "scores": {"mean": [0.5, 0.5]}, "ranks": {"mean": [1.5, 1.5]}}`
	ms, err := paper.Macros([]paper.Doc{{ID: "a", JSON: []byte(doc), Naming: n}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range ms {
		got[m.Name] = m.Text
	}
	for name, want := range map[string]string{
		"ebAMetric": "nDCG@10", "ebAControl": "Most popular", "ebAEffect": "standardised mean difference",
		"ebAOver": "units of ml", "ebAModel": "random", "ebAWinnerMean": "Most popular and EASE",
	} {
		if got[name] != want {
			t.Errorf("\\%s shows %q, want %q", name, got[name], want)
		}
	}
}
