// Command movedecls moves whole files of a package into a new package,
// mechanically: the files are renamed with git mv, their package clause
// changed, and every use of their declarations in the files left behind
// (tests included) qualified with the new package's name. A declaration
// used across the new boundary that is unexported is exported (its doc
// comment's first word follows); -rename old=New renames one more.
//
//	go run ./internal/tools/movedecls -dir report -to report/manifest \
//	    -rename manifestKind=Kind manifest.go labels.go …
//
// It refuses a move whose files use a declaration of a file that stays
// (the move would not compile) and a renaming that collides.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/evalbook/evalbook/internal/tools/filedeps"
	"go/ast"
	"go/build"
	"go/format"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

type renames map[string]string

func (r renames) String() string { return fmt.Sprint(map[string]string(r)) }
func (r renames) Set(s string) error {
	old, new, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("want old=New, got %q", s)
	}
	r[old] = new
	return nil
}

func main() {
	dir := flag.String("dir", "", "the package's directory")
	to := flag.String("to", "", "the new package's directory (its base name is its name)")
	extra := renames{}
	flag.Var(extra, "rename", "old=New: rename a moved declaration (repeatable)")
	dry := flag.Bool("n", false, "print what would change, change nothing")
	flag.Parse()
	if err := run(*dir, *to, flag.Args(), extra, *dry); err != nil {
		fmt.Fprintln(os.Stderr, "movedecls:", err)
		os.Exit(1)
	}
}

// move is one move in progress: the package type-checked with its
// tests, and what is moving.
type move struct {
	fset    *token.FileSet
	files   []*ast.File
	names   map[*ast.File]string // file → base name
	info    *types.Info
	pkg     *types.Package
	moved   map[string]bool // base names of the moving files
	newName string          // the new package's name
	newPath string          // its import path
}

func run(dir, to string, moving []string, extra renames, dry bool) error {
	m, err := load(dir, to, moving)
	if err != nil {
		return err
	}
	newNames, err := m.plan(extra)
	if err != nil {
		return err
	}
	changed := m.rewrite(newNames)
	if err := m.write(dir, changed, dry); err != nil {
		return err
	}
	for obj, nn := range newNames {
		fmt.Printf("renamed %s → %s\n", obj.Name(), nn)
	}
	if dry {
		return nil
	}
	return gitMove(dir, to, moving)
}

// load parses and type-checks the package in dir with its tests.
func load(dir, to string, moving []string) (*move, error) {
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		return nil, err
	}
	modPath, modDir, err := module(dir)
	if err != nil {
		return nil, err
	}
	absTo, _ := filepath.Abs(to)
	rel, err := filepath.Rel(modDir, absTo)
	if err != nil {
		return nil, err
	}
	m := &move{fset: token.NewFileSet(), names: map[*ast.File]string{}, moved: map[string]bool{},
		newName: filepath.Base(to), newPath: path.Join(modPath, filepath.ToSlash(rel))}
	for _, n := range moving {
		if !contains(bp.GoFiles, n) {
			return nil, fmt.Errorf("%s is not a non-test file of %s", n, dir)
		}
		m.moved[n] = true
	}
	for _, n := range append(append([]string{}, bp.GoFiles...), bp.TestGoFiles...) {
		f, err := parser.ParseFile(m.fset, filepath.Join(dir, n), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		m.files = append(m.files, f)
		m.names[f] = n
	}
	exports, err := exportData(dir)
	if err != nil {
		return nil, err
	}
	imp := importer.ForCompiler(m.fset, "gc", func(p string) (io.ReadCloser, error) {
		f, ok := exports[p]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", p)
		}
		return os.Open(f)
	})
	m.info = &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	m.pkg, err = (&types.Config{Importer: imp}).Check(bp.ImportPath, m.fset, m.files, m.info)
	return m, err
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (m *move) fileOf(pos token.Pos) string { return filepath.Base(m.fset.Position(pos).Filename) }

// inMoved reports whether obj is declared by a moving file.
func (m *move) inMoved(obj types.Object) bool {
	return obj != nil && obj.Pkg() == m.pkg && obj.Pos().IsValid() && m.moved[m.fileOf(obj.Pos())] && filedeps.DeclaredAtPackageLevel(obj, m.pkg)
}

