package report

import (
	"fmt"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
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
			_, err := manifest.ParseStudy("/s/study.toml", []byte(c.src), kinds.Kinds())
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
	_, err = manifest.LoadStudy(path, kinds.Kinds())
	want := "study.toml: the manifest is 314572800 bytes, above the limit of 1048576 (1 MiB)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
	src := "title = \"t\"\n" + strings.Repeat("# padding\n", manifest.MaxManifestBytes/10)
	if _, err := manifest.ParseStudy(path, []byte(src), kinds.Kinds()); err == nil || !strings.Contains(err.Error(), "above the limit of 1048576") {
		t.Fatalf("ParseStudy of %d bytes: %v", len(src), err)
	}
}

// TestManifestEntryLimit: a manifest of more keys, tables and arrays
// than the limit (each part of a dotted key or table header counts) is
// an error at the line where the limit is passed, before the decoder
// sees it (1 MB of short keys or headers cost it seconds); unknown
// top-level keys are listed ten at a time, then counted.
func TestManifestEntryLimit(t *testing.T) {
	t.Parallel()
	lines := func(head string, n int, line func(i int) string) string {
		var b strings.Builder
		b.WriteString(head)
		for i := 0; i < n; i++ {
			b.WriteString(line(i))
		}
		return b.String()
	}
	const tooMany = "more than 100000 keys, tables and arrays (the limit"
	// The title is entry 1; each case says which line holds entry 100 001.
	cases := []struct {
		name, src string
		want      string
	}{
		{"keys of one table", lines("title = \"t\"\n[x]\n", 100000, func(i int) string { return fmt.Sprintf("k%d=1\n", i) }),
			fmt.Sprintf("study.toml:%d: %s", 2+99999, tooMany)},
		{"keys at the limit pass the scan", lines("title = \"t\"\n[x]\n", 99998, func(i int) string { return fmt.Sprintf("k%d=1\n", i) }),
			"study.toml:2: unknown key \"x\""},
		{"dotted keys count each part", lines("title = \"t\"\n", 25000, func(i int) string { return fmt.Sprintf("k%d.a.b.c = 1\n", i) }),
			fmt.Sprintf("study.toml:%d: %s", 1+25000, tooMany)},
		{"table headers count each part", lines("title = \"t\"\n", 50000, func(i int) string { return fmt.Sprintf("[k%d.a]\n", i) }),
			fmt.Sprintf("study.toml:%d: %s", 1+50000, tooMany)},
		{"arrays of tables", lines("title = \"t\"\n", 50000, func(i int) string { return "[[x]]\nb=1\n" }),
			fmt.Sprintf("study.toml:%d: %s", 1+2*50000, tooMany)},
		{"a long array of inline tables", lines("title = \"t\"\nx = [\n", 50000, func(i int) string { return "{a = 1},\n" }) + "]\n",
			// title, x and its array are entries 1 to 3; each line adds two
			fmt.Sprintf("study.toml:%d: %s", 2+49999, tooMany)},
		{"a long array of arrays on one line", lines("title = \"t\"\nx = [", 100000, func(i int) string { return "[]," }) + "]\n",
			"study.toml:2: " + tooMany},
		{"a long array of numbers is not limited", lines("title = \"t\"\nx = [", 200000, func(i int) string { return "1," }) + "]\n",
			"study.toml:2: unknown key \"x\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if len(c.src) > manifest.MaxManifestBytes {
				t.Fatalf("the case is %d bytes, above the size limit", len(c.src))
			}
			_, err := manifest.ParseStudy("/s/study.toml", []byte(c.src), kinds.Kinds())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				msg := fmt.Sprint(err)
				if len(msg) > 300 {
					msg = msg[:300]
				}
				t.Fatalf("got %v, want %q", msg, c.want)
			}
		})
	}
	t.Run("unknown top-level keys", func(t *testing.T) {
		src := lines("title = \"t\"\n", 50, func(i int) string { return fmt.Sprintf("k%02d = 1\n", i) })
		_, err := manifest.ParseStudy("/s/study.toml", []byte(src), kinds.Kinds())
		errs, ok := err.(manifest.Errors)
		if !ok || len(errs) != 11 {
			t.Fatalf("got %d errors, want 11 (ten keys and a count): %v", len(errs), err)
		}
		for i, e := range errs[:10] {
			if want := fmt.Sprintf("study.toml:%d: unknown key \"k%02d\"", i+2, i); !strings.HasPrefix(e.Error(), want) {
				t.Errorf("error %d: %v, want %q", i, e, want)
			}
		}
		if want := "study.toml:12: 40 more unknown keys at the top level (the first 10 are listed)"; errs[10].Error() != want {
			t.Errorf("last error %q, want %q", errs[10], want)
		}
	})
}

