// Package filedeps type-checks one Go package and reports which of its
// files use which others' declarations: the file-to-file dependency
// graph that the stage-order test of report (and the walk tool) read.
package filedeps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
)

// Package is one type-checked package with its files' ASTs.
type Package struct {
	Fset  *token.FileSet
	Dir   string
	Files map[string]*ast.File // base name → file
	Info  *types.Info
	Types *types.Package
}

// Load parses and type-checks the non-test files of the package in dir
// (for the host's GOOS and build tags). Imports are read from the
// export data `go list -export` gives, so the dependencies compile once.
func Load(dir string) (*Package, error) {
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		return nil, err
	}
	exports, err := exportData(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	p := &Package{Fset: fset, Dir: dir, Files: map[string]*ast.File{}}
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		p.Files[name] = f
		files = append(files, f)
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return openFile(file)
	})
	p.Info = &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: imp}
	p.Types, err = conf.Check(bp.ImportPath, fset, files, p.Info)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// exportData maps each import path the package in dir depends on to its
// export data file.
func exportData(dir string) (map[string]string, error) {
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Export", ".")
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go list -export in %s: %v: %s", dir, err, errb.String())
	}
	m := map[string]string{}
	dec := json.NewDecoder(&out)
	for dec.More() {
		var e struct{ ImportPath, Export string }
		if err := dec.Decode(&e); err != nil {
			return nil, err
		}
		if e.Export != "" {
			m[e.ImportPath] = e.Export
		}
	}
	return m, nil
}

// FileOf returns the base name of the file a position lies in.
func (p *Package) FileOf(pos token.Pos) string {
	return filepath.Base(p.Fset.Position(pos).Filename)
}

// Edge is one file's use of another file's declarations.
type Edge struct {
	From, To string
	Names    []string // the declarations used, sorted
}

// Edges lists, for every pair of distinct files of the package, the
// package-level declarations (and methods and fields) of To that From
// uses, sorted by From then To.
func (p *Package) Edges() []Edge {
	uses := map[[2]string]map[string]bool{}
	for name, f := range p.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := p.Info.Uses[id]
			if obj == nil || obj.Pkg() != p.Types || !obj.Pos().IsValid() {
				return true
			}
			if !DeclaredAtPackageLevel(obj, p.Types) {
				return true
			}
			to := p.FileOf(obj.Pos())
			if to == name {
				return true
			}
			k := [2]string{name, to}
			if uses[k] == nil {
				uses[k] = map[string]bool{}
			}
			uses[k][qualifiedName(obj)] = true
			return true
		})
	}
	var edges []Edge
	for k, names := range uses {
		e := Edge{From: k[0], To: k[1]}
		for n := range names {
			e.Names = append(e.Names, n)
		}
		sort.Strings(e.Names)
		edges = append(edges, e)
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].From != edges[j].From {
			return edges[i].From < edges[j].From
		}
		return edges[i].To < edges[j].To
	})
	return edges
}

// DeclaredAtPackageLevel reports whether obj is a package-level
// declaration, a method, or a field of a package-level struct type: the
// things one file can use of another (and movedecls can move).
func DeclaredAtPackageLevel(obj types.Object, pkg *types.Package) bool {
	if obj.Parent() == pkg.Scope() {
		return true
	}
	switch o := obj.(type) {
	case *types.Func:
		return o.Type().(*types.Signature).Recv() != nil
	case *types.Var:
		return o.IsField()
	}
	return false
}

// qualifiedName names obj for a listing: Type.Method for a method, the
// bare name otherwise (a field is named by itself).
func qualifiedName(obj types.Object) string {
	if f, ok := obj.(*types.Func); ok {
		if recv := f.Type().(*types.Signature).Recv(); recv != nil {
			t := recv.Type()
			if ptr, ok := t.(*types.Pointer); ok {
				t = ptr.Elem()
			}
			if named, ok := t.(*types.Named); ok {
				return named.Obj().Name() + "." + f.Name()
			}
		}
	}
	return obj.Name()
}

// openFile opens an export data file go list named.
func openFile(name string) (io.ReadCloser, error) { return os.Open(name) }
