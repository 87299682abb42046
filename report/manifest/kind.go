package manifest

// Kind is what the manifest needs of an analysis type: its name
// and summary, its options (decoded into NewOptions's struct, then
// checked by Check against the rest of the manifest), and the two facts
// the manifest's own rules read: whether its analyses feed the others
// and whether they read per-unit values.
type Kind struct {
	Type    string
	Summary string // one line, for docs and `evalbook validate`
	// NewOptions returns a pointer to a fresh options struct holding the
	// defaults.
	NewOptions func() any
	// Check, when set, checks options against the rest of the manifest;
	// an *analyses.OptionError is reported at its key's line.
	Check func(s *Study, opts any) error
	// Title, when set, titles an analysis whose manifest gives no title,
	// from its decoded options; "" leaves it titled by its id.
	Title func(s *Study, opts any) string
	// Feeds marks a kind whose analyses run first and feed the others.
	Feeds bool
	// ReadsUnits marks a kind whose analyses may read per-unit values.
	ReadsUnits bool
}

// Registry is the set of analysis types a manifest may name.
type Registry interface {
	// Types lists the registered types, sorted.
	Types() []string
	// OptionsKind returns the named type's manifest side.
	OptionsKind(typ string) (Kind, bool)
}