// plan refuses a move whose files use a file that stays and returns the
// new names: the extra renames, then the unexported declarations used
// from the files that stay.
func (m *move) plan(extra renames) (map[types.Object]string, error) {
	var stuck []string
	usedOutside := map[types.Object]bool{}
	for id, obj := range m.info.Uses {
		if obj == nil || obj.Pkg() != m.pkg || !filedeps.DeclaredAtPackageLevel(obj, m.pkg) {
			continue
		}
		from := m.fileOf(id.Pos())
		switch {
		case m.moved[from] && !m.moved[m.fileOf(obj.Pos())]:
			stuck = append(stuck, fmt.Sprintf("%s uses %s (%s)", from, obj.Name(), m.fileOf(obj.Pos())))
		case !m.moved[from] && m.inMoved(obj):
			usedOutside[obj] = true
		}
	}
	if len(stuck) > 0 {
		sort.Strings(stuck)
		return nil, fmt.Errorf("the moved files use files that stay:\n  %s", strings.Join(stuck, "\n  "))
	}
	newNames := map[types.Object]string{}
	for _, obj := range m.info.Defs {
		if !m.inMoved(obj) {
			continue
		}
		if n, ok := extra[obj.Name()]; ok && obj.Parent() == m.pkg.Scope() {
			newNames[obj] = n
		} else if usedOutside[obj] && !obj.Exported() {
			newNames[obj] = exportName(obj.Name())
		}
	}
	return newNames, collisions(newNames, m.pkg, m.inMoved)
}

// rewrite renames and qualifies in the ASTs and returns the files changed.
func (m *move) rewrite(newNames map[types.Object]string) map[*ast.File]bool {
	changed := map[*ast.File]bool{}
	byFile := map[*token.File]*ast.File{}
	for _, f := range m.files {
		byFile[m.fset.File(f.Pos())] = f
	}
	for id, obj := range m.info.Uses {
		if !m.inMoved(obj) {
			continue
		}
		f := byFile[m.fset.File(id.Pos())]
		name := obj.Name()
		if nn, ok := newNames[obj]; ok {
			name = nn
		}
		if !m.moved[m.names[f]] && obj.Parent() == m.pkg.Scope() {
			name = m.newName + "." + name
		}
		if name != id.Name {
			id.Name = name
			changed[f] = true
		}
	}
	for id, obj := range m.info.Defs {
		if nn, ok := newNames[obj]; ok && obj != nil {
			id.Name = nn
			changed[byFile[m.fset.File(id.Pos())]] = true
		}
	}
	for _, f := range m.files {
		if m.moved[m.names[f]] {
			f.Name.Name = m.newName
			changed[f] = true
			renameDocs(f, m.info, newNames)
		}
	}
	return changed
}

