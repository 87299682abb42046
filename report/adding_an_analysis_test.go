package report

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// docBlock is a fenced code block of docs/ADDING_AN_ANALYSIS.md whose
// info string names a file: "```go report/kinds/kind_spread.go".
type docBlock struct {
	file, text string
}

// checklistBlocks returns the doc's code blocks that name a file.
func checklistBlocks(t *testing.T) []docBlock {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "docs", "ADDING_AN_ANALYSIS.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []docBlock
	var cur *docBlock
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			if fields := strings.Fields(strings.TrimPrefix(line, "```")); len(fields) == 2 {
				cur = &docBlock{file: fields[1]}
			} else {
				cur = &docBlock{} // a block that names no file
			}
		case cur != nil && line == "```":
			if cur.file != "" {
				blocks = append(blocks, *cur)
			}
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

// copyModule copies what a build and the tests of the report package
// need into dir (with keepTests, only the test files it names).
func copyModule(t *testing.T, dir string, keepTests map[string]bool) {
	t.Helper()
	root, _ := filepath.Abs("..")
	for _, name := range []string{"go.mod", "go.sum", "README.md"} {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	for _, top := range []string{"analyses", "figures", "internal", "report", "themes"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if d.IsDir() {
				if d.Name() == "testdata" && top == "analyses" {
					return filepath.SkipDir
				}
				return os.MkdirAll(filepath.Join(dir, rel), 0o755)
			}
			if strings.HasSuffix(p, "_test.go") && keepTests != nil && !keepTests[filepath.ToSlash(rel)] {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestAddingAnAnalysisChecklist keeps docs/ADDING_AN_ANALYSIS.md honest:
// a copy of the module with exactly the doc's blocks written to the files
// they name (the README block appended) builds, its example kind passes its own test, and the
// tests that keep every kind documented pass with it.
func TestAddingAnAnalysisChecklist(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a copy of the module")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("no go command on PATH")
	}
	t.Parallel()
	dir := t.TempDir()
	copyModule(t, dir, nil)
	blocks := checklistBlocks(t)
	var tests []string
	for _, b := range blocks {
		path := filepath.Join(dir, filepath.FromSlash(b.file))
		switch b.file {
		case "README.md":
			readme, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(b.text, "| `") {
				readme = append(readme, b.text...) // a section: at the end
			} else if readme, err = insertTypeRow(readme, b.text); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(path, readme, 0o644)
		default:
			if _, err := os.Stat(path); err == nil {
				t.Fatalf("the doc's block for %s would overwrite an existing file", b.file)
			}
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(b.text), 0o644)
			if strings.HasSuffix(b.file, "_test.go") {
				for _, line := range strings.Split(b.text, "\n") {
					if strings.HasPrefix(line, "func Test") {
						tests = append(tests, strings.TrimSuffix(strings.Fields(strings.TrimPrefix(line, "func "))[0], "(t"))
					}
				}
			}
		}
	}
	if len(blocks) < 5 || len(tests) == 0 {
		t.Fatalf("the doc has %d file blocks and %d tests; want the five pieces and the kind's test", len(blocks), len(tests))
	}
	// The whole suites of the packages the example adds to (its own,
	// figures, the kinds), and of report the tests that hold every kind
	// to the house's rules: documented, noted, in the schema, small
	// functions, doc comments, stages, papers cited by author.
	registry := []string{"TestNotesParse", "TestNotesMatchKinds", "TestEveryKindTitlesItsAnalyses", "TestReadmeDocumentsEveryAnalysis", "TestReadmeNameTables",
		"TestSchemaCoversTheParser", "TestManifestMessages", "TestFunctionsAreSmall", "TestExportedNamesHaveDocComments",
		"TestPackageSizes", "TestPackageStageOrder", "TestFileStageOrder"}
	for _, c := range [][]string{
		{"test", "-count=1", "-short", "-vet=off", "./analyses/spread/", "./figures/...", "./report/kinds/"},
		{"test", "-count=1", "-vet=off", "-v", "-run", "^(" + strings.Join(append(tests, registry...), "|") + ")$", "./report/"},
	} {
		cmd := exec.Command(goTool, c...)
		cmd.Dir = dir
		// -trimpath in GOFLAGS, not on the command line: the copy's
		// builds are then the same from one run to the next wherever
		// its directory is (the build cache has them), and so are those
		// of the go list that TestFileStageOrder runs in it (it reads
		// GOFLAGS; without -trimpath it compiled every package report
		// depends on again, in the new directory, at every run); its
		// test binaries are linked without DWARF, as make test's
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod -trimpath -ldflags=-w")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the checklist's example does not pass in a copy of the module (go %s): %v\n%s", strings.Join(c, " "), err, out)
		}
		if c[len(c)-1] != "./report/" {
			continue
		}
		for _, name := range append(tests, registry...) {
			if !strings.Contains(string(out), "--- PASS: "+name+" ") {
				t.Errorf("%s did not pass in the copy:\n%s", name, out)
			}
		}
	}
}

// insertTypeRow puts a table row after the last row of the README's
// table under "### Analysis types".
func insertTypeRow(readme []byte, row string) ([]byte, error) {
	text := string(readme)
	i := strings.Index(text, "\n### Analysis types\n")
	if i < 0 {
		return nil, fmt.Errorf("README.md has no ### Analysis types")
	}
	end := i + 1
	lines := strings.SplitAfter(text[i+1:], "\n")
	seen := false
	for _, l := range lines {
		if strings.HasPrefix(l, "|") {
			seen = true
		} else if seen {
			break
		}
		end += len(l)
	}
	return []byte(text[:end] + row + text[end:]), nil
}
