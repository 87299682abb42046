package report

import (
	"github.com/evalbook/evalbook/report/input/bib"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// narrativeStudy is smallStudy with a bibliography and a page that cites
// results.
var narrativeStudy = strings.Replace(smallStudy, "abstract = ", "bibliography = \"refs.bib\"\nabstract = ", 1) + `-- refs.bib --
@inproceedings{shevchenko2024,
  author    = {Shevchenko, Valeriy and Belousov, Nikita and Vasilev, Alexey},
  title     = {From Variability to Stability: Advancing {RecSys} Benchmarking Practices},
  booktitle = {KDD},
  year      = 2024,
  doi       = {10.1145/3637528.3671655}
}
@article{demsar2006,
  author  = "Janez Dem{\v{s}}ar",
  title   = "Statistical Comparisons of Classifiers over Multiple Data Sets",
  journal = {JMLR},
  year    = {2006},
}
@comment{ignored}
-- results-page.md --
# Results

The leaderboard ({{ref leaderboard-missing-is-fine-in-code}}) is in ` + "`{{ref nope}}`" + `.
Under DM-AUC, A scores {{value lb tables.lb[method=A].dm_auc %.3f}} and B ranks
{{value lb ranks.copeland[1]}} under Copeland; see {{ref lb}} and {{ref tab:lb-rmse}} [@shevchenko2024; @demsar2006].

{{figure lb}}

The ratio is $r_{d,m} = \max_{m'} q_{d,m'} / q_{d,m}$ and costs $5 or $10.

$$
\rho_m(\beta) = \frac{1}{D} \left|\{d : r_{d,m} \le \beta\}\right|
$$

{{table lb-rmse}}

` + "```" + `
{{value nope nope}}
` + "```" + `
`

func narrativeOf(t *testing.T, page string) string {
	return strings.Replace(strings.Replace(narrativeStudy, "source = \"notes.md\"", "source = \"results-page.md\"", 1),
		"{{ref leaderboard-missing-is-fine-in-code}}", page, 1)
}

func TestNarrativeReferences(t *testing.T) {
	t.Parallel()
	dir := mustBuild(t, narrativeOf(t, "{{ref fig:lb}}"))
	page := readFile(t, dir, "notes.html")
	for _, want := range []string{
		`<a class="xref" href="lb.html#fig-lb">Figure 1</a>`,
		`<a class="xref" href="lb-rmse.html#tab-lb-rmse">Table 3</a>`,
		`<span class="value" title="lb tables.lb[method=A].dm_auc">0.443</span>`,
		`<span class="value" title="lb ranks.copeland[1]">2</span>`,
		`<a class="cite" href="#ref-shevchenko2024">Shevchenko et al. 2024</a>; <a class="cite" href="#ref-demsar2006">Demšar 2006</a>`,
		`<figure class="figure" id="fig-lb">`,
		`Figure 1.</a> Dolan–Moré`,
		`id="tab-lb-rmse"`,
		`<li id="ref-demsar2006">Janez Demšar (2006). Statistical Comparisons`,
		`<a href="https://doi.org/10.1145/3637528.3671655">`,
		"<code>{{ref nope}}</code>",
		"{{value nope nope}}",
		`<span class="math" data-tex="r_{d,m} = \max_{m&#39;} q_{d,m&#39;} / q_{d,m}">`,
		"costs $5 or $10",
		`<div class="math display" data-tex="\rho_m(\beta) = \frac{1}{D} \left|\{d : r_{d,m} \le \beta\}\right|">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("notes.html lacks %s", want)
		}
	}
	katex := `<script src="assets/katex.min.js">`
	switch has := strings.Contains(page, katex); {
	case haveAsset(katexAsset) && !has:
		t.Errorf("notes.html lacks %s", katex)
	case !haveAsset(katexAsset) && has:
		t.Errorf("notes.html loads KaTeX, which this binary does not have: %s", katex)
	}
	if strings.Index(page, "ref-demsar2006") > strings.Index(page, `<li id="ref-shevchenko2024"`) {
		t.Error("references are not sorted by author")
	}
	md := readFile(t, dir, "notes.md")
	golden := filepath.Join("testdata", "golden", "narrative", "notes.md")
	if *update {
		os.MkdirAll(filepath.Dir(golden), 0o755)
		os.WriteFile(golden, []byte(md), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if md != string(want) {
		t.Errorf("notes.md differs from %s:\n%s", golden, firstDiff(md, string(want)))
	}
	requireAsset(t, katexAsset) // the page loads KaTeX only when the binary has it
}

// TestNarrativeErrors: a broken reference fails the build naming the page
// and line.
func TestNarrativeErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ directive, want string }{
		{"{{ref lbb}}", `results-page.md:3: {{ref lbb}}: unknown figure or table "lbb" (did you mean "lb"?)`},
		{"{{figure lb-rmsee}}", `results-page.md:3: {{figure lb-rmsee}}: unknown figure "lb-rmsee" (did you mean "lb-rmse"?)`},
		{"{{value lb summary.effect}}", `results-page.md:3: {{value lb summary.effect}}: lb has no key "summary"`},
		{"{{value lb tables.lb[method=Z].mean}}", `results-page.md:3: {{value lb tables.lb[method=Z].mean}}: lb.tables.lb has no row with method = "Z"`},
		{"{{value lbx scores}}", `no analysis "lbx" (did you mean "lb"?)`},
		{"{{value lb scores}}", `the value is a object, not a number or text`},
		{"[@shevchenko2023]", `results-page.md:3: [@shevchenko2023]: no bibliography entry "shevchenko2023" (did you mean "shevchenko2024"?)`},
	}
	for _, c := range cases {
		c := c
		t.Run(c.directive, func(t *testing.T) {
			t.Parallel()
			_, err := buildStudy(t, narrativeOf(t, c.directive))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v\nwant %s", err, c.want)
			}
		})
	}
	t.Run("citation without bibliography", func(t *testing.T) {
		t.Parallel()
		_, err := buildStudy(t, strings.Replace(smallStudy, "A claim.", "A claim [@x].", 1))
		if err == nil || !strings.Contains(err.Error(), "notes.md:7: [@x]: a citation, but the manifest has no bibliography") {
			t.Fatalf("got %v", err)
		}
	})
}

func TestParseBibTeXErrors(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]string{
		"@article{a, title = {x}\n":                 "refs.bib:1: unbalanced braces",
		"\n@article{a, title = {x}}\n@book{a, x=1}": "refs.bib:3: key \"a\" is defined twice",
		"@article{a title}":                         "refs.bib:1: entry without fields",
		"@article{a, title \"x\"}":                  "refs.bib:1: a: field without '='",
	} {
		if _, err := bib.Parse("refs.bib", src); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %s", src, err, want)
		}
	}
}
