package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pagesWorkflow is the example CI workflow the README points to.
const pagesWorkflow = "docs/ci/github-pages.yml"

// workflowStep is one step of a GitHub Actions job, as much of it as the
// test needs.
type workflowStep struct {
	job, name, uses, run, path string
	line                       int // 1-based line of the step's "- "
}

// parseWorkflow reads the top-level env and the steps of every job of a
// GitHub Actions workflow. It reads only the shapes the example uses
// (block scalars `run: |`, `key: value` pairs, `# comments`), and fails
// the test on a `run:` it cannot read rather than skipping it.
func parseWorkflow(t *testing.T, src string) (env map[string]string, steps []workflowStep) {
	t.Helper()
	env = map[string]string{}
	lines := strings.Split(src, "\n")
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
	value := func(s string) string {
		if i := strings.Index(s, " #"); i >= 0 {
			s = s[:i]
		}
		return strings.Trim(strings.TrimSpace(s), `"'`)
	}
	var section, job string
	stepsIndent := -1
	var cur *workflowStep
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		text := strings.TrimSpace(line)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if strings.Contains(line, "\t") {
			t.Fatalf("%s:%d: a tab in the indentation", pagesWorkflow, i+1)
		}
		ind := indent(line)
		if ind == 0 {
			section, _, _ = strings.Cut(text, ":")
			job, stepsIndent, cur = "", -1, nil
			continue
		}
		if section == "env" && ind == 2 {
			k, v, _ := strings.Cut(text, ":")
			env[strings.TrimSpace(k)] = value(v)
			continue
		}
		if section != "jobs" {
			continue
		}
		if ind == 2 && strings.HasSuffix(text, ":") {
			job, stepsIndent, cur = strings.TrimSuffix(text, ":"), -1, nil
			continue
		}
		if text == "steps:" {
			stepsIndent, cur = ind, nil
			continue
		}
		if stepsIndent < 0 || ind <= stepsIndent {
			stepsIndent, cur = -1, nil
			continue
		}
		keyIndent := ind
		if item, ok := strings.CutPrefix(text, "- "); ok {
			steps = append(steps, workflowStep{job: job, line: i + 1})
			cur = &steps[len(steps)-1]
			text, keyIndent = item, ind+2
		}
		if cur == nil {
			continue
		}
		key, v, _ := strings.Cut(text, ":")
		switch strings.TrimSpace(key) {
		case "name":
			cur.name = value(v)
		case "uses":
			cur.uses = value(v)
		case "path":
			cur.path = value(v)
		case "run":
			if strings.TrimSpace(v) != "|" {
				t.Fatalf("%s:%d: write the step's commands as a block, `run: |`", pagesWorkflow, i+1)
			}
			var body []string
			bodyIndent := -1
			for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || indent(lines[i+1]) > keyIndent) {
				i++
				if bodyIndent < 0 && strings.TrimSpace(lines[i]) != "" {
					bodyIndent = indent(lines[i])
				}
				if len(lines[i]) >= bodyIndent && bodyIndent >= 0 {
					body = append(body, lines[i][bodyIndent:])
				} else {
					body = append(body, "")
				}
			}
			cur.run = strings.TrimSpace(strings.Join(body, "\n")) + "\n"
		}
	}
	return env, steps
}

// envExpr is a workflow expression naming a variable of the top-level env.
var envExpr = regexp.MustCompile(`\$\{\{\s*env\.(\w+)\s*\}\}`)

// TestPagesWorkflowBuildsTheSite: the example workflow in docs/ci, run
// locally. Its build job's `run:` steps run in bash (as GitHub runs them:
// -eo pipefail) in a workspace holding a small study, with the workflow's
// env, except the step that installs evalbook, which this test replaces
// with an evalbook it builds from this source; then the directory the
// upload step publishes must hold the site's index.html and a page per
// analysis. The workflow must also check out the study, set up Go,
// upload the site as a Pages artifact and deploy it.
func TestPagesWorkflowBuildsTheSite(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(pagesWorkflow)))
	if err != nil {
		t.Fatal(err)
	}
	env, steps := parseWorkflow(t, string(src))
	if env["STUDY"] == "" {
		t.Fatalf("%s: no STUDY in the top-level env", pagesWorkflow)
	}
	uses := map[string]*workflowStep{}
	var runs []workflowStep
	installs := 0
	for i, s := range steps {
		if s.uses != "" {
			name, _, _ := strings.Cut(s.uses, "@")
			if uses[name] == nil {
				uses[name] = &steps[i]
			}
		}
		if s.run == "" || s.job != "build" {
			continue
		}
		if strings.Contains(s.run, "${{") {
			t.Fatalf("%s:%d: step %q: a `run:` with a ${{ }} expression cannot run here; use the env", pagesWorkflow, s.line, s.name)
		}
		if strings.Contains(s.run, "go install ./cmd/evalbook") {
			installs++
			continue
		}
		runs = append(runs, s)
	}
	for _, want := range []string{"actions/checkout", "actions/setup-go", "actions/upload-pages-artifact", "actions/deploy-pages"} {
		if uses[want] == nil {
			t.Errorf("%s: no step uses %s", pagesWorkflow, want)
		}
	}
	if installs != 1 || len(runs) == 0 {
		t.Fatalf("%s: %d steps install evalbook from source (want 1) and %d other run steps: the extraction lost some", pagesWorkflow, installs, len(runs))
	}
	upload := uses["actions/upload-pages-artifact"]
	if upload == nil || upload.path == "" {
		t.Fatalf("%s: the upload step has no path", pagesWorkflow)
	}

	// the install step, replaced: evalbook from this source (this test
	// binary, run as the command)
	tmp := t.TempDir()
	bin := commandOnPath(t, tmp)
	work := filepath.Join(tmp, "work")
	study := filepath.Join(work, filepath.FromSlash(env["STUDY"]))
	writeTree(t, study, map[string]string{
		"study.toml": `title = "Three recommenders on three datasets"

[inputs]
results = "results.csv"

[[analyses]]
id     = "leaderboard"
type   = "aggregate"
metric = "ndcg@10"
`,
		"results.csv": "dataset,method,metric,value\n" +
			"d1,A,ndcg@10,0.30\nd1,B,ndcg@10,0.25\nd1,C,ndcg@10,0.20\n" +
			"d2,A,ndcg@10,0.40\nd2,B,ndcg@10,0.45\nd2,C,ndcg@10,0.35\n" +
			"d3,A,ndcg@10,0.50\nd3,B,ndcg@10,0.42\nd3,C,ndcg@10,0.41\n",
	})
	environ := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GITHUB_WORKSPACE="+work, "RUNNER_TEMP="+tmp)
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	for _, s := range runs {
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.run)
		cmd.Dir, cmd.Env = work, environ
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s:%d: step %q failed: %v\n%s\n%s", pagesWorkflow, s.line, s.name, err, s.run, out)
		}
	}
	published := envExpr.ReplaceAllStringFunc(upload.path, func(e string) string {
		return env[envExpr.FindStringSubmatch(e)[1]]
	})
	if strings.Contains(published, "${{") {
		t.Fatalf("%s:%d: upload path %q: only ${{ env.NAME }} is understood here", pagesWorkflow, upload.line, upload.path)
	}
	for _, page := range []string{"index.html", "leaderboard.html"} {
		if _, err := os.Stat(filepath.Join(work, filepath.FromSlash(published), page)); err != nil {
			t.Errorf("%s:%d: the uploaded directory %q has no %s after the workflow's steps: %v", pagesWorkflow, upload.line, upload.path, page, err)
		}
	}
}

// writeTree writes files (relative path → content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
