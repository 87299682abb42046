package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// parsedManifests are the manifests ParseStudy accepted while the
// package's tests ran (onParsed), each with its registry's types.
var parsedManifests struct {
	sync.Mutex
	srcs  map[string]kinds.Registry // manifest text → registry
	count int
}

// TestMain runs the package's tests, then checks that the manifest's
// JSON Schema (evalbook schema) accepts every manifest the parser
// accepted among them: the tests' studies, the demo, the README's.
func TestMain(m *testing.M) {
	parsedManifests.srcs = map[string]kinds.Registry{}
	manifest.OnParsed = func(src []byte, parsed manifest.Registry) {
		reg, _ := parsed.(kinds.Registry) // the tests parse with a Registry (nil: Kinds())
		parsedManifests.Lock()
		defer parsedManifests.Unlock()
		parsedManifests.count++
		if len(parsedManifests.srcs) < 20000 {
			parsedManifests.srcs[string(src)] = reg
		}
	}
	code := m.Run()
	removeSharedDemo()
	manifest.OnParsed = nil
	if code == 0 {
		if err := schemaAcceptsParsed(); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: TestMain: the manifest schema (evalbook schema) rejects a manifest the parser accepts:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// schemaAcceptsParsed validates every recorded manifest.
func schemaAcceptsParsed() error {
	compiled := map[string]*jsonschema.Schema{}
	for src, reg := range parsedManifests.srcs {
		if reg == nil {
			reg = kinds.Kinds()
		}
		key := strings.Join(reg.Types(), ",")
		sch, ok := compiled[key]
		if !ok {
			var err error
			if sch, err = compileSchema(reg); err != nil {
				return err
			}
			compiled[key] = sch
		}
		if err := validateManifest(sch, src); err != nil {
			return fmt.Errorf("%v\n--- manifest ---\n%s", err, src)
		}
	}
	return nil
}

// compileSchema compiles Schema(kinds).
func compileSchema(reg kinds.Registry) (*jsonschema.Schema, error) {
	raw, err := manifest.Schema(reg)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(manifest.SchemaID, doc); err != nil {
		return nil, err
	}
	return c.Compile(manifest.SchemaID)
}

// validateManifest validates a TOML manifest, read as a TOML-aware
// editor reads it (TOML to JSON), against the schema.
func validateManifest(sch *jsonschema.Schema, src string) error {
	var v map[string]any
	if _, err := toml.Decode(strings.TrimPrefix(src, "\xef\xbb\xbf"), &v); err != nil {
		return err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// TestSchemaCoversTheParser: the schema has a property for every
// top-level key the parser knows (and no other), and every option type
// that decodes itself has its schema (a generic struct schema would
// refuse its other shapes).
func TestSchemaCoversTheParser(t *testing.T) {
	for _, k := range manifest.TopKeys {
		if manifest.TopKeySchema[k] == nil && k != "analyses" {
			t.Errorf("top-level key %q has no schema (topKeySchema)", k)
		}
	}
	if len(manifest.TopKeySchema) != len(manifest.TopKeys) {
		t.Errorf("topKeySchema has %d keys, the parser %d", len(manifest.TopKeySchema), len(manifest.TopKeys))
	}
	unmarshaler := reflect.TypeOf((*toml.Unmarshaler)(nil)).Elem()
	for _, typ := range manifest.SchemaTypes(kinds.Kinds()) {
		if reflect.PointerTo(typ).Implements(unmarshaler) {
			if _, ok := manifest.CustomSchemas[typ]; !ok {
				t.Errorf("%v decodes itself (UnmarshalTOML) but has no schema in customSchemas", typ)
			}
		}
	}
}

// TestSchemaAcceptsAndRejects: the schema accepts the README's manifests
// that the parser accepts, and rejects an unknown key at every level, a
// value of the wrong type and an analysis option of another type.
func TestSchemaAcceptsAndRejects(t *testing.T) {
	sch, err := compileSchema(kinds.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for _, m := range regexp.MustCompile("(?s)```toml[^\n]*\n(.*?)```").FindAllStringSubmatch(string(readme), -1) {
		src := m[1]
		if _, err := manifest.ParseStudy("study.toml", []byte(src), kinds.Kinds()); err != nil {
			continue // a fragment, or a listing of every option
		}
		accepted++
		if err := validateManifest(sch, src); err != nil {
			t.Errorf("the README's manifest is rejected: %v\n%s", err, src)
		}
	}
	if accepted < 3 {
		t.Errorf("only %d of the README's manifests parse; want its three walk-through studies at least", accepted)
	}
	base := "title = \"t\"\n[inputs]\nresults = \"r.csv\"\n[[metrics]]\nname = \"m\"\nbetter = \"lower\"\n[[analyses]]\nid = \"lb\"\ntype = \"aggregate\"\nmetric = \"m\"\nrules = [\"mean\"]\n"
	if err := validateManifest(sch, base); err != nil {
		t.Fatalf("a plain manifest is rejected: %v", err)
	}
	for name, src := range map[string]string{
		"unknown top-level key":   strings.Replace(base, "title = \"t\"\n", "title = \"t\"\ntitel = \"x\"\n", 1),
		"unknown analysis option": base + "rulez = [\"mean\"]\n",
		"another type's option":   base + "perturbations = [\"drop_datasets\"]\n",
		"unknown metrics key":     strings.Replace(base, "better = \"lower\"\n", "better = \"lower\"\nbest = 1\n", 1),
		"unknown inputs key":      strings.Replace(base, "results = \"r.csv\"\n", "results = \"r.csv\"\nresult = \"x.csv\"\n", 1),
		"wrong type":              strings.Replace(base, "metric = \"m\"\n", "metric = 3\n", 1),
		"unknown analysis type":   strings.Replace(base, "type = \"aggregate\"", "type = \"agregate\"", 1),
		"no title":                strings.Replace(base, "title = \"t\"\n", "", 1),
	} {
		if err := validateManifest(sch, src); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
