package meta

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// Source is the `summary` key: a path, or a table
// {path = "…", columns = {m1i = "mean_new", …}} mapping the expected
// column names (those of metafor's escalc: m1i, sd1i, n1i, m2i, sd2i,
// n2i, yi, vi, sei, and ai, bi, ci, di, xi, ni, ri, ti of a measure; or
// n, mean_diff, sd_diff, r) onto the file's own.
type Source struct {
	Path    string            `toml:"path" json:"path,omitempty"`
	Columns map[string]string `toml:"columns" json:"columns,omitempty"`
}

// SummaryColumns are the column names a summary file may map (the
// escalc columns of measure included).
var SummaryColumns = []string{"dataset", "n", "mean_diff", "sd_diff", "r", "m1i", "sd1i", "n1i", "m2i", "sd2i", "n2i", "yi", "vi", "sei",
	"ai", "bi", "ci", "di", "xi", "ni", "ri", "ti"}

// UnmarshalTOML accepts a string or a table.
func (s *Source) UnmarshalTOML(v any) error {
	var err error
	s.Path, s.Columns, err = analyses.DecodeSource("summary", "m1i", v, func(c string) (string, error) {
		if canonical(c, SummaryColumns) == "" {
			return "", fmt.Errorf("summary.columns: %q is not a summary column%s", c, analyses.NameHint(c, SummaryColumns))
		}
		return strings.ToLower(c), nil
	})
	return err
}

// MarshalTOML writes the source back as it is usually written: a string,
// or an inline table when columns are mapped (so the analysis's params
// read as they were given).
func (s Source) MarshalTOML() ([]byte, error) {
	q := func(x string) string {
		b, _ := json.Marshal(x) // a JSON string is a valid TOML basic string
		return string(b)
	}
	if len(s.Columns) == 0 {
		return []byte(q(s.Path)), nil
	}
	var b strings.Builder
	b.WriteString("{path = " + q(s.Path) + ", columns = {")
	for i, k := range analyses.SortedKeys(s.Columns) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(q(k) + " = " + q(s.Columns[k]))
	}
	b.WriteString("}}")
	return []byte(b.String()), nil
}
