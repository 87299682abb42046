package site

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

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

// fuzzSite is a site with one analysis document for {{value}} and no
// figures, tables or bibliography.
func fuzzSite() *siteBuild {
	lb := newObject(5)
	lb.add("x", Number("0.5"))
	lb.add("s", "A")
	lb.add("b", true)
	lb.add("list", []any{Number("1"), Number("2")})
	row := newObject(2)
	row.add("method", "A")
	row.add("v", Number("0.25"))
	tables := newObject(1)
	tables.add("lb", []any{row})
	lb.add("tables", tables)
	return &siteBuild{m: &Model{}, study: &Study{}, md: newMarkdown(false), docs: map[string]*Object{"lb": lb}}
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
