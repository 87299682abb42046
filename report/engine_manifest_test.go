package report

import (
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report/engine"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
)

// TestEngineManifest checks the engine entry's keys: each mistake is an
// error at its line, a password never sits in the manifest, the URL may
// come from an environment variable, and an analysis that cannot get
// per-unit values from an engine says so at its own line.
func TestEngineManifest(t *testing.T) {
	const meta = `
[[analyses]]
id        = "meta"
type      = "meta_analysis"
treatment = "A"
control   = "B"
metric    = "m"
`
	parse := func(units string, reg kinds.Registry) (*manifest.Study, error) {
		src := "title = \"t\"\n\n[inputs]\n" + units + "\n" + meta
		return manifest.ParseStudy("/study/study.toml", []byte(src), reg)
	}
	bad := []struct{ units, want string }{
		{`units = [{ engine = "clickhouse", url = "clickhouse://bob:secret@db:9000/bench", table = "per_user" }]`, "study.toml:4: inputs.units[0].url: holds a password; never write one in the manifest"},
		{`units = [{ engine = "clickhous", url = "clickhouse://db:9000/bench", table = "per_user" }]`, `study.toml:4: inputs.units[0].engine: "clickhous" is not an engine evalbook reads (want "clickhouse") (did you mean "clickhouse"?)`},
		{`units = [{ engine = "clickhouse", url = "clickhouse://db:9000/bench" }]`, "study.toml:4: inputs.units[0].table: required"},
		{`units = [{ engine = "clickhouse", table = "per_user" }]`, "study.toml:4: inputs.units[0]: url or url_env required"},
		{`units = [{ engine = "clickhouse", url = "http://db:8123/bench", table = "per_user" }]`, "study.toml:4: inputs.units[0].url: the URL must start with clickhouse://"},
		{`units = [{ engine = "clickhouse", url = "clickhouse://db/bench", table = "per_user", path = "u.csv" }]`, "study.toml:4: inputs.units[0].path: does not apply to an engine table"},
		{`units = [{ engine = "clickhouse", url = "clickhouse://db/bench", table = "per_user", columns = { user = "uid" } }]`, `study.toml:4: inputs.units[0].columns: unknown column "user"`},
		{`units = [{ engine = "clickhouse", url = "clickhouse://db/bench", table = "per_user", timeout = "soon" }]`, `study.toml:4: inputs.units[0].timeout: "soon" is not a duration of at least 1s`},
		{`units = [{ engine = "clickhouse", url_env = "EVALBOOK_TEST_UNSET_URL", table = "per_user" }]`, "study.toml:4: inputs.units: the environment variable EVALBOOK_TEST_UNSET_URL (url_env) is not set"},
		{`units = [{ engine = "clickhouse", url = "clickhouse://db/bench", table = "per_user" }, "units/*.csv"]`, "study.toml:4: inputs.units: per-unit values come from an engine table or from files, not both"},
		{`characteristics = [{ engine = "clickhouse", url = "clickhouse://db/bench", table = "chars" }]`, `study.toml:4: inputs.characteristics: unknown key "engine"`},
	}
	for _, tc := range bad {
		_, err := parse(tc.units, kinds.Kinds())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.units, err, tc.want)
		}
	}

	t.Setenv("EVALBOOK_TEST_CH_URL", "clickhouse://reader:secret@db.example:9440/bench")
	s, err := parse(`units = [{ engine = "clickhouse", url_env = "EVALBOOK_TEST_CH_URL", table = "per_user", columns = { unit = "user_id" }, timeout = "90s" }]`, kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	e := s.Engine
	if e == nil || e.Target.Password != "secret" || e.Target.String() != "clickhouse://reader@db.example:9440/bench" ||
		e.Src.Columns.Unit != "user_id" || e.Src.Columns.Value != "value" || e.Timeout.Seconds() != 90 || e.Line != 4 || len(s.Inputs.Units) != 0 {
		t.Errorf("engine source: %+v (target %s)", e, e.Target)
	}
	if strings.Contains(newInputs(s).Engines.Units.Provenance().URL, "secret") {
		t.Error("the provenance shows the password")
	}

	// A kind that reads per-unit values and has no engine counterpart.
	reg := kinds.Kinds()
	k := reg["meta_analysis"]
	k.Type = "per_unit_ranks"
	reg["per_unit_ranks"] = k
	_, err = manifest.ParseStudy("/study/study.toml", []byte("title = \"t\"\n\n[inputs]\n"+`units = [{ engine = "clickhouse", url = "clickhouse://db/bench", table = "per_user" }]`+"\n"+strings.Replace(meta, "meta_analysis", "per_unit_ranks", 1)), reg)
	if err == nil || !strings.Contains(err.Error(), "study.toml:6: analyses (meta): per_unit_ranks reads per-unit values, which an engine table (line 4) cannot hand over as sums") {
		t.Errorf("a kind without engine support: %v", err)
	}
}

