package report

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
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

// TestNarrativeValueFormats: the allowed formats print what they say.
func TestNarrativeValueFormats(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v         any
		format    string
		want      string
		wantError bool
	}{
		{0.44327, "", "0.4433", false},
		{0.44327, "%.3f", "0.443", false},
		{0.44327, "%f", "0.443270", false},
		{0.44327, "%+.2f", "+0.44", false},
		{-0.44327, "%+.2f", "-0.44", false},
		{0.44327, "%.2e", "4.43e-01", false},
		{0.44327, "%e", "4.432700e-01", false},
		{0.44327, "%.2g", "0.44", false},
		{0.44327, "%g", "0.44327", false},
		{0.44327, "%.1%", "44.3%", false},
		{0.44327, "%.0%", "44%", false},
		{-0.05, "%+.1%", "-5.0%", false},
		{2.5, "%d", "3", false},
		{-0.4, "%d", "0", false},
		{7.0, "%+d", "+7", false},
		{1e20, "%d", "100000000000000000000", false},
		{1.5, "%s", "1.5", false},
		{0.1, "%.15f", "0.100000000000000", false},
		{"EASE", "%s", "EASE", false},
		{"EASE", "", "EASE", false},
		{true, "%s", "true", false},
		{true, "%d", "", true},
		{1.5, "%q", "", true},
		{1.5, "%+s", "", true},
		{nil, "%.3f", "", true},
	} {
		got, err := formatValue(c.v, c.format)
		if (err != nil) != c.wantError || got != c.want {
			t.Errorf("formatValue(%v, %q) = %q, %v; want %q (error %v)", c.v, c.format, got, err, c.want, c.wantError)
		}
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

// fuzzSite is a site with one analysis document for {{value}} and no
// figures, tables or bibliography.
func fuzzSite() *siteBuild {
	return &siteBuild{
		study: &Study{},
		md:    goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote)),
		docs: map[string]map[string]any{"lb": {
			"x": 0.5, "s": "A", "b": true, "list": []any{1.0, 2.0},
			"tables": map[string]any{"lb": []any{map[string]any{"method": "A", "v": 0.25}}},
		}},
	}
}

var fuzzErrRe = regexp.MustCompile(`^page\.md:(\d+): `)

// FuzzNarrative: the directive parser never panics, and every error it
// reports names the page and a line of it.
func FuzzNarrative(f *testing.F) {
	for _, s := range []string{
		"{{value lb x %.3f}}",
		"a {{bogus}} b",
		"{{value lb x",
		"{{ref fig:x}} {{table t}} {{figure f}}",
		"`{{x}}` ``{{`` \\{{y}}",
		"```\n{{value}}\n```\n{{value lb s %s}}",
		"    {{code}}\n\n- item\n\n    {{value lb list[1] %d}}",
		"$a{{b}}$ and $$\n{{c}}\n$$",
		"{{value lb tables.lb[method=A].v %.1%}} [@key]",
		"{{{{}}}}{{}}{{ }}}}{{",
		"\r\n{{value lb x}}\r\n~~~\n{{",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		lines := strings.Count(src, "\n") + 1
		for _, format := range []string{"html", "md"} {
			n := fuzzSite().newNarrative("page.md", format)
			out := n.expand(src)
			n.fill(out)
			for _, err := range n.errs {
				m := fuzzErrRe.FindStringSubmatch(err.Error())
				if m == nil {
					t.Fatalf("%s: error without page:line: %v", format, err)
				}
				if l, _ := strconv.Atoi(m[1]); l < 1 || l > lines {
					t.Fatalf("%s: error at line %d of a %d-line page: %v", format, l, lines, err)
				}
			}
		}
	})
}

// TestNarrativeFuzzCorpus keeps the committed corpus readable: every file
// is a go-fuzz v1 entry (the fuzz target itself runs them).
func TestNarrativeFuzzCorpus(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzNarrative", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no seed corpus: %v", err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil || !strings.HasPrefix(string(b), "go test fuzz v1\nstring(") {
			t.Errorf("%s is not a fuzz corpus entry (%v)", p, err)
		}
	}
}
