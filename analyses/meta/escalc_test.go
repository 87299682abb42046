package meta

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses/internal/testutil"
)

// rnum is a number written by the R generators, with NA, NaN and ±Inf
// as strings.
type rnum float64

func (f *rnum) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		switch s {
		case "NA", "NaN":
			*f = rnum(math.NaN())
		case "Inf":
			*f = rnum(math.Inf(1))
		case "-Inf":
			*f = rnum(math.Inf(-1))
		default:
			return errors.New("rnum: unknown " + s)
		}
		return nil
	}
	var x float64
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*f = rnum(x)
	return nil
}

func rnums(x []rnum) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// escalcOracle is testdata/oracle/meta/escalc.json, written by
// gen_escalc.R with R metafor (escalc, rma(method = "DL"), predict(transf)).
type escalcOracle struct {
	Meta  map[string]any `json:"meta"`
	Cases []struct {
		Name    string            `json:"name"`
		Measure string            `json:"measure"`
		Input   map[string][]rnum `json:"input"`
		Add     float64           `json:"add"`
		To      string            `json:"to"`
		Drop00  bool              `json:"drop00"`
		Default bool              `json:"default"`
		Yi      []rnum            `json:"yi"`
		Vi      []rnum            `json:"vi"`
		Summary *struct {
			Est    float64   `json:"est"`
			CILow  float64   `json:"ci_low"`
			CIHigh float64   `json:"ci_high"`
			PILow  float64   `json:"pi_low"`
			PIHigh float64   `json:"pi_high"`
			BT     []rnum    `json:"bt"`
			NI     []float64 `json:"ni"`
		} `json:"summary"`
	} `json:"cases"`
	Refusals []struct {
		Name    string            `json:"name"`
		Measure string            `json:"measure"`
		Input   map[string][]rnum `json:"input"`
		Error   string            `json:"error"`
	} `json:"refusals"`
}

func loadEscalcOracle(t *testing.T) escalcOracle {
	t.Helper()
	raw, err := os.ReadFile("testdata/oracle/meta/escalc.json")
	if err != nil {
		t.Fatal(err)
	}
	var o escalcOracle
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	return o
}

// escalcRun runs the Go escalc on a fixture's input.
func escalcRun(measure string, in map[string][]rnum, z ZeroCells) (EffectSizes, error) {
	g := func(k string) []float64 { return rnums(in[k]) }
	switch measure {
	case MeasureOR, MeasureRR, MeasureRD:
		var tabs []Table2x2
		if _, ok := in["n1i"]; ok {
			var err error
			if tabs, err = TablesFromGroups(g("ai"), g("n1i"), g("ci"), g("n2i")); err != nil {
				return EffectSizes{}, err
			}
		} else {
			ai, bi, ci, di := g("ai"), g("bi"), g("ci"), g("di")
			for i := range ai {
				tabs = append(tabs, Table2x2{ai[i], bi[i], ci[i], di[i]})
			}
		}
		return EscalcTables(measure, tabs, z)
	case MeasurePR, MeasurePLO, MeasurePAS, MeasurePFT:
		return EscalcProportions(measure, g("xi"), g("ni"), z)
	case MeasureCOR, MeasureZCOR:
		return EscalcCorrelations(measure, g("ri"), g("ni"))
	}
	return EscalcRates(measure, g("xi"), g("ti"), z)
}

