package manifest

import (
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"

	"github.com/evalbook/evalbook/analyses/meta"
	"github.com/evalbook/evalbook/analyses/multiobjective"
	"github.com/evalbook/evalbook/analyses/offline"
)

// SchemaID is the $id of the manifest's JSON Schema.
const SchemaID = "urn:evalbook:study.toml"

// Schema returns the JSON Schema (draft 2020-12) of study.toml, for
// TOML-aware editors (Taplo, Even Better TOML) to complete and check a
// manifest. It is generated from the declarations the parser reads: the
// top-level keys (topKeys), the [[metrics]], [[methods]], [[pages]] and
// input entries' `toml` tags, and each analysis type's options struct in
// the registry. A manifest the parser accepts is valid under it; an
// unknown key is not. Values the parser checks beyond their type (a
// rule's name, a bound) are checked by `evalbook validate`.
func Schema(kinds Registry) ([]byte, error) {
	if kinds == nil {
		return nil, errors.New("manifest.Schema: no registry of analysis types (kinds.Kinds())")
	}
	top := map[string]any{}
	for _, k := range TopKeys {
		top[k] = TopKeySchema[k]
	}
	var types []string
	var branches []any
	for _, t := range kinds.Types() {
		types = append(types, t)
		props := map[string]any{
			"id":      strSchema("the analysis id: names its page, figures and data files ([a-z0-9-], at most 100 characters)"),
			"type":    map[string]any{"const": t},
			"title":   strSchema("the page's title"),
			"caption": strSchema("a caption for the analysis's first figure"),
		}
		kind, _ := kinds.OptionsKind(t)
		for k, v := range structProps(reflect.TypeOf(kind.NewOptions()).Elem()) {
			props[k] = v
		}
		branches = append(branches, map[string]any{
			"if":   map[string]any{"properties": map[string]any{"type": map[string]any{"const": t}}, "required": []string{"type"}},
			"then": map[string]any{"properties": props, "additionalProperties": false, "description": kind.Summary},
		})
	}
	analysis := map[string]any{
		"type":     "object",
		"required": []string{"id", "type"},
		"properties": map[string]any{
			"type": map[string]any{"enum": types, "description": "the analysis type"},
		},
		"allOf": branches,
	}
	top["analyses"] = map[string]any{"type": "array", "items": analysis, "description": "the analyses, one [[analyses]] table each"}
	s := map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"$id":                  SchemaID,
		"title":                "evalbook study manifest (study.toml)",
		"type":                 "object",
		"required":             []string{"title"},
		"properties":           top,
		"additionalProperties": false,
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func strSchema(desc string) map[string]any {
	return map[string]any{"type": "string", "description": desc}
}

// entrySchema is an input entry: a path (glob, {dataset}/{method}
// pattern) or a table with the path and its reading rules.
var entrySchema = map[string]any{"anyOf": []any{
	map[string]any{"type": "string"},
	// a file's entry names its path, an engine table's its engine
	map[string]any{"type": "object", "properties": structProps(reflect.TypeOf(InputEntry{})), "additionalProperties": false,
		"anyOf": []any{map[string]any{"required": []string{"path"}}, map[string]any{"required": []string{"engine"}}}},
}}

// entriesSchema is one input entry or a list of them.
var entriesSchema = map[string]any{"anyOf": []any{entrySchema, map[string]any{"type": "array", "items": entrySchema}}}

// TopKeySchema is the schema of each top-level key but analyses (which
// comes from the registry); TestSchemaCoversTheParser keeps it and
// topKeys the same set.
var TopKeySchema = map[string]any{
	"title":         strSchema("the study's title (required)"),
	"subtitle":      strSchema("a subtitle"),
	"authors":       map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "a list, also for one author"},
	"date":          map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "string", "format": "date"}}, "description": "printed on the site; the build time never is"},
	"doi":           strSchema("the paper's DOI"),
	"links":         map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}, "description": "named links (paper, code, …)"},
	"license":       strSchema("an SPDX license id (pack needs one)"),
	"abstract":      strSchema("Markdown"),
	"seed":          map[string]any{"type": "integer", "description": "every randomized analysis derives its own stream from it"},
	"unsafe_html":   map[string]any{"type": "boolean", "description": "keep raw HTML in pages"},
	"allow_outside": map[string]any{"type": "boolean", "description": "read inputs, pages and the bibliography outside the study directory"},
	"bibliography":  strSchema("a BibTeX file for [@key] citations in pages"),
	"figure_width":  map[string]any{"type": "number", "minimum": 1, "maximum": 20, "description": "inches: the PDF and PNG figures for a manuscript"},
	"exports":       map[string]any{"type": "boolean", "description": "every build also writes each figure's PDF and PNG"},
	"metrics": map[string]any{"type": "array", "items": map[string]any{"type": "object", "required": []string{"name"},
		"properties": structProps(reflect.TypeOf(MetricSpec{})), "additionalProperties": false}},
	"methods": map[string]any{"type": "array", "items": map[string]any{"type": "object", "required": []string{"name"},
		"properties": structProps(reflect.TypeOf(MethodSpec{})), "additionalProperties": false}},
	"datasets": map[string]any{"type": "array", "items": map[string]any{"type": "object", "required": []string{"name"},
		"properties": map[string]any{
			"name":         strSchema("the dataset's name in the data"),
			"label":        strSchema("its name on pages and figures"),
			"interactions": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "object"}}, "description": "an interaction log (user,item[,rating][,timestamp])"},
		},
		"additionalProperties": map[string]any{"type": []string{"string", "number", "boolean"}, "description": "any attribute, kept as text"}}},
	"inputs": map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
		"results": entriesSchema, "units": entriesSchema, "characteristics": entriesSchema}},
	"pages": map[string]any{"type": "array", "items": map[string]any{"type": "object", "required": []string{"title", "source"},
		"properties": structProps(reflect.TypeOf(PageSpec{})), "additionalProperties": false}},
	"analyses": nil, // from the registry
}

