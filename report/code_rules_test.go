package report

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Issue 14's house rules, kept by a test: no function over 80 lines or of
// cyclomatic complexity over 25 outside tests and generated code, and a
// doc comment on every exported name (functions, methods of exported
// types, types, constants and variables). Complexity counts as gocyclo
// does: 1, plus one per if, for, range, non-default case and select
// case, && and ||.

const (
	maxFuncLines      = 80
	maxFuncComplexity = 25
)

// moduleGoFiles returns the module's non-test Go files (relative, slash
// separated), skipping testdata, node_modules and hidden directories.
func moduleGoFiles(t *testing.T) []string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

func parseModuleFile(t *testing.T, fset *token.FileSet, rel string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(fset, filepath.Join("..", filepath.FromSlash(rel)), nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func generated(f *ast.File) bool {
	for _, c := range f.Comments {
		if strings.Contains(c.Text(), "Code generated") && strings.Contains(c.Text(), "DO NOT EDIT") {
			return true
		}
	}
	return false
}

func cyclomatic(fn ast.Node) int {
	c := 1
	ast.Inspect(fn, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if x.List != nil {
				c++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

// funcName is Recv.Name or Name.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	return recvType(fd) + "." + fd.Name.Name
}

func recvType(fd *ast.FuncDecl) string {
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return "?"
}

func TestFunctionsAreSmall(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	var bad []string
	for _, rel := range moduleGoFiles(t) {
		f := parseModuleFile(t, fset, rel)
		if generated(f) {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			lines := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			if cc := cyclomatic(fd); lines > maxFuncLines || cc > maxFuncComplexity {
				bad = append(bad, fmt.Sprintf("%s:%d: %s: %d lines, complexity %d", rel, fset.Position(fd.Pos()).Line, funcName(fd), lines, cc))
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d functions over %d lines or complexity %d (split them into named steps):\n%s", len(bad), maxFuncLines, maxFuncComplexity, strings.Join(bad, "\n"))
	}
}

func TestExportedNamesHaveDocComments(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	var bad []string
	for _, rel := range moduleGoFiles(t) {
		f := parseModuleFile(t, fset, rel)
		if generated(f) || f.Name.Name == "main" {
			continue // a command's names are not an API
		}
		at := func(n ast.Node, what string) {
			bad = append(bad, fmt.Sprintf("%s:%d: %s", rel, fset.Position(n.Pos()).Line, what))
		}
		for _, d := range f.Decls {
			switch x := d.(type) {
			case *ast.FuncDecl:
				if !x.Name.IsExported() || x.Doc != nil {
					continue
				}
				if x.Recv != nil && !ast.IsExported(recvType(x)) {
					continue // a method of an unexported type is not public
				}
				at(x, "func "+funcName(x))
			case *ast.GenDecl:
				for _, s := range x.Specs {
					switch sp := s.(type) {
					case *ast.TypeSpec:
						if sp.Name.IsExported() && x.Doc == nil && sp.Doc == nil {
							at(sp, "type "+sp.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							if n.IsExported() && x.Doc == nil && sp.Doc == nil && sp.Comment == nil {
								at(sp, n.Name)
							}
						}
					}
				}
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d exported names without a doc comment:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}
