package report

import (
	"strings"
	"testing"
)

// test = "t" (rma(test = "t"): z referred to t(k − 1), no Knapp–Hartung
// scaling) and a fixed τ² (tau2 = 0.04, rma(tau2 = 0.04), with z and with
// Knapp–Hartung) on dat.bcg's RR give metafor's summary, interval, p,
// prediction interval, τ², Q, I² and H², to 1e-9 (REML converged to full
// precision here, to metafor's threshold of 1e-12 in gen.R).
func TestMetaTestTAndFixedTau2Build(t *testing.T) {
	t.Parallel()
	var want map[string]map[string]float64
	metaExpected(t, "tests", &want)
	for key, keys := range map[string]string{
		"t_reml":     "tau2 = \"REML\"\ntest = \"t\"\n",
		"fixed":      "tau2 = 0.04\n",
		"fixed_knha": "tau2 = 0.04\ntest = \"knha\"\n",
	} {
		site := mustBuild(t, metaSummaryStudy(t, "bcg.csv", "measure = \"RR\"\n"+keys))
		doc := readJSON(t, site, "data/m.json")
		sum := doc["summary"].(map[string]any)
		w := want[key]
		for _, f := range []string{"effect", "se", "p", "ci_low", "ci_high", "pi_low", "pi_high", "tau2", "Q", "I2", "H2"} {
			near(t, key+" "+f, sum[f], w[f], 1e-9)
		}
		fixed := strings.HasPrefix(key, "fixed")
		if fixed != (doc["tau2_method"] == "given") || fixed != (doc["tau2_fixed"] == 0.04) {
			t.Errorf("%s: tau2_method %v, tau2_fixed %v", key, doc["tau2_method"], doc["tau2_fixed"])
		}
		if fixed && sum["tau2_ci_low"] != nil {
			t.Errorf("%s: a fixed τ² has an interval %v", key, sum["tau2_ci_low"])
		}
		page := readFile(t, site, "m.html")
		if fixed && !strings.Contains(page, "fixed at τ² = 0.04") || key == "t_reml" && !strings.Contains(page, "t distribution") {
			t.Errorf("%s: the method note does not say the τ² or the test", key)
		}
	}
}

// A fixed τ² that cannot be, or is written as a string, is an error at
// the key's line.
func TestMetaFixedTau2Errors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, keys, want string }{
		{"with a fixed-effect model", "model = \"fixed\"\ntau2 = 0.04\n", "study.toml:9: analyses (m): tau2: 0.04: a fixed-effect model has τ² = 0"},
		{"negative", "tau2 = -0.1\n", "study.toml:8: analyses (m): tau2: -0.1: a fixed τ² must be a finite number ≥ 0"},
		{"a string", "tau2 = \"0.04\"\n", "study.toml:8: "},
		{"with sensitivity", "tau2 = 0.04\nsensitivity = true\n", "study.toml:8: analyses (m): tau2: 0.04 with sensitivity = true"},
		{"t with sensitivity", "test = \"t\"\nsensitivity = true\n", "study.toml:8: analyses (m): test: \"t\" with sensitivity = true"},
	} {
		_, err := buildStudy(t, metaSummaryStudy(t, "bcg.csv", "measure = \"RR\"\n"+c.keys))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	_, err := buildStudy(t, metaSummaryStudy(t, "bcg.csv", "measure = \"RR\"\ntau2 = \"0.04\"\n"))
	if err == nil || !strings.Contains(err.Error(), "a fixed τ² is a number, written without quotes (tau2 = 0.04)") {
		t.Errorf("tau2 = \"0.04\": %v", err)
	}
}
