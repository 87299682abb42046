package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestManifestShapeLimits: a manifest nested deeper than the limit
// (inline tables, arrays, dotted keys, table headers, or these together)
// is an error at the line where the limit is passed, before the TOML
// decoder sees it (it costs time and memory growing faster than the text
// there); brackets, dots and quotes inside strings and comments are text,
// never structure.
func TestManifestShapeLimits(t *testing.T) {
	t.Parallel()
	deep := func(open, close string, n int) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	dotted := func(n int) string { return strings.TrimSuffix(strings.Repeat("a.", n), ".") }
	const tooDeep = "tables, arrays and dotted keys nested deeper than 16 levels (the limit)"
	cases := []struct {
		name, src string
		want      string // "" accepts
	}{
		{"inline tables at the limit", "title = \"t\"\nx = " + deep("{a=", "}", 16) + "\n", "unknown key \"x\""},
		{"inline tables past the limit", "title = \"t\"\n\nx = " + deep("{a=", "}", 17) + "\n", "study.toml:3: " + tooDeep},
		{"inline tables 16000 deep", "title = \"t\"\nx = " + deep("{a=", "}", 16000) + "\n", "study.toml:2: " + tooDeep},
		{"arrays past the limit", "title = \"t\"\nx = " + deep("[", "]", 17) + "\n", "study.toml:2: " + tooDeep},
		{"arrays over lines", "title = \"t\"\nx = [\n" + strings.Repeat("[\n", 22) + "1" + strings.Repeat("]", 23) + "\n", "study.toml:18: " + tooDeep},
		{"dotted key at the limit", "title = \"t\"\n" + dotted(17) + " = 1\n", "unknown key \"a\""},
		{"dotted key past the limit", "title = \"t\"\n" + dotted(18) + " = 1\n", "study.toml:2: " + tooDeep},
		{"dotted key of 10000 parts", "title = \"t\"\n" + dotted(10000) + " = 1\n", "study.toml:2: " + tooDeep},
		{"quoted dotted key", "title = \"t\"\n" + strings.Repeat(`"a".`, 22) + "b = 1\n", "study.toml:2: " + tooDeep},
		{"table header past the limit", "title = \"t\"\n[" + dotted(18) + "]\n", "study.toml:2: " + tooDeep},
		{"header, key and inline tables together", "title = \"t\"\n[" + dotted(8) + "]\n" + dotted(8) + " = " + deep("{a=", "}", 10) + "\n", "study.toml:3: " + tooDeep},
		{"inline dotted keys add up", "title = \"t\"\nx = " + strings.Repeat("{"+dotted(4)+" = ", 5) + "1" + strings.Repeat("}", 5) + "\n", "study.toml:2: " + tooDeep},
		{"brackets in strings and comments are text", "title = \"" + strings.Repeat("{[", 100) + "\"\n" +
			"subtitle = '" + strings.Repeat("{[.", 100) + "'\n" +
			"abstract = \"\"\"\n" + strings.Repeat("{[.\\\"\n", 100) + "\"\"\"\n" +
			"# " + strings.Repeat("{[.", 100) + "\n" +
			"license = '''" + strings.Repeat("[{.'\n", 100) + "'''\n" +
			"doi = \"10.1/x\"\n", ""},
		{"a multi-line string may end with quotes", "title = \"\"\"a \"\"\"\"\"\nabstract = '''" + strings.Repeat("{", 100) + "'''''\n", ""},
		{"keys after the header count from it", "title = \"t\"\n[" + dotted(15) + "]\n[x]\n" + dotted(15) + " = 1\n", "unknown key \"" + "a\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseStudy("/s/study.toml", []byte(c.src), Kinds())
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

// TestManifestSizeLimit: a manifest above the limit is refused by its
// size, before it is read: a sparse 300 MB study.toml is never read.
func TestManifestSizeLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "study.toml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(300 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = LoadStudy(path, Kinds())
	want := "study.toml: the manifest is 314572800 bytes, above the limit of 1048576 (1 MiB)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
	src := "title = \"t\"\n" + strings.Repeat("# padding\n", maxManifestBytes/10)
	if _, err := ParseStudy(path, []byte(src), Kinds()); err == nil || !strings.Contains(err.Error(), "above the limit of 1048576") {
		t.Fatalf("ParseStudy of %d bytes: %v", len(src), err)
	}
}

// BenchmarkManifestWorstShape decodes a manifest of about 1 MB filled
// with values nested at the depth limit (inline tables, arrays, dotted
// keys): what the limit leaves the decoder in the worst case. Printed,
// never asserted (issue 31's budget: under 1 s).
func BenchmarkManifestWorstShape(b *testing.B) {
	for _, shape := range []struct{ name, open, close string }{
		{"inline", "{a=", "}"}, {"array", "[", "]"}, {"dotted", "a.", ""},
	} {
		b.Run(shape.name, func(b *testing.B) {
			var sb strings.Builder
			sb.WriteString("title = \"t\"\n[x]\n")
			for i := 0; sb.Len() < 1<<20; i++ {
				if shape.close == "" {
					fmt.Fprintf(&sb, "k%d.%s = 1\n", i, strings.TrimSuffix(strings.Repeat(shape.open, maxManifestDepth-2), "."))
				} else {
					fmt.Fprintf(&sb, "k%d = %s1%s\n", i, strings.Repeat(shape.open, maxManifestDepth-2), strings.Repeat(shape.close, maxManifestDepth-2))
				}
			}
			src := []byte(sb.String())
			if err := checkManifestShape("study.toml", src); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ParseStudy("/s/study.toml", src, Kinds())
			}
		})
	}
}
