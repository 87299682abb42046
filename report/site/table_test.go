package site

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"html/template"
	"math"
	"math/rand"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/analyses"
)

// tablesResult is a result that is only its tables.
type tablesResult struct {
	analyses.Warnings
	T []analyses.Table `json:"-"`
}

func (r *tablesResult) Tables() []analyses.Table { return r.T }

// tablesModel is a site of one analysis with the given tables, in HTML,
// Markdown and LaTeX (paper/).
func tablesModel(id string, tabs []analyses.Table, pages ...Page) Model {
	r := &tablesResult{T: tabs}
	return Model{
		Study: Study{Title: "Tables", Manifest: "study.toml", Naming: analyses.Naming{
			Rules: map[string]string{"plurality": "Plurality", "borda": "Borda", "dm_auc": "DM-AUC", "mean": "Mean"}}},
		Pages:          pages,
		Analyses:       []Analysis{{ID: id, Type: "aggregate", Title: "T", Result: r, Tables: tabs, Resolved: map[string]any{}}},
		ProvenanceJSON: []byte("{}\n"),
		Options:        Options{Format: "both", Paper: true},
	}
}

// stabilitySummary is a stability summary and its curves: plurality's
// best_method area is ρ = 1 at one perturbed matrix of 31 (ρ is
// undefined at the 30 others), borda's is over all 31.
func stabilitySummary() []analyses.Table {
	main := analyses.Table{Title: "Stability of each aggregation rule", Columns: []string{"rule", "best_method_area"},
		Rows: [][]any{{"plurality", 1.0}, {"borda", 0.97}, {"dm_auc", 0.905}}}
	curves := analyses.Table{Name: "curves", Title: "Curves", Columns: []string{"perturbation", "rule", "size", "mean_rho", "sd_rho", "count", "undefined"}}
	for k := 0; k < 31; k++ {
		pl := 0
		if k == 0 {
			pl = 1
		}
		size := 1 + float64(k)/10
		curves.Rows = append(curves.Rows, []any{"best_method", "plurality", size, nil, nil, pl, 1 - pl},
			[]any{"best_method", "borda", size, 0.97, nil, 1, 0}, []any{"best_method", "dm_auc", size, 0.9, nil, 1, 0})
	}
	return []analyses.Table{main, curves}
}

// TestUndefinedAreaIsNeverPerfect: the stability summary's area over one
// defined ρ of 31 shows its count "(1/31)" in the page, the Markdown and
// the LaTeX, is not marked best there, and each says what the count
// means; the CSV keeps the bare number.
func TestUndefinedAreaIsNeverPerfect(t *testing.T) {
	t.Parallel()
	files, err := Render(tablesModel("stability", stabilitySummary()))
	if err != nil {
		t.Fatal(err)
	}
	row := func(file, sep, start string) string {
		for _, r := range strings.Split(string(files[file]), sep) {
			if strings.HasPrefix(strings.TrimSpace(r), start) {
				return r
			}
		}
		t.Fatalf("%s: no row starting %q", file, start)
		return ""
	}
	html := row("stability.html", "<tr>", `<td title="plurality">Plurality</td>`)
	md := row("stability.md", "\n", "| Plurality |")
	tex := row("data/stability.tex", "\n", "Plurality &")
	for file, r := range map[string]string{"stability.html": html, "stability.md": md, "data/stability.tex": tex} {
		if !strings.Contains(r, "(1/31)") {
			t.Errorf("%s: plurality's area has no count of defined values: %s", file, r)
		}
		if strings.Contains(r, "<strong>") || strings.Contains(r, "**") || strings.Contains(r, `\textbf`) {
			t.Errorf("%s: an area over 1 of 31 values is marked best: %s", file, r)
		}
		if !strings.Contains(string(files[file]), "d/n") {
			t.Errorf("%s: no note says what d/n means", file)
		}
	}
	if !strings.Contains(string(files["data/stability.csv"]), "plurality,1\n") {
		t.Errorf("the CSV changed:\n%s", files["data/stability.csv"])
	}
}

// tdRe is a numeric cell of a page's table: its sort key and its text.
var tdRe = regexp.MustCompile(`<td class="num[^"]*" data-v="([^"]*)"[^>]*>(.*?)</td>`)

// numRe is the first number a cell shows.
var numRe = regexp.MustCompile(`-?\d+(?:\.(\d+))?(?:e([-+]\d+))?`)

