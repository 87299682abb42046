package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeBlock is a fenced block of the README's walkthrough: a file
// (```csv file=long/results.csv) or commands to run (```sh run).
type readmeBlock struct {
	file string // relative path, for a file
	run  bool
	body string
}

// walkthroughBlocks extracts the blocks of the section "From your CSVs to
// a site in ten minutes".
func walkthroughBlocks(t *testing.T) (section string, blocks []readmeBlock) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	const head = "## From your CSVs to a site in ten minutes\n"
	i := strings.Index(text, head)
	if i < 0 {
		t.Fatal("README.md has no walkthrough section")
	}
	section = text[i+len(head):]
	if j := strings.Index(section, "\n## "); j >= 0 {
		section = section[:j]
	}
	lines := strings.Split(section, "\n")
	for k := 0; k < len(lines); k++ {
		info, ok := strings.CutPrefix(lines[k], "```")
		if !ok || info == "" {
			continue
		}
		var b readmeBlock
		for _, f := range strings.Fields(info)[1:] {
			if name, ok := strings.CutPrefix(f, "file="); ok {
				b.file = name
			}
			if f == "run" {
				b.run = true
			}
		}
		var body []string
		for k++; k < len(lines) && lines[k] != "```"; k++ {
			body = append(body, lines[k])
		}
		b.body = strings.Join(body, "\n") + "\n"
		if b.file != "" || b.run {
			blocks = append(blocks, b)
		}
	}
	return section, blocks
}

// TestReadmeWalkthrough: the README's walkthrough works as written. Its
// files are written into a temporary directory and its commands run
// there (evalbook validate/build DIR): each exits 0 and each build
// writes the overview and a page per analysis of the study. The error
// the walkthrough quotes for the wide characteristics file without
// ignore is the one evalbook gives.
func TestReadmeWalkthrough(t *testing.T) {
	t.Parallel()
	section, blocks := walkthroughBlocks(t)
	dir := t.TempDir()
	var files, commands int
	for _, b := range blocks {
		if b.file == "" {
			continue
		}
		files++
		p := filepath.Join(dir, filepath.FromSlash(b.file))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	built := map[string]bool{}
	for _, b := range blocks {
		if !b.run {
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(b.body), "\n") {
			f := strings.Fields(line)
			if len(f) != 3 || f[0] != "evalbook" {
				t.Fatalf("walkthrough command %q: want evalbook <command> <dir>", line)
			}
			commands++
			study := filepath.Join(dir, f[2])
			args := []string{f[1], study}
			if f[1] == "build" {
				args = append(args, "--quiet")
			}
			code, out, errOut := runCLI(args...)
			if code != 0 {
				t.Errorf("%s: exit %d\n%s%s", line, code, out, errOut)
				continue
			}
			if f[1] == "build" {
				built[f[2]] = true
			}
		}
	}
	if files < 10 || commands < 5 || len(built) != 4 {
		t.Fatalf("walkthrough has %d files, %d commands, %d builds: the extraction lost some", files, commands, len(built))
	}
	for name := range built {
		manifest, _ := os.ReadFile(filepath.Join(dir, name, "study.toml"))
		ids := regexp.MustCompile(`(?m)^id\s*=\s*"([^"]+)"`).FindAllStringSubmatch(string(manifest), -1)
		if len(ids) == 0 {
			t.Errorf("%s: no analyses", name)
		}
		for _, page := range append([]string{"index"}, idsOf(ids)...) {
			if _, err := os.Stat(filepath.Join(dir, name, "site", page+".html")); err != nil {
				t.Errorf("%s: the site has no %s.html", name, page)
			}
		}
	}
	// the quoted error, made real: the wide study without its ignore
	wide := filepath.Join(dir, "wide", "study.toml")
	src, _ := os.ReadFile(wide)
	os.WriteFile(wide, []byte(strings.Replace(string(src), `, ignore = ["Method"]`, "", 1)), 0o644)
	code, _, errOut := runCLI("validate", wide)
	msg := regexp.MustCompile(`chars\.csv:\d+:\d+: column "Method" is read as a feature[^\n]*`).FindString(errOut)
	if code != 1 || msg == "" {
		t.Fatalf("wide study without ignore: exit %d, %q", code, errOut)
	}
	if !strings.Contains(strings.Join(strings.Fields(section), " "), msg) {
		t.Errorf("the walkthrough does not quote the error evalbook gives:\n%s", msg)
	}
	// and the matrix study without its layout: the hint it quotes, the
	// header elided
	matrix := filepath.Join(dir, "matrix", "study.toml")
	src, _ = os.ReadFile(matrix)
	os.WriteFile(matrix, []byte(strings.Replace(string(src), `, layout = "matrix", metric = "AUC"`, "", 1)), 0o644)
	code, _, errOut = runCLI("validate", matrix)
	msg = regexp.MustCompile(`auc\.csv:1: no column "method"[^\n]*`).FindString(errOut)
	quoted := regexp.MustCompile(`\(header: [^)]*\)`).ReplaceAllString(msg, "(header: …)")
	if code != 1 || msg == "" || !strings.Contains(msg, `add layout = "matrix"`) {
		t.Fatalf("matrix study without layout: exit %d, %q", code, errOut)
	}
	if !strings.Contains(strings.Join(strings.Fields(section), " "), quoted) {
		t.Errorf("the walkthrough does not quote the error evalbook gives:\n%s", quoted)
	}
}

func idsOf(m [][]string) []string {
	out := make([]string, len(m))
	for i, s := range m {
		out[i] = s[1]
	}
	return out
}
