package filedeps

import (
	"go/ast"
	"go/types"
)

// Step is one function of a walk, with the file that declares it.
type Step struct {
	Func, File string
	Return     bool // the walk came back to this file after leaving it
}

// Walk follows a struct type's fields (typ, such as "Options") from the
// function start through the package's static call graph: depth first,
// callees in the order their calls are written, each function once, and
// only into the functions that are handed the options or one of their
// fields (newDiskStore(o.CacheDir, …), o.Cache.hashStore()) or that read
// a field themselves or through their callees. It lists those
// functions, with their files, and counts the steps that come back to a file the walk
// had already left: how often a reader following the options has to go
// back to a file.
func (p *Package) Walk(start, typ string) (steps []Step, returns int) {
	tn, _ := p.Types.Scope().Lookup(typ).(*types.TypeName)
	g := p.callGraph(tn)
	reach := g.reach()
	startFn, _ := p.Types.Scope().Lookup(start).(*types.Func)
	seen := map[*types.Func]bool{}
	left := map[string]bool{}
	current := ""
	var visit func(fn *types.Func)
	visit = func(fn *types.Func) {
		if seen[fn] || !reach[fn] {
			return
		}
		seen[fn] = true
		file := p.FileOf(fn.Pos())
		s := Step{Func: funcName(fn), File: file}
		if file != current {
			if left[file] {
				s.Return = true
				returns++
			}
			if current != "" {
				left[current] = true
			}
			current = file
		}
		steps = append(steps, s)
		for _, c := range g.calls[fn] {
			visit(c)
		}
	}
	if startFn != nil {
		visit(startFn)
	}
	return steps, returns
}

// callGraph is the package's static call graph with, per function,
// whether it reads a field of the followed type or is handed one.
type callGraph struct {
	calls  map[*types.Func][]*types.Func // callees in the order written
	reads  map[*types.Func]bool          // reads a field itself
	handed map[*types.Func]bool          // called with an option (o.Out) or the options
}

// callGraph builds the graph of the package's functions with bodies.
func (p *Package) callGraph(tn *types.TypeName) *callGraph {
	g := &callGraph{calls: map[*types.Func][]*types.Func{}, reads: map[*types.Func]bool{}, handed: map[*types.Func]bool{}}
	decls := map[*types.Func]*ast.FuncDecl{}
	for _, f := range p.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if fn, ok := p.Info.Defs[fd.Name].(*types.Func); ok {
					decls[fn] = fd
				}
			}
		}
	}
	for fn, fd := range decls {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if sel := p.Info.Selections[n]; sel != nil && sel.Kind() == types.FieldVal && tn != nil && isOf(sel.Recv(), tn) {
					g.reads[fn] = true
				}
			case *ast.CallExpr:
				if callee := p.callee(n.Fun); callee != nil && decls[callee] != nil {
					g.calls[fn] = append(g.calls[fn], callee)
					if tn != nil && p.handsOn(n, tn) {
						g.handed[callee] = true
					}
				}
			}
			return true
		})
	}
	return g
}

// reach is the set of functions that read a field or are handed one,
// themselves or through their callees.
func (g *callGraph) reach() map[*types.Func]bool {
	reach := map[*types.Func]bool{}
	for fn := range g.reads {
		reach[fn] = true
	}
	for fn := range g.handed {
		reach[fn] = true
	}
	for changed := true; changed; {
		changed = false
		for fn, cs := range g.calls {
			for _, c := range cs {
				if reach[c] && !reach[fn] {
					reach[fn], changed = true, true
				}
			}
		}
	}
	return reach
}

// callee is the package's function or method a call expression calls,
// or nil (a function value, a builtin, another package's).
func (p *Package) callee(fun ast.Expr) *types.Func {
	var id *ast.Ident
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	case *ast.IndexExpr: // a generic function's instance
		return p.callee(f.X)
	}
	if id == nil {
		return nil
	}
	fn, ok := p.Info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() != p.Types {
		return nil
	}
	return fn.Origin()
}

// isOf reports whether t is the named type tn or a pointer to it.
func isOf(t types.Type, tn *types.TypeName) bool {
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	named, ok := t.(*types.Named)
	return ok && named.Obj() == tn
}

// funcName names a function for a listing: Type.Method or the name.
func funcName(fn *types.Func) string { return qualifiedName(fn) }

// handsOn reports whether a call's arguments or receiver mention a value
// of the named type tn or one of its fields.
func (p *Package) handsOn(call *ast.CallExpr, tn *types.TypeName) bool {
	exprs := append([]ast.Expr{}, call.Args...)
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		exprs = append(exprs, sel.X)
	}
	found := false
	for _, e := range exprs {
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if sel := p.Info.Selections[n]; sel != nil && sel.Kind() == types.FieldVal && isOf(sel.Recv(), tn) {
					found = true
				}
			case *ast.Ident:
				if obj, ok := p.Info.Uses[n].(*types.Var); ok && isOf(obj.Type(), tn) {
					found = true
				}
			}
			return !found
		})
	}
	return found
}