// TestSortByShownValue: every numeric cell's sort key (data-v, what the
// page's script sorts by) is the number the cell shows, to its shown
// precision: a rank column of a compact leaderboard sorts by rank (the
// best first), not by the hidden score.
func TestSortByShownValue(t *testing.T) {
	t.Parallel()
	lb := analyses.Table{Title: "Leaderboard", Columns: []string{"method", "mean", "mean_rule_rank", "borda", "borda_rank"},
		Better:  map[string]string{"mean": "higher", "mean_rule_rank": "lower", "borda": "higher", "borda_rank": "lower"},
		Compact: []analyses.CompactColumn{{Label: "Mean", Score: "mean", Rank: "mean_rule_rank"}, {Label: "Borda", Score: "borda", Rank: "borda_rank"}},
		Rows:    [][]any{{"EASE", 0.1197, 1, 25.0, 1.5}, {"Random", 0.0123, 3, 3.0, 3}, {"ALS", 0.0567, 2, 25.0, 1.5}}}
	files, err := Render(tablesModel("leaderboard", []analyses.Table{lb}))
	if err != nil {
		t.Fatal(err)
	}
	cells := tdRe.FindAllStringSubmatch(string(files["leaderboard.html"]), -1)
	if len(cells) != 6 {
		t.Fatalf("%d numeric cells, want 6", len(cells))
	}
	for _, c := range cells {
		key, err := strconv.ParseFloat(c[1], 64)
		m := numRe.FindStringSubmatch(c[2])
		if err != nil || m == nil {
			t.Errorf("cell %q: sort key %q", c[2], c[1])
			continue
		}
		shown, _ := strconv.ParseFloat(m[0], 64)
		unit := math.Pow(10, -float64(len(m[1])))
		if m[2] != "" {
			e, _ := strconv.Atoi(m[2])
			unit *= math.Pow(10, float64(e))
		}
		if math.Abs(key-shown) > unit/2*(1+1e-9) {
			t.Errorf("a cell shows %s but sorts as %s", c[2], c[1])
		}
	}
}

// TestMetricNamesAreNotLinked: a metric name such as iprec@0.0 in a page
// or a method note is text, not a mailto: link; an e-mail address is
// still linked.
func TestMetricNamesAreNotLinked(t *testing.T) {
	t.Parallel()
	page := Page{Title: "Notes", Slug: "notes", Source: "notes.md",
		Markdown: []byte("# Notes\n\niprec@0.0 … iprec@1.0 and ndcg@10.5; write to jane.doe@example.org.\n")}
	files, err := Render(tablesModel("leaderboard", nil, page))
	if err != nil {
		t.Fatal(err)
	}
	html := string(files["notes.html"])
	if strings.Contains(html, "mailto:iprec") || strings.Contains(html, "mailto:ndcg") {
		t.Errorf("a metric name is linked:\n%s", html)
	}
	if !strings.Contains(html, `href="mailto:jane.doe@example.org"`) {
		t.Errorf("an e-mail address is not linked:\n%s", html)
	}
}

