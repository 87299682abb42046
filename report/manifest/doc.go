// Package manifest is the first stage of a build: it parses and checks a
// study's study.toml (the README's manifest) into a Study — its keys and
// their lines, defaults, the option rules of each analysis type, names
// and labels, the engine entries' addresses — and writes its JSON
// Schema. It reads the manifest file only; the analysis types it knows
// through a Registry (kinds.Kinds), never running one.
package manifest