// TestEngineLogManifest checks the [[datasets]] engine interactions
// entry: each mistake is an error at its line, a password never sits in
// the manifest, the URL may come from an environment variable.
func TestEngineLogManifest(t *testing.T) {
	parse := func(entry string) (*manifest.Study, error) {
		src := "title = \"t\"\n\n[inputs]\nresults = \"r.csv\"\n\n[[datasets]]\nname = \"ml\"\ninteractions = " + entry + "\n"
		return manifest.ParseStudy("/study/study.toml", []byte(src), kinds.Kinds())
	}
	bad := []struct{ entry, want string }{
		{`{ engine = "clickhouse", url = "clickhouse://bob:secret@db/bench", table = "logs" }`, "study.toml:8: datasets[0].interactions.url: holds a password"},
		{`{ engine = "clickhous", url = "clickhouse://db/bench", table = "logs" }`, `study.toml:8: datasets[0].interactions.engine: "clickhous" is not an engine`},
		{`{ engine = "clickhouse", url = "clickhouse://db/bench" }`, "study.toml:8: datasets[0].interactions.table: required"},
		{`{ engine = "clickhouse", table = "logs" }`, "study.toml:8: datasets[0].interactions: url or url_env required"},
		{`{ engine = "clickhouse", url = "clickhouse://db/bench", table = "logs", columns = { unit = "u" } }`, `study.toml:8: datasets[0].interactions.columns.unit: the keys of columns are dataset, user, item, rating`},
		{`{ engine = "clickhouse", url = "clickhouse://db/bench", table = "logs", path = "x.csv" }`, `study.toml:8: datasets[0].interactions.path: unknown key`},
		{`{ engine = "clickhouse", url = "clickhouse://db/bench", table = "logs", timeout = "soon" }`, `study.toml:8: datasets[0].interactions.timeout: "soon" is not a duration`},
		{`{ engine = "clickhouse", url_env = "EVALBOOK_TEST_UNSET_URL", table = "logs" }`, "study.toml:8: datasets[0].interactions: the environment variable EVALBOOK_TEST_UNSET_URL (url_env) is not set"},
	}
	for _, tc := range bad {
		_, err := parse(tc.entry)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.entry, err, tc.want)
		}
	}
	t.Setenv("EVALBOOK_TEST_CH_URL", "clickhouse://reader:secret@db.example:9440/bench")
	s, err := parse(`{ engine = "clickhouse", url_env = "EVALBOOK_TEST_CH_URL", table = "logs", columns = { dataset = "ds", rating = "stars" }, timeout = "90s" }`)
	if err != nil {
		t.Fatal(err)
	}
	e := s.Datasets[0].EngineLog
	if e == nil || e.Target.String() != "clickhouse://reader@db.example:9440/bench" || e.Src.Columns != (engine.LogColumns{Dataset: "ds", User: "user", Item: "item", Rating: "stars"}) ||
		e.Src.Dataset != "ml" || e.Timeout.Seconds() != 90 || e.Line != 8 || s.Datasets[0].Interactions != "" {
		t.Errorf("engine log: %+v", e)
	}
}
