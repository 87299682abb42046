package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPageShapeLimits: a narrative page whose Markdown would cost
// goldmark time growing faster than the page (deep nesting, one huge
// paragraph, a table of too many cells) is an error at the page's line
// before goldmark sees it; fenced code is text whatever its shape. The
// planted text begins on line 5 of results-page.md.
func TestPageShapeLimits(t *testing.T) {
	t.Parallel()
	var nested, quotes, table strings.Builder
	for i := 0; i < 20; i++ {
		nested.WriteString(strings.Repeat("    ", i) + "- a\n")
		quotes.WriteString(strings.Repeat("> ", i) + "a\n")
	}
	table.WriteString("| a | b |\n| --- | --- |\n")
	for i := 0; i < 5001; i++ {
		table.WriteString("|1|2|\n")
	}
	cases := []struct{ name, page, want string }{
		{"lists nested 17 deep", nested.String(), "results-page.md:21: blockquotes, lists and indentation nested 17 deep, above the limit of 16"},
		{"blockquotes nested 17 deep", quotes.String(), "results-page.md:22: blockquotes, lists and indentation nested 17 deep, above the limit of 16"},
		{"one line of 17 blockquotes", strings.Repeat(">", 17) + " a\n", "results-page.md:5: blockquotes, lists and indentation nested 17 deep"},
		{"list and quote markers together", strings.Repeat("- > ", 9) + "a\n", "results-page.md:5: blockquotes, lists and indentation nested 18 deep"},
		{"one paragraph of 33 KB", strings.Repeat("`a ``\n", 33<<10/6), "results-page.md:5: a paragraph, list or table of more than 32768 bytes without a blank line (the limit)"},
		{"a table of 10002 cells", table.String(), "results-page.md:5: a table of 2 columns × 5001 rows (header included) is above the limit of 10000 cells"},
		{"fenced code is text", "```\n" + nested.String() + strings.Repeat("x ", 40<<10) + "\n```\n\n~~~~\n" + quotes.String() + "```\n~~~~\n", ""},
		{"blank lines end a paragraph", strings.Repeat(strings.Repeat("`a ``", 1000)+"\n\n", 20), ""},
	}
	for _, c := range cases {
		c := c
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := buildStudy(t, narrativeOf(t, "\n\n"+c.page))
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v\nwant %s", err, c.want)
			}
		})
	}
}

// TestPageSizeLimit: a page above 1 MiB is refused by its size at its
// [[pages]] entry, before it is read (a sparse 300 MB page).
func TestPageSizeLimit(t *testing.T) {
	t.Parallel()
	_, err := buildStudy(t, narrativeOf(t, "x"), func(o *Options) {
		f, err := os.OpenFile(filepath.Join(filepath.Dir(o.Manifest), "results-page.md"), os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(300 << 20); err != nil {
			t.Fatal(err)
		}
	})
	want := `page "results-page.md": results-page.md: 314572800 bytes, above the limit of 1048576`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// A bibliography past 16 MiB (here a sparse 1 GiB file, so the test
// writes nothing) is refused by its size before it is read, at the
// bibliography key's line: it was read whole however large.
func TestBibliographySizeLimit(t *testing.T) {
	t.Parallel()
	_, err := buildStudy(t, "-- study.toml --\ntitle = \"b\"\nbibliography = \"refs.bib\"\n-- refs.bib --\n@misc{a, title = {A}}\n", func(o *Options) {
		f, err := os.OpenFile(filepath.Join(filepath.Dir(o.Manifest), "refs.bib"), os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(1 << 30); err != nil {
			t.Fatal(err)
		}
	})
	want := `study.toml:2: bibliography "refs.bib": refs.bib: 1073741824 bytes, above the limit of 16777216`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}