// TestMarkdownTables: the Markdown output has no text that only a page
// can act on ("hover"), folds a long table in <details>, writes at most
// mdMaxRows of its rows and links the CSV with all of them.
func TestMarkdownTables(t *testing.T) {
	t.Parallel()
	lb := analyses.Table{Title: "Leaderboard", Columns: []string{"method", "mean", "mean_rule_rank"},
		Compact: []analyses.CompactColumn{{Label: "Mean", Score: "mean", Rank: "mean_rule_rank"}}}
	long := analyses.Table{Name: "long", Title: "Per user", Columns: []string{"user", "value"}}
	for i := 0; i < 80; i++ {
		lb.Rows = append(lb.Rows, []any{fmt.Sprintf("m%02d", i), 1 / float64(i+1), i + 1})
		long.Rows = append(long.Rows, []any{fmt.Sprintf("u%02d", i), float64(i) / 7})
	}
	files, err := Render(tablesModel("leaderboard", []analyses.Table{lb, long}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(files["leaderboard.html"]), "hover a rank for its score") {
		t.Error("the page lost its hint")
	}
	md := string(files["leaderboard.md"])
	if strings.Contains(strings.ToLower(md), "hover") {
		t.Errorf("the Markdown speaks of hovering:\n%s", md)
	}
	if n := strings.Count(md, "<details>"); n != 2 {
		t.Errorf("%d tables folded, want 2", n)
	}
	if strings.Contains(md, "| u50 |") || !strings.Contains(md, "| u49 |") {
		t.Error("the Markdown does not show exactly the first 50 rows")
	}
	if !strings.Contains(md, "[data/leaderboard-long.csv](data/leaderboard-long.csv)") {
		t.Error("the Markdown does not link the full table")
	}
}

// TestRowsHTMLAsTheTemplate: rowsHTML writes what the "table" template
// wrote with an action per cell attribute (kept here as it was), for
// cells with every mark and text with every character html/template
// escapes, invalid UTF-8 and characters beyond ASCII.
func TestRowsHTMLAsTheTemplate(t *testing.T) {
	t.Parallel()
	const cells = `{{range .}}<tr>{{range .}}<td{{if .Num}} class="num{{if .Best}} best{{end}}{{if .Second}} second{{end}}{{if .Tied}} tied{{end}}" data-v="{{.Sort}}"{{end}}{{with .Full}} title="{{.}}"{{end}}>{{if .Best}}<strong>{{.Text}}</strong>{{else if .Second}}<u>{{.Text}}</u>{{else}}{{.Text}}{{end}}{{if .Tied}}<sup class="mark" title="tied for the best">=</sup>{{end}}{{if .Sig}}<sup class="mark" title="significant">*</sup>{{end}}{{with .Count}} <span class="count" title="defined values of all">({{.}})</span>{{end}}</td>{{end}}</tr>
{{end}}`
	tmpl := template.Must(template.New("rows").Parse(`<table><tbody>` + cells + `</tbody></table>`))
	texts := []string{"", "0.412", "−0.05", "a<b>&c", `"quoted" 'single'`, "x+y", "nul\x00byte", "bad\xff\xfeutf8", "ε ≤ 1 · 10⁻³", "<script>alert(1)</script>", "&amp;", "\ufdd0\ufffe"}
	r := rand.New(rand.NewSource(1))
	pick := func() string { return texts[r.Intn(len(texts))] }
	for trial := 0; trial < 200; trial++ {
		rows := make([][]cellView, r.Intn(4))
		for i := range rows {
			rows[i] = make([]cellView, r.Intn(5))
			for j := range rows[i] {
				rows[i][j] = cellView{Text: pick(), Full: pick(), Sort: pick(), Count: pick(),
					Num: r.Intn(2) == 0, Best: r.Intn(3) == 0, Second: r.Intn(3) == 0, Tied: r.Intn(3) == 0, Sig: r.Intn(3) == 0}
			}
		}
		var want strings.Builder
		if err := tmpl.Execute(&want, rows); err != nil {
			t.Fatal(err)
		}
		got := "<table><tbody>" + string(rowsHTML(rows)) + "</tbody></table>"
		if got != want.String() {
			t.Fatalf("rows %#v:\nrowsHTML: %q\ntemplate: %q", rows, got, want.String())
		}
	}
}

// TestTableCSVQuoting: a cell is quoted when it holds a comma, a quote,
// a line break or a carriage return, or begins or ends with white space
// (the rule as strings.ContainsAny and strings.TrimSpace said it), or
// is a row's only cell and empty, and encoding/csv reads every cell
// back as it was.
func TestTableCSVQuoting(t *testing.T) {
	t.Parallel()
	parts := []string{"a", "0.5", ",", `"`, "\n", "\r", " ", "\t", "\u00a0", "é", "x y"}
	r := rand.New(rand.NewSource(2))
	for trial := 0; trial < 500; trial++ {
		cells := make([]string, 1+r.Intn(4))
		for i := range cells {
			for k := r.Intn(4); k > 0; k-- {
				cells[i] += parts[r.Intn(len(parts))]
			}
		}
		out := tableCSV(analyses.Table{Columns: cells, Rows: [][]any{{"end"}}})
		rec, err := csv.NewReader(bytes.NewReader(out)).Read()
		if err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		// (encoding/csv reads \r\n in a quoted cell as \n)
		if strings.Join(rec, "\x00") != strings.ReplaceAll(strings.Join(cells, "\x00"), "\r\n", "\n") {
			t.Fatalf("cells %q written as %q, read back as %q", cells, out, rec)
		}
		first := cells[0]
		want := strings.ContainsAny(first, ",\"\n\r") || strings.TrimSpace(first) != first || len(cells) == 1 && first == ""
		if got := strings.HasPrefix(string(out), `"`); got != want {
			t.Errorf("cell %q: quoted %v, want %v", first, got, want)
		}
	}
}