// sourceSchema is a file an analysis reads itself: a path, or a table of
// the path and its column mapping.
var sourceSchema = map[string]any{"anyOf": []any{
	map[string]any{"type": "string"},
	map[string]any{"type": "object", "required": []string{"path"}, "additionalProperties": false, "properties": map[string]any{
		"path": map[string]any{"type": "string"}, "columns": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}}},
}}

// CustomSchemas are the option types that decode themselves
// (UnmarshalTOML): each accepts more than one shape.
var CustomSchemas = map[reflect.Type]any{
	reflect.TypeOf(meta.Source{}): sourceSchema,
	reflect.TypeOf(meta.Tau2Option("")): map[string]any{"anyOf": []any{
		map[string]any{"type": "string"}, map[string]any{"type": "number", "minimum": 0}}},
	reflect.TypeOf(multiobjective.Source{}): map[string]any{"anyOf": []any{
		map[string]any{"type": "string"},
		map[string]any{"type": "object", "required": []string{"path"}, "additionalProperties": false, "properties": map[string]any{
			"path": map[string]any{"type": "string"}, "columns": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
			"ids": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}},
	}},
	reflect.TypeOf(multiobjective.Importance{}): map[string]any{"anyOf": []any{
		map[string]any{"type": "number"},
		map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "number"}},
		map[string]any{"type": "array", "items": map[string]any{"type": "number"}},
	}},
	reflect.TypeOf(multiobjective.EvalRS2022Options{}): map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
		"baseline": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "number"}},
		"best":     map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "number"}},
		"threshold": map[string]any{"anyOf": []any{map[string]any{"type": "number"},
			map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "number"}}}},
		"penalty": map[string]any{"type": "number"},
		"groups":  map[string]any{"type": []string{"object", "array"}},
	}},
	reflect.TypeOf(offline.CompareOptions{}): map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
		"test": map[string]any{"type": "string"}, "correction": map[string]any{"type": "string"},
		"permutations": map[string]any{"type": "integer"}, "alpha": map[string]any{"type": "number"},
		"metrics": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	}},
}

// structProps is the properties of a struct's `toml`-tagged fields.
func structProps(t reflect.Type) map[string]any {
	props := map[string]any{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		props[name] = typeSchema(f.Type)
	}
	return props
}

// typeSchema is the schema of a Go type as BurntSushi/toml decodes into
// it: integers also as a float's integral value is not accepted, so an
// int field is an integer; a float field takes either.
func typeSchema(t reflect.Type) any {
	if s, ok := CustomSchemas[t]; ok {
		return s
	}
	switch t.Kind() {
	case reflect.Pointer:
		return typeSchema(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": typeSchema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": typeSchema(t.Elem())}
	case reflect.Struct:
		return map[string]any{"type": "object", "properties": structProps(t), "additionalProperties": false}
	}
	return map[string]any{}
}

// SchemaTypes lists the option types reachable from the registry that
// decode themselves (for TestSchemaCoversTheParser).
func SchemaTypes(kinds Registry) []reflect.Type {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && f.Tag.Get("toml") != "" && f.Tag.Get("toml") != "-" {
				walk(f.Type)
			}
		}
	}
	for _, k := range kinds.Types() {
		kind, _ := kinds.OptionsKind(k)
		walk(reflect.TypeOf(kind.NewOptions()))
	}
	var out []reflect.Type
	for t := range seen {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
