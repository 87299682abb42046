package report

import (
	"context"
	"fmt"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// everyKindStudy writes a small study in which every analysis type reads
// every kind of file it can: results through a glob, per-unit files
// through a {method}_{dataset} pattern, characteristics, interaction
// logs, a meta-analysis summary, a multi-objective input, ranked runs,
// truth and predictions feeding an aggregate, a page and a bibliography.
func everyKindStudy(t testing.TB, dir string) {
	t.Helper()
	files := map[string]string{}
	var sb strings.Builder
	datasets := []string{"d1", "d2", "d3", "d4", "d5", "d6"}
	methods := []string{"A", "B", "C", "D"}
	quality := map[string]float64{"A": 0.30, "B": 0.26, "C": 0.22, "D": 0.15}
	val := func(i, j int, base float64) string {
		return fmt.Sprintf("%.4f", base+0.01*float64((i*7+j*3)%5))
	}
	for part, ds := range [][]string{datasets[:3], datasets[3:]} {
		sb.Reset()
		sb.WriteString("dataset,method,metric,value\n")
		for i, d := range ds {
			for j, m := range methods {
				fmt.Fprintf(&sb, "%s,%s,ndcg@10,%s\n", d, m, val(i+3*part, j, quality[m]))
				fmt.Fprintf(&sb, "%s,%s,recall@10,%s\n", d, m, val(i+3*part, j+1, quality[m]+0.1))
				fmt.Fprintf(&sb, "%s,%s,rmse,%s\n", d, m, val(i+3*part, j+2, 1.2-quality[m]))
			}
		}
		files[fmt.Sprintf("results/part%d.csv", part+1)] = sb.String()
	}
	for _, m := range []string{"A", "B"} {
		for di, d := range datasets[:3] {
			sb.Reset()
			sb.WriteString("user,ndcg@10\n")
			for u := 0; u < 12; u++ {
				fmt.Fprintf(&sb, "u%02d,%.4f\n", u, quality[m]+0.02*float64((u*5+di+len(m))%7))
			}
			files[fmt.Sprintf("units/%s_%s.csv", m, d)] = sb.String()
		}
	}
	sb.Reset()
	sb.WriteString("dataset,size,density,skew\n")
	for i, d := range datasets {
		fmt.Fprintf(&sb, "%s,%d,%.3f,%.3f\n", d, 100+37*i, 0.01+0.007*float64(i%4), 0.3+0.11*float64((i*3)%5))
	}
	files["characteristics.csv"] = sb.String()
	for i, d := range datasets {
		sb.Reset()
		sb.WriteString("user,item,rating,timestamp\n")
		for r := 0; r < 40; r++ {
			fmt.Fprintf(&sb, "u%d,i%d,%d,%d\n", (r*3+i)%(8+i), (r*5+2*i)%(9+i), 1+(r+i)%5, 1600000000+r*100)
		}
		files["logs/"+d+".csv"] = sb.String()
	}
	files["summary.csv"] = "dataset,n,mean_diff,sd_diff\nd1,120,0.012,0.05\nd2,80,0.020,0.07\nd3,150,0.004,0.04\n"
	files["submissions.csv"] = "team,hit_rate,fairness,diversity\nred,0.10,-0.010,-0.30\nblue,0.14,-0.008,-0.25\ngreen,0.12,-0.004,-0.35\nteal,0.09,-0.002,-0.20\n"
	for _, d := range []string{"o1", "o2"} {
		sb.Reset()
		sb.WriteString("user,item,relevance\n")
		for u := 0; u < 6; u++ {
			fmt.Fprintf(&sb, "u%d,i%d,%d\n", u, u%3, 1+u%5)
			fmt.Fprintf(&sb, "u%d,i%d,%d\n", u, 3+u%4, 1+(u+2)%5)
		}
		files["truth/"+d+".csv"] = sb.String()
		for mi, m := range []string{"A", "B"} {
			sb.Reset()
			sb.WriteString("user,item,rank,score\n")
			for u := 0; u < 6; u++ {
				for r := 1; r <= 5; r++ {
					fmt.Fprintf(&sb, "u%d,i%d,%d,%.3f\n", u, (u+r*(mi+1))%7, r, 10-float64(r))
				}
			}
			files["runs/"+m+"_"+d+".csv"] = sb.String()
			sb.Reset()
			sb.WriteString("user,item,prediction\n")
			for u := 0; u < 6; u++ {
				fmt.Fprintf(&sb, "u%d,i%d,%.2f\n", u, u%3, 2.5+float64((u+mi)%3))
				fmt.Fprintf(&sb, "u%d,i%d,%.2f\n", u, 3+u%4, 3+float64((u+2*mi)%2))
			}
			files["predictions/"+m+"_"+d+".csv"] = sb.String()
		}
	}
	files["notes.md"] = "# Notes\n\nA ranks {{value agg tables.agg[method=A].mean_rank %.2f}} on average [@ref1].\n"
	files["refs.bib"] = "@article{ref1,\n  author = {Author, A.},\n  title = {A Title},\n  journal = {J},\n  year = {2021}\n}\n"
	sb.Reset()
	sb.WriteString(`title = "Every kind of file"
seed = 7
bibliography = "refs.bib"

[[metrics]]
name = "rmse"
better = "lower"

[inputs]
results = "results/*.csv"
units = [{ path = "units/{method}_{dataset}.csv", columns = { unit = "user" } }]
characteristics = "characteristics.csv"

[[pages]]
title = "Notes"
source = "notes.md"
`)
	for _, d := range datasets {
		fmt.Fprintf(&sb, "\n[[datasets]]\nname = %q\ninteractions = \"logs/%s.csv\"\ndomain = %q\n", d, d, map[bool]string{true: "x", false: "y"}[d < "d4"])
	}
	sb.WriteString(`
[[analyses]]
id = "om"
type = "offline_metrics"
runs = "runs/{method}_{dataset}.csv"
truth = "truth/{dataset}.csv"
predictions = "predictions/{method}_{dataset}.csv"
k = [5]
relevance_threshold = 2

[[analyses]]
id = "agg"
type = "aggregate"
metric = "ndcg@10"
missing = "drop"

[[analyses]]
id = "agg-om"
type = "aggregate"
metric = "ndcg@5"
methods = ["A", "B"]
datasets = ["o1", "o2"]

[[analyses]]
id = "cd"
type = "critical_difference"
metric = "ndcg@10"
missing = "drop"

[[analyses]]
id = "stab"
type = "stability"
metric = "ndcg@10"
missing = "drop"
repeats = 3

[[analyses]]
id = "corr"
type = "metric_correlation"
metrics = ["ndcg@10", "recall@10", "rmse"]

[[analyses]]
id = "chars"
type = "characteristics"
metric = "ndcg@10"
core = 1

[[analyses]]
id = "clus"
type = "clusters"
metric = "ndcg@10"

[[analyses]]
id = "sel"
type = "dataset_selection"
metrics = ["ndcg@10"]
size = 2
simulations = 10

[[analyses]]
id = "pt"
type = "paired_tests"
metric = "ndcg@10"
dataset = "d1"
methods = ["A", "B"]

[[analyses]]
id = "meta"
type = "meta_analysis"
treatment = "A"
control = "B"
metric = "ndcg@10"
effect = "md"

[[analyses]]
id = "metas"
type = "meta_analysis"
treatment = "A"
control = "B"
metric = "ndcg@10"
summary = "summary.csv"
better = "higher"

[[analyses]]
id = "mo"
type = "multi_objective"
input = { path = "submissions.csv", columns = { model = "team" } }
base = "hit_rate"
objectives = ["fairness", "diversity"]
`)
	files["study.toml"] = sb.String()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// treeFiles returns every file under dir (relative slash path → content).
func treeFiles(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return out
}

// editSameSize changes one digit near the end of a file without changing
// its size, and puts its modification time back: only the content (and
// the change time, which nothing can set) says it changed.
func editSameSize(t testing.TB, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] >= '1' && b[i] <= '8' {
			b[i]++
			break
		}
		if i == 0 {
			t.Fatalf("%s: no digit to edit", path)
		}
	}
	if err := os.WriteFile(path, b, st.Mode()); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if st2, _ := os.Stat(path); st2.Size() != st.Size() || !st2.ModTime().Equal(st.ModTime()) {
		t.Fatalf("%s: size or mtime changed", path)
	}
}

