// Package engines connects a build to the engine tables a study names
// (docs/ENGINE.md): the per-unit values of an [inputs] units entry and
// the interaction logs of [[datasets]] entries, read from ClickHouse
// through report/engine. A build's State holds, per table, the
// connection settings (Table, LogTable, built by report from the
// manifest), the catalogue or fingerprint read once, and the queries
// each analysis sent, for the cache key and the provenance.
package engines
