package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report/input/bib"
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

// packedStudy packs the row's study (given a license, which pack needs)
// into root/study.zip, with extra pack arguments, and returns the zip.
func packedStudy(t testing.TB, root, study string, extra ...string) string {
	t.Helper()
	withCrateMetadata(t, study)
	z := filepath.Join(root, "study.zip")
	if code, _, stderr := runCLI(append([]string{"pack", study, "-o", z, "--quiet"}, extra...)...); code != 0 {
		t.Fatalf("pack: exit %d: %s", code, stderr)
	}
	return z
}

// withCrateMetadata gives the study's manifest what pack's RO-Crate needs
// (license, abstract, date), so a row reaches the check it is about.
func withCrateMetadata(t testing.TB, study string) {
	t.Helper()
	m := filepath.Join(study, "study.toml")
	src, err := os.ReadFile(m)
	mustDo(t, err)
	write(t, m, "license = \"CC0-1.0\"\nabstract = \"A study.\"\ndate = \"2024-01-01\"\n"+string(src))
}

// addZeroEntry rewrites the zip at path with one more entry, name, of
// size zero bytes (deflated, so small on disk), listed in its crate with
// its true sha256 and size.
func addZeroEntry(t testing.TB, path, name string, size int64) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	mustDo(t, err)
	var names []string
	data := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		mustDo(t, err)
		b, err := io.ReadAll(rc)
		mustDo(t, err)
		rc.Close()
		names = append(names, f.Name)
		data[f.Name] = b
	}
	zr.Close()
	zero := make([]byte, 1<<20)
	h := sha256.New()
	for n := int64(0); n < size; n += int64(len(zero)) {
		h.Write(zero)
	}
	var doc map[string]any
	mustDo(t, json.Unmarshal(data["ro-crate-metadata.json"], &doc))
	doc["@graph"] = append(doc["@graph"].([]any), map[string]any{"@id": name, "@type": "File",
		"sha256": hex.EncodeToString(h.Sum(nil)), "contentSize": fmt.Sprint(size)})
	data["ro-crate-metadata.json"], err = json.Marshal(doc)
	mustDo(t, err)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, err := zw.Create(n)
		mustDo(t, err)
		w.Write(data[n])
	}
	w, err := zw.Create(name)
	mustDo(t, err)
	for n := int64(0); n < size; n += int64(len(zero)) {
		w.Write(zero)
	}
	mustDo(t, zw.Close())
	mustDo(t, os.WriteFile(path, buf.Bytes(), 0o644))
}

// citationHasOnlyItsFields parses citation.bib with the project's BibTeX
// reader and fails if it does not parse or a manifest value added a
// field.
func citationHasOnlyItsFields(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	mustDo(t, err)
	entries, err := bib.Parse("citation.bib", string(b))
	if err != nil || len(entries) != 1 {
		t.Fatalf("citation.bib: %v, %d entries\n%s", err, len(entries), b)
	}
	for _, e := range entries {
		for k := range e.Fields {
			if !map[string]bool{"title": true, "author": true, "year": true, "month": true, "doi": true, "url": true, "note": true}[k] {
				t.Errorf("citation.bib has a field %s = %q the manifest's values added:\n%s", k, e.Fields[k], b)
			}
		}
	}
}

// metaPValuesInTail reads data/m.json of a meta-analysis whose effects
// lie far from 0: every p of its main table and its summary must be the
// normal upper tail of its own z (2·Φ̄(|z|) = erfc(|z|/√2), metafor's),
// not the 0 that 1 − erf gave, and the page must print them.
func metaPValuesInTail(t *testing.T, site string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(site, "data", "m.json"))
	mustDo(t, err)
	var doc struct {
		Summary struct{ Effect, SE, P float64 } `json:"summary"`
		Tables  map[string][]map[string]any     `json:"tables"`
	}
	mustDo(t, json.Unmarshal(b, &doc))
	check := func(what string, effect, se, p float64) {
		want := math.Erfc(math.Abs(effect/se) / math.Sqrt2)
		if !(want > 0 && want < 1e-16) || math.Abs(p-want) > 1e-9*want {
			t.Errorf("%s: p = %g, want %g (erfc of |z| = %g)", what, p, want, math.Abs(effect/se))
		}
	}
	check("summary", doc.Summary.Effect, doc.Summary.SE, doc.Summary.P)
	rows := doc.Tables["m"]
	if len(rows) == 0 {
		t.Fatalf("data/m.json has no main table: %v", doc.Tables)
	}
	for _, row := range rows {
		e, _ := row["effect"].(float64)
		se, _ := row["se"].(float64)
		p, _ := row["p"].(float64)
		check(fmt.Sprint(row["dataset"]), e, se, p)
	}
	page, err := os.ReadFile(filepath.Join(site, "m.html"))
	mustDo(t, err)
	if strings.Contains(string(page), "1e-15") {
		t.Errorf("m.html prints the bound 1e-15, which none of its p-values has")
	}
}