// siteOrError builds and returns the site's files, or the error text.
func siteOrError(o Options) (map[string]string, string) {
	if _, err := Build(context.Background(), o); err != nil {
		return nil, err.Error()
	}
	out := map[string]string{}
	filepath.WalkDir(o.Out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(o.Out, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return out, ""
}

// siteOrErrorRead reads a built site.
func siteOrErrorRead(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	return out, err
}

// staleSlot is one copy of the every-kind study with its own disk cache,
// outputs and serve. TestCacheNeverStale's cells run side by side, each
// in a slot of its own while it runs; a slot is reused by the next cell.
type staleSlot struct {
	study, cacheDir, snapshot string
	pristine                  map[string]string
	cached, fresh             Options
	served                    string
	srv                       *Server
}

// newStaleSlot writes the pristine study under dir, fills the slot's disk
// cache with one build of it, checks that an unchanged study is then taken
// whole from that cache, and keeps a copy of the filled cache.
func newStaleSlot(t testing.TB, dir string, pristine map[string]string) *staleSlot {
	t.Helper()
	s := &staleSlot{study: filepath.Join(dir, "study"), cacheDir: filepath.Join(dir, "cache"),
		snapshot: filepath.Join(dir, "cache-filled"), pristine: pristine}
	for rel, body := range pristine {
		s.write(t, rel, body)
	}
	opts := Options{Manifest: filepath.Join(s.study, "study.toml"), Version: "test", Format: "both", Jobs: 2}
	s.cached = opts
	s.cached.CacheDir, s.cached.Out = s.cacheDir, filepath.Join(dir, "cached")
	s.fresh = opts
	s.fresh.NoCache, s.fresh.Out = true, filepath.Join(dir, "fresh")
	if _, err := Build(context.Background(), s.cached); err != nil {
		t.Fatalf("the fixture study does not build: %v", err)
	}
	// The disk cache really holds them: an unchanged study is taken whole
	// from it (a write that fails, as when a figure could not be encoded,
	// only costs time and would otherwise pass unseen).
	if sum, err := Build(context.Background(), s.cached); err != nil {
		t.Fatal(err)
	} else if st, err := manifest.LoadStudy(s.cached.Manifest, kinds.Kinds()); err == nil {
		if want := len(st.Analyses); sum.Cached != want {
			t.Errorf("an unchanged study: %d of %d analyses from the disk cache, want %d", sum.Cached, sum.Analyses, want)
		}
	}
	if err := os.CopyFS(s.snapshot, os.DirFS(s.cacheDir)); err != nil {
		t.Fatal(err)
	}
	// evalbook serve: its in-memory cache and its watch list.
	served := opts
	s.served = filepath.Join(dir, "served")
	served.Out = s.served
	s.srv = NewServer(served, nil)
	return s
}

func (s *staleSlot) write(t testing.TB, rel, body string) {
	t.Helper()
	p := filepath.Join(s.study, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// reset puts the study back as it was and the disk cache back as the
// builds of the unchanged study filled it.
func (s *staleSlot) reset(t testing.TB) {
	t.Helper()
	now := treeFiles(t, s.study)
	for rel := range now {
		if _, ok := s.pristine[rel]; !ok {
			os.Remove(filepath.Join(s.study, filepath.FromSlash(rel)))
		}
	}
	for rel, body := range s.pristine {
		if now[rel] != body {
			s.write(t, rel, body)
		}
	}
	if err := os.RemoveAll(s.cacheDir); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(s.cacheDir, os.DirFS(s.snapshot)); err != nil {
		t.Fatal(err)
	}
}

// staleChange changes the study in dir.
type staleChange func(t testing.TB, study string)

// TestCacheNeverStale changes every kind of file every analysis type
// reads, in every way — an edit that keeps size and modification time,
// an append, a new file matching a pattern, a removed file, a renamed
// file — and checks that a build using the cache (filled before the
// change) is byte-identical to a build without it, or fails the same way.
// Each cell runs in a slot (a copy of the study with its own disk cache
// and serve) as a parallel subtest; a slot's cache is filled once and put
// back before each cell, its serve rebuilds the unchanged study.
func TestCacheNeverStale(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	everyKindStudy(t, filepath.Join(base, "pristine"))
	pristine := treeFiles(t, filepath.Join(base, "pristine"))

	appendTo := func(rel, line string) staleChange {
		return func(t testing.TB, study string) {
			f, err := os.OpenFile(filepath.Join(study, rel), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(line)
			f.Close()
		}
	}
	write := func(rel, body string) staleChange {
		return func(t testing.TB, study string) {
			if err := os.WriteFile(filepath.Join(study, rel), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	remove := func(rel string) staleChange {
		return func(t testing.TB, study string) {
			if err := os.Remove(filepath.Join(study, rel)); err != nil {
				t.Fatal(err)
			}
		}
	}
	rename := func(from, to string) staleChange {
		return func(t testing.TB, study string) {
			if err := os.Rename(filepath.Join(study, from), filepath.Join(study, to)); err != nil {
				t.Fatal(err)
			}
		}
	}
	edit := func(rel string) staleChange {
		return func(t testing.TB, study string) { editSameSize(t, filepath.Join(study, rel)) }
	}
	copyAs := func(from, to string) staleChange {
		return write(to, pristine[from])
	}

	cases := []struct {
		name   string
		change staleChange
	}{
		// results (aggregate, critical_difference, stability,
		// metric_correlation, characteristics, clusters,
		// dataset_selection, paired_tests over datasets) through a glob
		{"results/edit", edit("results/part2.csv")},
		{"results/append", appendTo("results/part2.csv", "d6,E,ndcg@10,0.2\nd5,E,ndcg@10,0.21\n")},
		{"results/new-match", write("results/part3.csv", "dataset,method,metric,value\nd7,A,ndcg@10,0.31\nd7,B,ndcg@10,0.22\nd7,C,ndcg@10,0.25\nd7,D,ndcg@10,0.11\n")},
		{"results/removed", remove("results/part2.csv")},
		{"results/renamed", rename("results/part2.csv", "results/part0.csv")},
		// per-unit files (paired_tests, meta_analysis lockstep)
		{"units/edit", edit("units/A_d1.csv")},
		{"units/append", appendTo("units/B_d2.csv", "u99,0.5\n")},
		{"units/new-match", copyAs("units/A_d3.csv", "units/A_d4.csv")},
		{"units/new-pair", func(t testing.TB, study string) {
			copyAs("units/A_d3.csv", "units/A_d5.csv")(t, study)
			copyAs("units/B_d1.csv", "units/B_d5.csv")(t, study)
		}},
		{"units/removed", remove("units/B_d3.csv")},
		{"units/renamed", rename("units/B_d3.csv", "units/C_d3.csv")},
		// characteristics file (clusters, characteristics)
		{"characteristics/edit", edit("characteristics.csv")},
		{"characteristics/append", appendTo("characteristics.csv", "d7,400,0.02,0.5\n")},
		{"characteristics/removed", remove("characteristics.csv")},
		// interaction logs (characteristics, clusters)
		{"logs/edit", edit("logs/d2.csv")},
		{"logs/append", appendTo("logs/d2.csv", "u1,i77,5,1600099999\n")},
		{"logs/removed", remove("logs/d2.csv")},
		{"logs/renamed", rename("logs/d2.csv", "logs/d2-old.csv")},
		// meta-analysis summary
		{"summary/edit", edit("summary.csv")},
		{"summary/append", appendTo("summary.csv", "d4,90,0.03,0.08\n")},
		{"summary/removed", remove("summary.csv")},
		// multi-objective input
		{"submissions/edit", edit("submissions.csv")},
		{"submissions/append", appendTo("submissions.csv", "pink,0.11,-0.005,-0.28\n")},
		{"submissions/renamed", rename("submissions.csv", "subs.csv")},
		// ranked runs, truth and predictions, which feed agg-om
		{"runs/edit", edit("runs/A_o1.csv")},
		{"runs/append", appendTo("runs/B_o2.csv", "u9,i1,1,9\nu9,i2,2,8\n")},
		{"runs/new-match", copyAs("runs/A_o1.csv", "runs/C_o1.csv")},
		{"runs/removed", remove("runs/B_o1.csv")},
		{"runs/renamed", rename("runs/B_o1.csv", "runs/C_o1.csv")},
		{"truth/edit", edit("truth/o2.csv")},
		{"truth/append", appendTo("truth/o1.csv", "u5,i6,5\n")},
		{"truth/new-match", copyAs("truth/o1.csv", "truth/o3.csv")},
		{"truth/removed", remove("truth/o2.csv")},
		{"predictions/edit", edit("predictions/A_o1.csv")},
		{"predictions/append", appendTo("predictions/B_o1.csv", "u1,i6,4.5\n")},
		{"predictions/removed", remove("predictions/A_o2.csv")},
		// pages and bibliography
		{"page/edit", edit("notes.md")},
		{"page/append", appendTo("notes.md", "\nMore text.\n")},
		{"bib/edit", edit("refs.bib")},
		{"bib/removed", remove("refs.bib")},
	}
	// At most one slot per cell running at once (go test runs -parallel
	// of them); under the race detector one slot, whose two cells take
	// turns, as filling a slot costs two builds.
	maxSlots := runtime.GOMAXPROCS(0)
	if raceEnabled {
		maxSlots = 1
	}
	// A token is a slot, or nil for one not made yet.
	tokens := make(chan *staleSlot, maxSlots)
	for range maxSlots {
		tokens <- nil
	}
	take := func(t testing.TB) (s *staleSlot) {
		if s = <-tokens; s != nil {
			return s
		}
		defer func() {
			if s == nil { // newStaleSlot failed: the next cell tries again
				tokens <- nil
			}
		}()
		dir, err := os.MkdirTemp(base, "slot")
		if err != nil {
			t.Fatal(err)
		}
		return newStaleSlot(t, dir, pristine)
	}
	give := func(s *staleSlot) { tokens <- s }
	seen := map[string]bool{}
	// Under the race detector two cases: an edit of the results, which
	// most analyses recompute while the rest come from the cache, and of
	// the interaction logs, which two recompute on goroutines of their
	// own. Every case's fresh build computes every analysis concurrently,
	// reading every kind of file, anyway.
	raceKinds := map[string]bool{"results": true, "logs": true}
	for _, c := range cases {
		kind := strings.SplitN(c.name, "/", 2)[0]
		if (raceEnabled || testing.Short()) && seen[kind] {
			continue // under the race detector or -short: one case per kind of file
		}
		if raceEnabled && !raceKinds[kind] {
			continue
		}
		seen[kind] = true
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := take(t)
			defer give(s)
			s.reset(t) // the cache holds the unchanged study
			srv := s.srv
			srv.Build() // serve has built the unchanged study
			if srv.changed() {
				t.Fatal("serve sees a change before the change")
			}
			c.change(t, s.study)
			if !srv.changed() {
				t.Fatal("serve does not see the change: it would not rebuild")
			}
			got, gotErr := siteOrError(s.cached)
			want, wantErr := siteOrError(s.fresh)
			if gotErr != wantErr {
				t.Fatalf("cached build: %q\nfresh build: %q", gotErr, wantErr)
			}
			srvErr := ""
			if err := srv.Build(); err != nil {
				srvErr = err.Error()
			}
			if srvErr != wantErr {
				t.Fatalf("serve's rebuild: %q\nfresh build: %q", srvErr, wantErr)
			}
			if wantErr == "" {
				servedSite, _ := siteOrErrorRead(s.served)
				for name := range want {
					if servedSite[name] != want[name] && !strings.HasPrefix(name, "provenance") {
						t.Fatalf("serve's rebuild differs from a fresh build in %s", name)
					}
				}
			}
			var diff []string
			for name := range want {
				if got[name] != want[name] {
					diff = append(diff, name)
				}
			}
			for name := range got {
				if _, ok := want[name]; !ok {
					diff = append(diff, name)
				}
			}
			sort.Strings(diff)
			if len(diff) > 0 {
				if os.Getenv("EVALBOOK_DEBUG_DIFF") != "" {
					t.Logf("cached %s:\n%s\nfresh:\n%s", diff[len(diff)-1], got[diff[len(diff)-1]], want[diff[len(diff)-1]])
				}
				t.Fatalf("the cached build differs from a fresh one in %s", strings.Join(diff, ", "))
			}
		})
	}
}
