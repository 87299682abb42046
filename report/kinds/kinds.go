package kinds

import (
	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/report/manifest"
)

// Registry maps an analysis type to its Kind.
type Registry map[string]Kind

// Types lists the registered types, sorted.
func (r Registry) Types() []string { return analyses.SortedKeys(r) }

// OptionsKind returns the manifest's side of the named type: what the
// manifest decodes and checks, and the rules it applies.
func (r Registry) OptionsKind(typ string) (manifest.Kind, bool) {
	k, ok := r[typ]
	if !ok {
		return manifest.Kind{}, false
	}
	return manifest.Kind{Type: k.Type, Summary: k.Summary, NewOptions: k.NewOptions, Check: k.Check, Title: k.Title, Feeds: k.Feeds, ReadsUnits: k.Units != nil}, true
}

// Kinds returns the registry of every built-in analysis type: a new
// registry on each call, so a caller may add to it or replace a kind
// without changing anyone else's.
func Kinds() Registry {
	r := Registry{}
	for _, mk := range registered {
		k := mk()
		if _, dup := r[k.Type]; dup {
			panic("kinds: two kinds register the type " + k.Type)
		}
		r[k.Type] = k
	}
	return r
}
