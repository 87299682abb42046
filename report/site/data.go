package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/evalbook/evalbook/analyses"
)

// docKeys are the keys data/<id>.json starts with, in order; the
// result's own fields follow, sorted.
var docKeys = []string{"id", "type", "title", "params", "seed", "tables", "warnings"}

// analysisDoc is data/<id>.json as a tree: id, type, title, params,
// seed, tables (rows as objects, columns in table order), warnings, then
// the result's own fields. A non-finite float of the result is written as
// null, and the returned notes (also in the document's warnings) say
// which.
func analysisDoc(a *Analysis) (*Object, []string, error) {
	own, nonFinite, err := treeOf(a.Result)
	if err != nil {
		return nil, nil, fmt.Errorf("result: %w", err)
	}
	var extra []string
	if len(nonFinite) > 0 {
		extra = []string{nonFiniteNote(nonFinite)}
	}
	params, _, err := treeOf(a.Resolved)
	if err != nil {
		return nil, nil, fmt.Errorf("params: %w", err)
	}
	tables, err := tablesTree(a)
	if err != nil {
		return nil, nil, err
	}
	warnings := make([]any, 0, len(a.Notes)+len(extra))
	for _, n := range append(append([]string{}, a.Notes...), extra...) {
		warnings = append(warnings, n)
	}
	doc := newObject(len(docKeys))
	doc.add("id", a.ID)
	doc.add("type", a.Type)
	doc.add("title", a.Title)
	doc.add("params", params)
	doc.add("seed", Number(fmt.Sprint(a.Seed)))
	doc.add("tables", tables)
	doc.add("warnings", warnings)
	fields := ownFields(own)
	for _, k := range analyses.SortedKeys(fields) {
		if !contains(docKeys, k) {
			doc.add(k, fields[k])
		}
	}
	return doc, extra, nil
}

// ownFields are the top-level fields of a result's tree, by name (none
// when the result is not an object). A result that marshals itself is
// read as encoding/json would read its object.
func ownFields(own any) map[string]any {
	fields := map[string]any{}
	switch x := own.(type) {
	case *Object:
		for i, k := range x.keys {
			fields[k] = x.vals[i]
		}
	case Raw:
		var raw map[string]json.RawMessage
		if json.Unmarshal(x, &raw) == nil {
			for k, v := range raw {
				fields[k] = Raw(v)
			}
		}
	}
	return fields
}

// tablesTree is the "tables" field of data/<id>.json: each table's id
// and its rows as objects, columns in table order.
func tablesTree(a *Analysis) (*Object, error) {
	out := newObject(len(a.Tables))
	for _, t := range a.Tables {
		rows := make([]any, len(t.Rows))
		for j, row := range t.Rows {
			obj := newObject(len(row))
			for c, cell := range row {
				v, nonFinite, err := treeOf(jsonCell(cell))
				if err == nil && len(nonFinite) > 0 {
					err = fmt.Errorf("json: unsupported value: NaN or infinity at %s", nonFinite[0])
				}
				if err != nil {
					return nil, fmt.Errorf("table %s, column %s, row %d: %w", t.ID(a.ID), t.Columns[c], j+1, err)
				}
				obj.add(t.Columns[c], v)
			}
			rows[j] = obj
		}
		out.add(t.ID(a.ID), rows)
	}
	return out, nil
}

// jsonCell is a table cell for JSON: a non-finite float is null.
func jsonCell(c any) any {
	if f, ok := c.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return nil
	}
	return c
}

// writeDoc writes an analysis document: the fixed keys first, then the
// result's own fields, sorted; each value indented.
func writeDoc(doc *Object) []byte {
	var out bytes.Buffer
	out.WriteByte('{')
	for i, k := range doc.keys {
		if i > 0 {
			out.WriteString(",\n")
		}
		writeString(&out, k)
		out.WriteByte(':')
		writeTree(&out, doc.vals[i], 0)
	}
	out.WriteString("}\n")
	return out.Bytes()
}

// nonFiniteNote is the reader's note about values written as null.
func nonFiniteNote(paths []string) string {
	const show = 5
	list := paths
	if len(list) > show {
		list = list[:show]
	}
	more := ""
	if len(paths) > show {
		more = fmt.Sprintf(" and %d more", len(paths)-show)
	}
	what := "value is"
	if len(paths) > 1 {
		what = "values are"
	}
	return fmt.Sprintf("%d %s not finite (NaN or ±infinity) and written as null in the JSON data: %s%s.",
		len(paths), what, strings.Join(list, ", "), more)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
