package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/figures/model"
)

// TestMethodNotesNameColumnsByLabel: a method note that names a column
// of its own tables introduces it by the label its table heads it with,
// the id of the data files after it ("**Recommended test**
// (`recommended`)", "**95% CI** (`ci_low`, `ci_high`)"), never by the
// id alone, which the reader finds in no header; once introduced, a
// formula may use the id. Checked on every analysis page of the demo:
// the first mention of each column of its data file must follow the
// column's label (model.ColumnLabel; an interval's bounds, "CI") within
// the clause before it.
func TestMethodNotesNameColumnsByLabel(t *testing.T) {
	t.Parallel()
	study, site := builtDemo(t)
	naming := study.Naming()
	checked := 0
	for _, a := range study.Analyses {
		var data struct {
			Tables map[string][]map[string]any `json:"tables"`
		}
		b, err := os.ReadFile(filepath.Join(site, "data", a.ID+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &data); err != nil {
			t.Fatalf("%s: %v", a.ID, err)
		}
		cols := map[string]bool{}
		for _, rows := range data.Tables {
			for _, r := range rows {
				for c := range r {
					cols[c] = true
				}
			}
		}
		_, method, ok := strings.Cut(readFile(t, site, a.ID+".md"), "\n## Method\n")
		if !ok {
			continue
		}
		method, _, _ = strings.Cut(method, "\n## ")
		method = strings.ReplaceAll(method, `\_`, "_")
		for id := range cols {
			i := strings.Index(method, "`"+id+"`")
			if i < 0 {
				continue
			}
			checked++
			label := model.ColumnLabel(id, naming)
			if strings.HasSuffix(id, "_low") || strings.HasSuffix(id, "_high") {
				label = "CI"
			}
			before := strings.ToLower(method[max(0, i-160):i])
			if !strings.Contains(before, strings.ToLower(label)) {
				t.Errorf("%s: the method note names the column `%s` without its label %q before it: …%s`%s`", a.ID, id, label, method[max(0, i-60):i], id)
			}
		}
	}
	if checked < 5 {
		t.Errorf("only %d columns named in the demo's method notes: the check reads nothing", checked)
	}
}
