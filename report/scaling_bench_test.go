package report

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkScaling builds one analysis of each kind a generated study
// can feed (all but offline_metrics, which reads a ranked-list file per
// run) over n methods (10 datasets) and over n datasets (10 methods), n = 10, 100, 1 000, 10 000 (EVALBOOK_SCALING_SIZES=10,100
// for a quick run), and prints each build's wall and CPU time and the
// growth exponent of CPU time between sizes (the log-log slope: 1 is
// linear, 2 quadratic; of wall time where CPU time is not measured). An
// analysis that refuses a size prints its error instead (pairwise tests
// stop at their limit of methods, stability at its limit of work). Printed, never asserted (issue 31:
// no kind faster than n log n, about 1.1 per decade at these sizes).
func BenchmarkScaling(b *testing.B) {
	sizes := scalingSizes(b)
	kinds := []struct{ name, opts string }{
		{"aggregate", `type = "aggregate"` + "\nmetric = \"m1\""},
		{"critical_difference", `type = "critical_difference"` + "\nmetric = \"m1\"\nbayesian = false"},
		{"paired_tests", `type = "paired_tests"` + "\nmetric = \"m1\""},
		{"stability", `type = "stability"` + "\nmetric = \"m1\"\nrepeats = 10"},
		{"metric_correlation", `type = "metric_correlation"`},
		{"characteristics", `type = "characteristics"` + "\nmetric = \"m1\"\nfrom = \"input\""},
		{"clusters", `type = "clusters"` + "\nmetric = \"m1\"\ntrees = 100\ninits = 2\nk = 3"},
		{"dataset_selection", `type = "dataset_selection"` + "\nmetrics = [\"m1\", \"m2\"]\nsize = 2\nsimulations = 10"},
		{"meta_analysis", `type = "meta_analysis"` + "\nsummary = \"effects.csv\"\nbetter = \"higher\"\nsensitivity = true"},
		{"multi_objective", `type = "multi_objective"` + "\ndataset = \"d0\"\nbase = \"m1\"\nobjectives = [\"m2\"]"},
	}
	for _, k := range kinds {
		for _, axis := range []string{"methods", "datasets"} {
			b.Run(k.name+"/"+axis, func(b *testing.B) {
				var prevN int
				var prev time.Duration
				for _, n := range sizes {
					nd, nm := 10, n
					if axis == "datasets" {
						nd, nm = n, 10
					}
					dir := b.TempDir()
					writeScalingStudy(b, dir, nd, nm, k.opts)
					start, cpu0 := time.Now(), processCPU()
					_, err := Build(context.Background(), Options{Manifest: filepath.Join(dir, "study.toml"), Format: "html", NoCache: true, Version: "bench", Quiet: true})
					wall, cpu := time.Since(start), processCPU()-cpu0
					d := cpu // the exponent of CPU time: the machine may be shared
					if cpu <= 0 {
						d = wall
					}
					if err != nil {
						msg := err.Error()
						if i := strings.IndexByte(msg, '\n'); i >= 0 {
							msg = msg[:i]
						}
						b.Logf("%s over %d %s: stopped after %v: %s", k.name, n, axis, wall.Round(time.Millisecond), msg)
						prevN = 0
						continue
					}
					slope := ""
					if prevN > 0 {
						slope = fmt.Sprintf(", exponent %.2f", math.Log(float64(d)/float64(prev))/math.Log(float64(n)/float64(prevN)))
					}
					b.Logf("%s over %d %s: %v wall, %v CPU%s", k.name, n, axis, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), slope)
					prevN, prev = n, d
				}
			})
		}
	}
}

// scalingSizes is 10, 100, 1 000, 10 000, or EVALBOOK_SCALING_SIZES.
func scalingSizes(b *testing.B) []int {
	sizes := []int{10, 100, 1000, 10000}
	if env := os.Getenv("EVALBOOK_SCALING_SIZES"); env != "" {
		sizes = nil
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 2 {
				b.Fatalf("EVALBOOK_SCALING_SIZES: %q", env)
			}
			sizes = append(sizes, n)
		}
	}
	return sizes
}

// writeScalingStudy writes a study of nd datasets × nm methods × two
// metrics (seeded values), the characteristics of the datasets (four
// features), a generic effect-size summary (one row per dataset) and one
// analysis with the given options.
func writeScalingStudy(b testing.TB, dir string, nd, nm int, opts string) {
	f, err := os.Create(filepath.Join(dir, "results.csv"))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "dataset,method,metric,value")
	x := uint64(1)
	for d := 0; d < nd; d++ {
		for m := 0; m < nm; m++ {
			for _, metric := range []string{"m1", "m2"} {
				x = x*6364136223846793005 + 1442695040888963407
				fmt.Fprintf(w, "d%d,method-%d,%s,%.6f\n", d, m, metric, 0.1+float64(x>>11)/float64(1<<53))
			}
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	var chars, effects strings.Builder
	chars.WriteString("dataset,Nu,Ni,Density,Gini_i\n")
	effects.WriteString("dataset,yi,vi\n")
	for d := 0; d < nd; d++ {
		fmt.Fprintf(&chars, "d%d", d)
		for i := 0; i < 4; i++ {
			x = x*6364136223846793005 + 1442695040888963407
			fmt.Fprintf(&chars, ",%.6f", 1+float64(x>>11)/float64(1<<53))
		}
		chars.WriteByte('\n')
		x = x*6364136223846793005 + 1442695040888963407
		fmt.Fprintf(&effects, "d%d,%.6f,%.6f\n", d, float64(x>>11)/float64(1<<53)-0.3, 0.01+0.01*float64(d%7))
	}
	for name, text := range map[string]string{"chars.csv": chars.String(), "effects.csv": effects.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// The analysis's header stays on line 4 (TestMatrixLimits' errors).
	manifest := "title = \"scaling\"\ninputs.results = \"results.csv\"\ninputs.characteristics = \"chars.csv\"\n[[analyses]]\nid = \"a\"\n" + opts + "\n"
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(manifest), 0o644); err != nil {
		b.Fatal(err)
	}
}
