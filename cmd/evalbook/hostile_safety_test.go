package main

import (
	"archive/zip"
	"bytes"
	"os"
	"testing"
)

// Helpers of the catalogue's safety rows (issue 31: pack -o, verify's
// bounds, pseudo-files).

// otherToolCrate is the RO-Crate metadata of a crate another tool made.
const otherToolCrate = `{"@context": "https://w3id.org/ro/crate/1.1/context", "@graph": [
 {"@id": "ro-crate-metadata.json", "@type": "CreativeWork", "about": {"@id": "./"}},
 {"@id": "./", "@type": "Dataset", "name": "My thesis", "hasPart": [{"@id": "thesis.tex"}]},
 {"@id": "thesis.tex", "@type": "File"}]}`

// writeTestZip writes a zip of the given name, body pairs.
func writeTestZip(t testing.TB, path string, nameBody ...string) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(nameBody); i += 2 {
		w, err := zw.Create(nameBody[i])
		mustDo(t, err)
		_, err = w.Write([]byte(nameBody[i+1]))
		mustDo(t, err)
	}
	mustDo(t, zw.Close())
	mustDo(t, os.WriteFile(path, buf.Bytes(), 0o644))
}