// TestEscalcMetafor checks every measure under every zero-cell option
// (add, to = only0 | all | if0all | none, drop00) against escalc on
// metadat's dat.bcg, dat.pritz1997, dat.molloy2014, dat.hart1999 and
// hand-made inputs with zero cells, double zeros, all-event tables,
// |r| = 1 and tiny samples, to 1e-9 (relative, or absolute near 0). A
// study metafor gives NA or ±Inf gets NaN here, with a note. Each case
// with defined effects is then summarised (DL, closed form) and
// back-transformed as metafor's predict(transf = …) does.
func TestEscalcMetafor(t *testing.T) {
	t.Parallel()
	o := loadEscalcOracle(t)
	const tol = 1e-9
	measures := map[string]int{}
	undefined, summaries, defaults := 0, 0, 0
	for _, cs := range o.Cases {
		measures[cs.Measure]++
		z := ZeroCells{Add: cs.Add, To: cs.To, Drop00: cs.Drop00}
		if cs.Default {
			// escalc's defaults, as the caller gets them.
			z = DefaultZeroCellsFor(cs.Measure)
			defaults++
		}
		got, err := escalcRun(cs.Measure, cs.Input, z)
		if err != nil {
			t.Errorf("%s: %v", cs.Name, err)
			continue
		}
		wy, wv := rnums(cs.Yi), rnums(cs.Vi)
		for i := range wy {
			defined := !math.IsNaN(wy[i]) && !math.IsInf(wy[i], 0) && !math.IsNaN(wv[i]) && !math.IsInf(wv[i], 0)
			if !defined {
				undefined++
				if !math.IsNaN(got.Yi[i]) || !math.IsNaN(got.Vi[i]) || got.Note[i] == "" {
					t.Errorf("%s row %d: yi = %v, vi = %v (%q); metafor: yi = %v, vi = %v (no effect)", cs.Name, i, got.Yi[i], got.Vi[i], got.Note[i], wy[i], wv[i])
				}
				continue
			}
			if !testutil.Close(got.Yi[i], wy[i], tol) || !testutil.Close(got.Vi[i], wv[i], tol) {
				t.Errorf("%s row %d: yi = %.17g, vi = %.17g; metafor %.17g, %.17g", cs.Name, i, got.Yi[i], got.Vi[i], wy[i], wv[i])
			}
		}
		if cs.Summary == nil {
			continue
		}
		summaries++
		var y, v []float64
		for i := range got.Yi {
			if !math.IsNaN(got.Yi[i]) && got.Vi[i] > 0 {
				y, v = append(y, got.Yi[i]), append(v, got.Vi[i])
			}
		}
		f := metaFit(y, v, metaConf{model: "random", method: "DL", test: "z", alpha: 0.05})
		s := cs.Summary
		c := metaChecker{t, cs.Name + " summary", tol}
		c.eq("est", f.est, s.Est)
		c.eq("ci_low", f.ciLow, s.CILow)
		c.eq("ci_high", f.ciHigh, s.CIHigh)
		c.eq("pi_low", f.piLow, s.PILow)
		c.eq("pi_high", f.piHigh, s.PIHigh)
		bt, err := BackTransformSummary(cs.Measure, f.est, f.ciLow, f.ciHigh, f.piLow, f.piHigh, s.NI)
		if err != nil {
			t.Errorf("%s: %v", cs.Name, err)
			continue
		}
		w := rnums(s.BT)
		c.eq("back-transformed est", bt.Effect, w[0])
		c.eq("back-transformed ci_low", bt.CILow, w[1])
		c.eq("back-transformed ci_high", bt.CIHigh, w[2])
		c.eq("back-transformed pi_low", bt.PILow, w[3])
		c.eq("back-transformed pi_high", bt.PIHigh, w[4])
	}
	for _, m := range []string{"OR", "RR", "RD", "PR", "PLO", "PAS", "PFT", "COR", "ZCOR", "IR", "IRLN"} {
		if measures[m] == 0 {
			t.Errorf("no fixture case for %s", m)
		}
	}
	if undefined < 20 || summaries < 60 || defaults < 30 {
		t.Errorf("fixtures hold %d undefined effects, %d summaries and %d cases with escalc's defaults: cases are missing", undefined, summaries, defaults)
	}
	t.Logf("%d cases, %d undefined effects, %d summaries, %d with escalc's defaults", len(o.Cases), undefined, summaries, defaults)
}

// TestEscalcOptionRefusals: options that cannot apply are errors, not
// silently ignored as metafor ignores them: drop00 for one-group
// measures, an unknown to, a negative add.
func TestEscalcOptionRefusals(t *testing.T) {
	t.Parallel()
	x, n := []float64{1, 2}, []float64{5, 5}
	for _, c := range []struct {
		run  func() error
		want string
	}{
		{func() error {
			_, err := EscalcProportions(MeasurePLO, x, n, ZeroCells{Add: 0.5, To: ToOnly0, Drop00: true})
			return err
		}, "drop00 applies to 2×2 tables (no events in both groups); a proportion has one group"},
		{func() error {
			_, err := EscalcRates(MeasureIR, x, n, ZeroCells{Add: 0.5, To: ToOnly0, Drop00: true})
			return err
		}, "drop00 applies to 2×2 tables (no events in both groups); an incidence rate has one group"},
		{func() error {
			_, err := EscalcTables(MeasureOR, []Table2x2{{1, 2, 3, 4}}, ZeroCells{Add: 0.5, To: "some"})
			return err
		}, `to = "some": want "only0", "all", "if0all" or "none"`},
		{func() error {
			_, err := EscalcProportions(MeasurePR, x, n, ZeroCells{Add: -1, To: ToAll})
			return err
		}, "add = -1: want a finite number ≥ 0"},
		{func() error {
			_, err := EscalcTables("PETO", []Table2x2{{1, 2, 3, 4}}, DefaultZeroCells())
			return err
		}, `measure "PETO": a 2×2 table gives "OR", "RR" or "RD"`},
	} {
		if err := c.run(); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// TestEscalcRefusals: every input metafor refuses is refused here, with
// the row named (metafor names none).
func TestEscalcRefusals(t *testing.T) {
	t.Parallel()
	o := loadEscalcOracle(t)
	if len(o.Refusals) < 10 {
		t.Fatalf("%d refusal cases", len(o.Refusals))
	}
	for _, r := range o.Refusals {
		if r.Error == "" {
			t.Errorf("%s: metafor accepts it; the fixture is wrong", r.Name)
			continue
		}
		_, err := escalcRun(r.Measure, r.Input, DefaultZeroCells())
		var re *RowError
		if !errors.As(err, &re) {
			t.Errorf("%s: got %v, want a refusal naming the row (metafor: %s)", r.Name, err, r.Error)
			continue
		}
		// Every refusal fixture has its bad value in the second row.
		if re.Row != 1 || !strings.HasPrefix(err.Error(), "row 2: ") {
			t.Errorf("%s: %q names row %d, want row 2 (metafor: %s)", r.Name, err, re.Row+1, r.Error)
		}
		t.Logf("%s: %v (metafor: %s)", r.Name, err, r.Error)
	}
}
