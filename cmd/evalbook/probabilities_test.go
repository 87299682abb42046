package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// pValueKey is a p-value's name in the data files (as the pages
// recognise p-value columns).
var pValueKey = regexp.MustCompile(`(?i)^(p|pvalue|p[_-].*|.*[_-]p|.*[_-]p[_-]?value|p[_-]?value.*)$`)

// monteCarloKeys are the Monte Carlo estimates of the demo, kept raw in
// the data files (an estimate of 0 of the draws is published as 0, and
// printed as a bound at its resolution).
var monteCarloKeys = map[string]bool{"p_left": true, "p_rope": true, "p_right": true}

// zeroPValues lists the p-values of a data tree that are exactly 0.
func zeroPValues(v any, path string, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if f, ok := e.(float64); ok && f == 0 && pValueKey.MatchString(k) && !monteCarloKeys[k] {
				*out = append(*out, path+"/"+k)
			}
			zeroPValues(e, path+"/"+k, out)
		}
	case []any:
		for i, e := range x {
			zeroPValues(e, path+"/"+strconv.Itoa(i), out)
		}
	}
}

// TestPublishedProbabilities: the demo's meta-analysis p-values below
// about 1e-16 were published as exactly 0 in data/*.json (2·Φ̄(|z|)
// computed as 1 − erf cancels), and its Bayesian probabilities of 0 of
// the draws were printed "< 1e-15". Now no p-value of the demo's data is
// 0 (none is 0 mathematically), and every Bayesian probability of 0 is
// printed, in HTML and Markdown, as "< 1/samples".
func TestPublishedProbabilities(t *testing.T) {
	site := demoSite(t)
	files, err := filepath.Glob(filepath.Join(site, "data", "*.json"))
	mustDo(t, err)
	if len(files) == 0 {
		t.Fatal("no data files")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		mustDo(t, err)
		var doc any
		mustDo(t, json.Unmarshal(b, &doc))
		var zeros []string
		zeroPValues(doc, "", &zeros)
		if len(zeros) > 0 {
			t.Errorf("%s publishes p-values of exactly 0: %v", filepath.Base(f), zeros[:min(len(zeros), 5)])
		}
	}
	var cd struct {
		Samples int `json:"samples"`
	}
	b, err := os.ReadFile(filepath.Join(site, "data", "critical-difference.json"))
	mustDo(t, err)
	mustDo(t, json.Unmarshal(b, &cd))
	if cd.Samples <= 0 {
		t.Fatal("the demo's critical-difference analysis has no Bayesian draws")
	}
	bound := "&lt; " + analyses.ResolutionText(1/float64(cd.Samples))
	for _, page := range []string{"critical-difference.html", "critical-difference.md"} {
		b, err := os.ReadFile(filepath.Join(site, page))
		mustDo(t, err)
		if !strings.Contains(string(b), bound) {
			t.Errorf("%s does not print a probability of 0 of %d draws as %q", page, cd.Samples, bound)
		}
		if strings.Contains(string(b), "1e-15") {
			t.Errorf("%s prints a bound of 1e-15, which no number it shows has", page)
		}
	}
}