// worstManifest fills a manifest with lines while it passes the size,
// depth and entry limits: what the limits leave the decoder.
func worstManifest(head string, line func(i int) string) []byte {
	build := func(n int) []byte {
		var sb strings.Builder
		sb.WriteString(head)
		for i := 0; i < n; i++ {
			sb.WriteString(line(i))
		}
		return []byte(sb.String())
	}
	lo, hi := 0, 1
	for manifest.CheckManifestShape("study.toml", build(hi)) == nil {
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; manifest.CheckManifestShape("study.toml", build(mid)) == nil {
			lo = mid
		} else {
			hi = mid
		}
	}
	return build(lo)
}

// BenchmarkManifestWorstShape decodes the largest manifests the limits
// let through, of each hostile shape: values nested at the depth limit
// (inline tables, arrays, dotted keys, table headers), many short keys,
// many tables, a long array of inline tables, unknown top-level keys.
// Printed, never asserted (issue 31's budget: under 1 s for any 1 MB
// manifest).
func BenchmarkManifestWorstShape(b *testing.B) {
	deep := manifest.MaxManifestDepth - 2
	dots := strings.TrimSuffix(strings.Repeat("a.", deep), ".")
	for _, shape := range []struct {
		name, head string
		line       func(i int) string
	}{
		{"inline", "title = \"t\"\n[x]\n", func(i int) string {
			return fmt.Sprintf("k%d = %s1%s\n", i, strings.Repeat("{a=", deep), strings.Repeat("}", deep))
		}},
		{"array", "title = \"t\"\n[x]\n", func(i int) string {
			return fmt.Sprintf("k%d = %s1%s\n", i, strings.Repeat("[", deep), strings.Repeat("]", deep))
		}},
		{"dotted", "title = \"t\"\n[x]\n", func(i int) string { return fmt.Sprintf("k%d.%s = 1\n", i, dots) }},
		{"headers", "title = \"t\"\n", func(i int) string { return fmt.Sprintf("[k%d.%s]\n", i, dots) }},
		{"keys", "title = \"t\"\n[x]\n", func(i int) string { return fmt.Sprintf("k%d = 1\n", i) }},
		{"top-level keys", "title = \"t\"\n", func(i int) string { return fmt.Sprintf("k%d = 1\n", i) }},
		{"tables", "title = \"t\"\n", func(i int) string { return "[[x]]\n" }},
		{"methods", "title = \"t\"\n", func(i int) string { return fmt.Sprintf("[[methods]]\nname = \"m%d\"\nlabel = \"Method %d\"\n", i, i) }},
		{"analyses", "title = \"t\"\n", func(i int) string {
			return fmt.Sprintf("[[analyses]]\nid = \"a%d\"\ntype = \"aggregate\"\nbogus = 1\n", i)
		}},
		{"inline tables in an array", "title = \"t\"\nx = [", func(i int) string { return "{a=1}," }},
	} {
		b.Run(shape.name, func(b *testing.B) {
			src := worstManifest(shape.head, shape.line)
			b.ReportMetric(float64(len(src)), "bytes")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				manifest.ParseStudy("/s/study.toml", src, kinds.Kinds())
			}
		})
	}
}
