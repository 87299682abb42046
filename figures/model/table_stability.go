package model

import (
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// annotateStability gives each area of a stability summary (columns
// "<perturbation>_area", one row per rule) the count of perturbed
// matrices whose ρ is defined, from the analysis's curves table
// (perturbation, rule, count, undefined per point): an area over 1 of 31
// defined ρ shows "1/31" beside it in every output, never a bare 1.000.
func annotateStability(spec *Table, t analyses.Table, siblings []analyses.Table) {
	var curves *analyses.Table
	for i := range siblings {
		if siblings[i].Name == "curves" {
			curves = &siblings[i]
		}
	}
	ruleCol := -1
	for j, c := range t.Columns {
		if c == "rule" {
			ruleCol = j
		}
	}
	if curves == nil || ruleCol < 0 {
		return
	}
	ci := map[string]int{}
	for j, c := range curves.Columns {
		ci[c] = j
	}
	for _, c := range []string{"perturbation", "rule", "count", "undefined"} {
		if _, ok := ci[c]; !ok {
			return
		}
	}
	type key struct{ p, rule string }
	counts := map[key][2]int{}
	for _, r := range curves.Rows {
		p, _ := r[ci["perturbation"]].(string)
		rule, _ := r[ci["rule"]].(string)
		d, u := asInt(r[ci["count"]]), asInt(r[ci["undefined"]])
		k := key{p, rule}
		c := counts[k]
		counts[k] = [2]int{c[0] + d, c[1] + d + u}
	}
	for j, col := range spec.Columns {
		p, ok := strings.CutSuffix(col.ID, "_area")
		if !ok {
			continue
		}
		for i, r := range t.Rows {
			if i >= len(spec.Rows) {
				break
			}
			rule, _ := r[ruleCol].(string)
			c, ok := counts[key{p, rule}]
			if !ok {
				continue
			}
			cell := &spec.Rows[i][j]
			cell.Defined, cell.Of = c[0], c[1]
			if c[0] == 0 {
				cell.Text, cell.Num, cell.Sort, cell.Title = "—", false, "", ""
				cell.Undefined = "ρ is undefined for every perturbed matrix"
			}
			if cell.Partial() && cell.Num {
				spec.CountNote = "d/n: an area over only the d of n perturbed matrices whose ρ is defined (the others give every method the same score); an area over fewer than half is never marked best."
				cell.Title = strings.TrimSpace(cell.Title + " (ρ defined for " + cell.CountText() + " perturbed matrices)")
			}
		}
	}
}

// asInt is a count cell as an int (0 when it is none).
func asInt(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case int64:
		return int(x)
	case float64:
		return int(x)
	}
	return 0
}
