package report

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestNarrativeDirectiveErrors plants malformed, unknown and badly
// formatted directives: each is a build error at page:line (the planted
// text is on line 3 of results-page.md).
func TestNarrativeDirectiveErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ directive, want string }{
		{"{{bogus x}}", `results-page.md:3: {{bogus x}}: unknown directive "bogus" (known: figure, table, ref, value; write \{{ for literal braces)`},
		{"{{valeu lb scores}}", `results-page.md:3: {{valeu lb scores}}: unknown directive "valeu" (did you mean "value"?)`},
		{"{{Figure lb}}", `unknown directive "Figure" (did you mean "figure"?)`},
		{"{{ }}", `results-page.md:3: {{ }}: empty directive (known: figure, table, ref, value)`},
		{"{{value lb ranks.copeland[1]", `results-page.md:3: unterminated directive "{{value …" (a directive ends with "}}" on the same line)`},
		{"{{value lb {{ref lb}}", `results-page.md:3: unterminated directive "{{value …"`},
		{"{{", `results-page.md:3: unterminated directive "{{ …"`},
		{"{{value lb ranks.copeland[1] %q}}", `results-page.md:3: {{value lb ranks.copeland[1] %q}}: format "%q": want one of %.Nf, %.Ne, %.Ng, %.N%, %d or %s`},
		{"{{value lb ranks.copeland[1] %v}}", `format "%v": want one of`},
		{"{{value lb ranks.copeland[1] %x}}", `format "%x": want one of`},
		{"{{value lb ranks.copeland[1] %5.2f}}", `format "%5.2f": want one of`},
		{"{{value lb ranks.copeland[1] %.16f}}", `format "%.16f": precision 16 is above the limit of 15`},
		{"{{value lb ranks.copeland[1] %.123f}}", `format "%.123f": want one of`},
		{"{{value lb ranks.copeland[1] %.2d}}", `format "%.2d": %d takes no precision`},
		{"{{value lb ranks.copeland[1] %%}}", `format "%%": a percentage needs its decimals, e.g. %.1%`},
		{"{{value lb ranks.copeland[1] .3f}}", `format ".3f": want one of`},
		{"{{value lb ranks.copeland[1] %.3f%%}}", `format "%.3f%%": want one of`},
		{"{{value lb tables.lb[method=A].method %.3f}}", `format "%.3f" needs a number, but the value is the text "A" (use %s or no format)`},
		{"{{value lb ranks.copeland[1] %.2f extra}}", `want {{value ANALYSIS PATH [FORMAT]}}`},
		{"{{value lb tables.lb[}}", `results-page.md:3: {{value lb tables.lb[}}: bad selector "[": no closing ]`},
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
}

// codePage has directives and braces that must stay as written: code
// spans, fenced and indented code blocks, math, and \{{; and one
// directive in a list item's continuation paragraph that must expand.
const codePage = "# Code\n" +
	"\n" +
	"Inline `{{bogus}}` and ``{{value lb`` stay; \\{{bogus}} is escaped.\n" +
	"\n" +
	"```\n" +
	"{{value nope nope}}\n" +
	"```\n" +
	"\n" +
	"~~~toml\n" +
	"{{bogus}}\n" +
	"~~~\n" +
	"\n" +
	"    {{indented code}}\n" +
	"\n" +
	"Math $x^{{2}}$ stays, and\n" +
	"\n" +
	"$$\n" +
	"\\frac{{a}}{b}\n" +
	"$$\n" +
	"\n" +
	"- an item\n" +
	"\n" +
	"    Copeland rank {{value lb ranks.copeland[1] %d}}.\n"

func TestNarrativeCodeStaysLiteral(t *testing.T) {
	t.Parallel()
	study := strings.Replace(smallStudy, "-- notes.md --", "-- code.md --\n"+codePage+"-- notes.md --", 1)
	study = strings.Replace(study, "[[analyses]]\nid      = \"lb\"", "[[pages]]\ntitle = \"Code\"\nsource = \"code.md\"\n\n[[analyses]]\nid      = \"lb\"", 1)
	dir := mustBuild(t, study)
	page := readFile(t, dir, "code.html")
	for _, want := range []string{
		"<code>{{bogus}}</code>",
		"<code>{{value lb</code>",
		"{{bogus}} is escaped",
		"{{value nope nope}}",
		"<code class=\"language-toml\">{{bogus}}",
		"<pre><code>{{indented code}}",
		`data-tex="x^{{2}}"`,
		`data-tex="\frac{{a}}{b}"`,
		`Copeland rank <span class="value" title="lb ranks.copeland[1]">2</span>.`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("code.html lacks %s", want)
		}
	}
	md := readFile(t, dir, "code.md")
	for _, want := range []string{"`{{bogus}}`", "\\{{bogus}}", "    {{indented code}}", "$x^{{2}}$", "\\frac{{a}}{b}", "Copeland rank 2."} {
		if !strings.Contains(md, want) {
			t.Errorf("code.md lacks %s", want)
		}
	}
}

// TestNarrativeValidateReports: `evalbook validate` renders pages in
// memory, so it reports a bad directive at page:line too.
func TestNarrativeValidateReports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	study := strings.Replace(smallStudy, "A claim.", "A claim {{bogus x}} and {{value lb ranks.copeland[1] %q}}.", 1)
	if err := ParseArchive([]byte(study)).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	_, err := Validate(context.Background(), Options{Manifest: filepath.Join(dir, "study.toml")})
	for _, want := range []string{
		`notes.md:7: {{bogus x}}: unknown directive "bogus"`,
		`notes.md:7: {{value lb ranks.copeland[1] %q}}: format "%q"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("validate: %v\nwant %s", err, want)
		}
	}
}
