package site

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// forbiddenImports are the packages the site writer may not use: it
// renders a Model, it does not read files (os, io/fs), and it knows
// nothing of report or its input layer (the dependency goes report →
// report/site).
var forbiddenImports = map[string]string{
	"os":                  "opens and reads files",
	"io/fs":               "reads file systems",
	"io/ioutil":           "reads files",
	"net/http":            "fetches",
	"os/exec":             "runs programs",
	"syscall":             "talks to the system",
	"unsafe":              "not needed to render",
	"plugin":              "loads code",
	"embed":               "embedded assets come from themes",
	modulePath:            "report: the dependency goes report → report/site",
	modulePath + "/input": "report/input: pages and the bibliography are in the Model",
}

const modulePath = "github.com/evalbook/evalbook/report"

// decoders are the calls that decode JSON text; decodeAllowed the files
// that may make them, and why. The site's own documents are trees (doc.go)
// and are never decoded.
var (
	decoders      = map[string]bool{"json.Unmarshal": true, "json.NewDecoder": true}
	decodeAllowed = map[string]string{
		"doc.go":   "a value that marshals itself (Raw) is decoded when a lookup walks into it",
		"data.go":  "a result that marshals itself as a whole is read field by field, as its text",
		"chart.go": "the figures' chart options arrive as JSON and are restyled",
	}
)

// TestRenderIsPure: no file of the package imports a forbidden package,
// and JSON is decoded only where decodeAllowed says.
func TestRenderIsPure(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		checked++
		for _, problem := range purityProblems(t, name) {
			t.Error(problem)
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d files: is the test in report/site?", checked)
	}
}

// purityProblems lists what one file does that the package may not.
func purityProblems(t *testing.T, name string) []string {
	t.Helper()
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if why, bad := forbiddenImports[path]; bad {
			out = append(out, name+" imports "+path+" ("+why+")")
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && decoders[x.Name+"."+sel.Sel.Name] && decodeAllowed[name] == "" {
			out = append(out, name+" calls "+x.Name+"."+sel.Sel.Name+": the site's documents are trees, never decoded (doc.go)")
		}
		return true
	})
	return out
}