// write formats the changed files back (adding the new package's import
// where a file now names it).
func (m *move) write(dir string, changed map[*ast.File]bool, dry bool) error {
	for _, f := range m.files {
		n := m.names[f]
		if !changed[f] {
			continue
		}
		if !m.moved[n] && usesQualifier(f, m.newName) {
			addImport(f, m.newPath)
		}
		var buf bytes.Buffer
		if err := format.Node(&buf, m.fset, f); err != nil {
			return fmt.Errorf("%s: %v", n, err)
		}
		out := filepath.Join(dir, n)
		if dry {
			fmt.Println("would write", out)
			continue
		}
		if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// gitMove renames the moving files into the new package with git mv.
func gitMove(dir, to string, moving []string) error {
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	for _, n := range moving {
		cmd := exec.Command("git", "mv", filepath.Join(dir, n), filepath.Join(to, n))
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return err
		}
	}
	return nil
}

// exportName is name with its first letter upper-case.
func exportName(name string) string {
	r := []rune(name)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// collisions refuses a new name already taken in its scope (the moved
// declarations, or the type of a method).
func collisions(newNames map[types.Object]string, pkg *types.Package, inMoved func(types.Object) bool) error {
	var errs []string
	for obj, nn := range newNames {
		if obj.Parent() == pkg.Scope() {
			if other := pkg.Scope().Lookup(nn); other != nil && other != obj && inMoved(other) {
				if _, renamed := newNames[other]; !renamed {
					errs = append(errs, fmt.Sprintf("%s → %s: taken", obj.Name(), nn))
				}
			}
			continue
		}
		// a field or method: look in its type
		var recv types.Type
		switch o := obj.(type) {
		case *types.Func:
			recv = o.Type().(*types.Signature).Recv().Type()
		case *types.Var:
			continue // checked by the compiler after the move
		}
		if o, _, _ := types.LookupFieldOrMethod(recv, true, pkg, nn); o != nil && o != obj {
			errs = append(errs, fmt.Sprintf("%s → %s: taken in its type", obj.Name(), nn))
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("renames collide:\n  %s", strings.Join(errs, "\n  "))
	}
	return nil
}

// renameDocs changes the first word of a renamed declaration's doc
// comment from its old name to its new one.
func renameDocs(f *ast.File, info *types.Info, newNames map[types.Object]string) {
	fix := func(doc *ast.CommentGroup, id *ast.Ident) {
		if doc == nil || id == nil {
			return
		}
		obj := info.Defs[id]
		nn, ok := newNames[obj]
		if !ok {
			return
		}
		c := doc.List[0]
		prefix := "// " + obj.Name()
		if strings.HasPrefix(c.Text, prefix+" ") || c.Text == prefix {
			c.Text = "// " + nn + strings.TrimPrefix(c.Text, prefix)
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			fix(d.Doc, d.Name)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					doc := s.Doc
					if doc == nil && len(d.Specs) == 1 {
						doc = d.Doc
					}
					fix(doc, s.Name)
					if st, ok := s.Type.(*ast.StructType); ok {
						for _, fld := range st.Fields.List {
							for _, n := range fld.Names {
								fix(fld.Doc, n)
							}
						}
					}
				case *ast.ValueSpec:
					doc := s.Doc
					if doc == nil && len(d.Specs) == 1 {
						doc = d.Doc
					}
					for _, n := range s.Names {
						fix(doc, n)
					}
				}
			}
		}
	}
}

// usesQualifier reports whether f names something as q.X.
func usesQualifier(f *ast.File, q string) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && strings.HasPrefix(id.Name, q+".") {
			found = true
		}
		return !found
	})
	return found
}

// addImport adds an import of p to f unless it has one.
func addImport(f *ast.File, p string) {
	quoted := fmt.Sprintf("%q", p)
	for _, is := range f.Imports {
		if is.Path.Value == quoted {
			return
		}
	}
	spec := &ast.ImportSpec{Path: &ast.BasicLit{Kind: token.STRING, Value: quoted}}
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			if gd.Lparen == token.NoPos {
				gd.Lparen = gd.Pos()
				gd.Rparen = gd.End()
			}
			spec.Path.ValuePos = gd.Rparen - 1
			gd.Specs = append(gd.Specs, spec)
			f.Imports = append(f.Imports, spec)
			return
		}
	}
	gd := &ast.GenDecl{Tok: token.IMPORT, Specs: []ast.Spec{spec}}
	f.Decls = append([]ast.Decl{gd}, f.Decls...)
	f.Imports = append(f.Imports, spec)
}

// module returns the module path and root of the module holding dir.
func module(dir string) (string, string, error) {
	cmd := exec.Command("go", "list", "-m", "-json")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", "", err
	}
	var m struct{ Path, Dir string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", "", err
	}
	return m.Path, m.Dir, nil
}

// exportData maps the import paths the package and its tests depend on
// to their export data.
func exportData(dir string) (map[string]string, error) {
	cmd := exec.Command("go", "list", "-export", "-deps", "-test", "-json=ImportPath,Export", ".")
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, errb.String())
	}
	m := map[string]string{}
	dec := json.NewDecoder(&out)
	for dec.More() {
		var e struct{ ImportPath, Export string }
		if err := dec.Decode(&e); err != nil {
			return nil, err
		}
		if e.Export != "" && !strings.Contains(e.ImportPath, " [") {
			m[e.ImportPath] = e.Export
		}
	}
	return m, nil
}
