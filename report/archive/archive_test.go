package archive

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evalbook/evalbook/report"
)

// demoStudy generates the demo study (as make demo does) into a
// temporary directory.
func demoStudy(t *testing.T) string {
	t.Helper()
	if raceEnabled {
		t.Skip("the demo-sized tests run in the full pass, not under the race detector")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "./sites/demo/gen", dir, filepath.Join(root, "sites", "demo", "manifest.d"))
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("demo generator: %v\n%s", err, out)
	}
	return filepath.Join(dir, "study.toml")
}

// smallStudy is evalbook init's example study with a license (which
// pack needs), in a temporary directory.
func smallStudy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "study")
	if err := report.Init(dir); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(dir, "study.toml")
	src, err := os.ReadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(m, append([]byte("license = \"CC-BY-4.0\"\n"), src...), 0o644); err != nil {
		t.Fatal(err)
	}
	return m
}

func buildOpts(manifest string) report.Options {
	return report.Options{Manifest: manifest, NoCache: true, Quiet: true, Version: "test", Command: "evalbook build study.toml"}
}

func pack(t *testing.T, manifest, out string, exclude bool) {
	t.Helper()
	if _, err := Pack(context.Background(), PackOptions{Build: buildOpts(manifest), Out: out, ExcludeInputs: exclude}); err != nil {
		t.Fatal(err)
	}
}

func verify(zipPath, inputs string) error {
	_, err := Verify(context.Background(), VerifyOptions{Zip: zipPath, Inputs: inputs, Build: report.Options{Version: "test", Quiet: true}})
	return err
}

// zipEntries reads every entry of a zip.
func zipEntries(t *testing.T, path string) (names []string, data map[string][]byte) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	data = map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		names = append(names, f.Name)
		data[f.Name] = b
	}
	return names, data
}

// rewriteZip writes a copy of a zip with one entry's bytes changed by edit.
func rewriteZip(t *testing.T, src, dst, entry string, edit func([]byte) []byte) {
	t.Helper()
	names, data := zipEntries(t, src)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	found := false
	for _, n := range names {
		b := data[n]
		if n == entry {
			b, found = edit(append([]byte(nil), b...)), true
		}
		// Stored, not deflated: the test's copies need no compression
		// (and deflating the site's assets is slow under -race).
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if !found {
		t.Fatalf("%s has no entry %s", src, entry)
	}
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func flipByte(b []byte) []byte {
	b[len(b)/2] ^= 0x01
	return b
}

// mismatchFile returns the file a MismatchError names, or fails.
func mismatchFile(t *testing.T, err error) string {
	t.Helper()
	var me *MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("want an error naming the mismatching file, got %v", err)
	}
	return me.File
}

// TestPackDemo: two packs of the demo are byte-identical; verify passes
// on the pack; the RO-Crate metadata has the properties RO-Crate 1.1
// requires, and every file's sha256 and size (recomputed here from the
// zip's bytes) is right; every input the build recorded in
// provenance.json is in the archive.
func TestPackDemo(t *testing.T) {
	manifest := demoStudy(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.zip"), filepath.Join(dir, "b.zip")
	pack(t, manifest, a, false)
	pack(t, manifest, b, false)
	za, _ := os.ReadFile(a)
	zb, _ := os.ReadFile(b)
	if len(za) == 0 || !bytes.Equal(za, zb) {
		t.Fatalf("two packs of the demo differ (%d and %d bytes)", len(za), len(zb))
	}
	if err := verify(a, ""); err != nil {
		t.Fatalf("verify of a fresh pack: %v", err)
	}
	names, data := zipEntries(t, a)
	if names[0] != MetadataName {
		t.Errorf("first entry %s, want %s", names[0], MetadataName)
	}
	checkCrate(t, data)
	// The build's own record of its inputs (site/data/provenance.json)
	// is all in the archive.
	var prov report.Provenance
	if err := json.Unmarshal(data["site/data/provenance.json"], &prov); err != nil {
		t.Fatal(err)
	}
	if len(prov.Inputs) < 10 {
		t.Fatalf("provenance lists %d inputs; the demo reads more", len(prov.Inputs))
	}
	for _, in := range append(prov.Inputs, prov.Manifest) {
		got, ok := data[StudyDir+in.Path]
		if !ok {
			t.Errorf("input %s (in provenance.json) is not in the archive", in.Path)
			continue
		}
		if h := sha256.Sum256(got); hex.EncodeToString(h[:]) != in.SHA256 {
			t.Errorf("input %s: archived bytes do not have provenance's sha256", in.Path)
		}
	}
	for _, want := range []string{"study/refs.bib", "site/index.html", "site/" + report.SiteMarker} {
		if _, ok := data[want]; !ok {
			t.Errorf("the archive has no %s", want)
		}
	}
}

// checkCrate checks the RO-Crate 1.1 requirements (metadata descriptor,
// root data entity's name, description, datePublished, license; data
// entities reachable from hasPart) and every File's hash, size and media
// type against the zip's bytes.
func checkCrate(t *testing.T, data map[string][]byte) {
	t.Helper()
	var doc struct {
		Context any              `json:"@context"`
		Graph   []map[string]any `json:"@graph"`
	}
	if err := json.Unmarshal(data[MetadataName], &doc); err != nil {
		t.Fatal(err)
	}
	ctx, _ := json.Marshal(doc.Context)
	if !strings.Contains(string(ctx), `"https://w3id.org/ro/crate/1.1/context"`) {
		t.Errorf("@context %s does not name RO-Crate 1.1", ctx)
	}
	byID := map[string]map[string]any{}
	for _, e := range doc.Graph {
		byID[e["@id"].(string)] = e
	}
	ref := func(v any) string {
		m, _ := v.(map[string]any)
		s, _ := m["@id"].(string)
		return s
	}
	desc := byID[MetadataName]
	if desc == nil || desc["@type"] != "CreativeWork" || ref(desc["conformsTo"]) != "https://w3id.org/ro/crate/1.1" || ref(desc["about"]) != "./" {
		t.Errorf("metadata descriptor: %v", desc)
	}
	root := byID["./"]
	if root == nil || root["@type"] != "Dataset" {
		t.Fatalf("root data entity: %v", root)
	}
	for _, k := range []string{"name", "description", "datePublished"} {
		if s, _ := root[k].(string); s == "" {
			t.Errorf("root data entity has no %s", k)
		}
	}
	if root["datePublished"] != "2024-08-25" || root["identifier"] != "https://doi.org/10.1145/3637528.3671655" ||
		ref(root["license"]) != "https://spdx.org/licenses/CC-BY-4.0" {
		t.Errorf("root data entity: date %v, identifier %v, license %v: not the demo manifest's", root["datePublished"], root["identifier"], root["license"])
	}
	if authors, _ := root["author"].([]any); len(authors) != 3 {
		t.Errorf("root: %d authors, the demo has 3", len(authors))
	}
	act := byID[buildID]
	if act == nil || act["@type"] != "CreateAction" {
		t.Fatalf("no CreateAction: %v", act)
	}
	tool := byID[ref(act["instrument"])]
	if tool == nil || tool["@type"] != "SoftwareApplication" || tool["version"] != "test" {
		t.Errorf("the build's instrument: %v", tool)
	}
	parts := map[string]bool{}
	for _, p := range root["hasPart"].([]any) {
		parts[ref(p)] = true
	}
	files := 0
	for id, e := range byID {
		if e["@type"] != "File" {
			continue
		}
		files++
		got, ok := data[id]
		if !ok {
			t.Errorf("%s: listed, not in the zip", id)
			continue
		}
		if !parts[id] {
			t.Errorf("%s: not in the root's hasPart", id)
		}
		h := sha256.Sum256(got)
		if e["sha256"] != hex.EncodeToString(h[:]) {
			t.Errorf("%s: sha256 %v, the zip's bytes hash to %x", id, e["sha256"], h)
		}
		if e["contentSize"] != strconv.Itoa(len(got)) {
			t.Errorf("%s: contentSize %v, the zip holds %d bytes", id, e["contentSize"], len(got))
		}
		if s, _ := e["encodingFormat"].(string); s == "" {
			t.Errorf("%s: no encodingFormat", id)
		}
	}
	if files != len(data)-1 {
		t.Errorf("%d File entities for %d entries besides the metadata", files, len(data)-1)
	}
}

// TestVerifyNamesTheChangedFile plants one changed byte in one input, in
// one site file, and in the zip's compressed data; verify fails naming
// the file each time. Changing an input and its hash in the crate
// together is caught by the rebuild, which names the first site file
// that differs.
func TestVerifyNamesTheChangedFile(t *testing.T) {
	if raceEnabled {
		t.Skip("runs in the full pass: pack and verify are sequential around the build, and inflating the site is slow under -race")
	}
	manifest := smallStudy(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.zip")
	pack(t, manifest, good, false)
	if err := verify(good, ""); err != nil {
		t.Fatalf("verify of a fresh pack: %v", err)
	}
	bad := filepath.Join(dir, "bad.zip")
	for _, entry := range []string{"study/data/results.csv", "site/index.html", "study/study.toml"} {
		rewriteZip(t, good, bad, entry, flipByte)
		err := verify(bad, "")
		if got := mismatchFile(t, err); got != entry {
			t.Errorf("one byte of %s changed: verify names %s (%v)", entry, got, err)
		}
	}
	// Damage: one byte of an entry's compressed data in the zip file
	// itself (the CRC or the inflater fails).
	raw, _ := os.ReadFile(good)
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name != "study/data/results.csv" {
			continue
		}
		off, err := f.DataOffset()
		if err != nil {
			t.Fatal(err)
		}
		damaged := append([]byte(nil), raw...)
		damaged[off+int64(f.CompressedSize64)/2] ^= 0xff
		os.WriteFile(bad, damaged, 0o644)
		if got := mismatchFile(t, verify(bad, "")); got != f.Name {
			t.Errorf("damaged compressed data of %s: verify names %s", f.Name, got)
		}
	}
	// An input changed and its hash updated in the crate: the hashes
	// agree, the rebuilt site does not.
	_, data := zipEntries(t, good)
	csv := data["study/data/results.csv"]
	lines := strings.SplitAfter(string(csv), "\n")
	// change one digit of the last value of the second line
	l := []byte(lines[1])
	for i := len(l) - 1; i >= 0; i-- {
		if l[i] >= '1' && l[i] <= '8' {
			l[i]++
			break
		}
	}
	lines[1] = string(l)
	changed := []byte(strings.Join(lines, ""))
	oldSum, newSum := sha256.Sum256(csv), sha256.Sum256(changed)
	rewriteZip(t, good, bad, "study/data/results.csv", func([]byte) []byte { return changed })
	both := filepath.Join(dir, "both.zip")
	rewriteZip(t, bad, both, MetadataName, func(b []byte) []byte {
		return bytes.Replace(b, []byte(hex.EncodeToString(oldSum[:])), []byte(hex.EncodeToString(newSum[:])), 1)
	})
	err = verify(both, "")
	if got := mismatchFile(t, err); !strings.HasPrefix(got, SiteDir) || !strings.Contains(err.Error(), "differs") {
		t.Errorf("an input changed with its hash: verify says %v", err)
	}
	// A file added to the zip that the crate does not list.
	names, all := zipEntries(t, good)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	all["study/extra.csv"] = []byte("a,b\n")
	for _, n := range append(names, "study/extra.csv") {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Store})
		w.Write(all[n])
	}
	zw.Close()
	os.WriteFile(bad, buf.Bytes(), 0o644)
	if got := mismatchFile(t, verify(bad, "")); got != "study/extra.csv" {
		t.Errorf("a file added to the zip: verify names %s", got)
	}
}

// TestPackRefusesOutputInsideStudy: -o inside the study directory is
// refused, and nothing is written.
func TestPackRefusesOutputInsideStudy(t *testing.T) {
	manifest := smallStudy(t)
	for _, out := range []string{filepath.Join(filepath.Dir(manifest), "study.zip"), filepath.Join(filepath.Dir(manifest), "data", "x.zip")} {
		_, err := Pack(context.Background(), PackOptions{Build: buildOpts(manifest), Out: out})
		if err == nil || !strings.Contains(err.Error(), "inside the study directory") {
			t.Errorf("-o %s: %v", out, err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("-o %s: written though refused", out)
		}
	}
}

// TestPackExcludeInputs: the inputs are left out with their hashes;
// verify then names the inputs it needs, passes when given them, and
// names a supplied input whose bytes differ.
func TestPackExcludeInputs(t *testing.T) {
	if raceEnabled {
		t.Skip("runs in the full pass: pack and verify are sequential around the build, and inflating the site is slow under -race")
	}
	manifest := smallStudy(t)
	dir := t.TempDir()
	z := filepath.Join(dir, "lean.zip")
	pack(t, manifest, z, true)
	_, data := zipEntries(t, z)
	if _, ok := data["study/data/results.csv"]; ok {
		t.Fatal("--exclude-inputs: the results are in the zip")
	}
	for _, keep := range []string{"study/study.toml", "study/pages/findings.md", "site/index.html"} {
		if _, ok := data[keep]; !ok {
			t.Errorf("--exclude-inputs left out %s", keep)
		}
	}
	c, err := parseCrate(data[MetadataName])
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(filepath.Join(filepath.Dir(manifest), "data", "results.csv"))
	h := sha256.Sum256(orig)
	if e := c.Files["study/data/results.csv"]; !e.Excluded || e.SHA256 != hex.EncodeToString(h[:]) {
		t.Errorf("crate entry of the left-out input: %+v", e)
	}
	err = verify(z, "")
	if err == nil || !strings.Contains(err.Error(), "data/results.csv (sha256 "+hex.EncodeToString(h[:])) ||
		!strings.Contains(err.Error(), "packed without 1 input; verify needs it (pass --inputs DIR, a directory holding it at this path)") {
		t.Errorf("verify without the inputs: %v", err)
	}
	if err := verify(z, filepath.Dir(manifest)); err != nil {
		t.Errorf("verify --inputs with the study's own inputs: %v", err)
	}
	other := t.TempDir()
	os.MkdirAll(filepath.Join(other, "data"), 0o755)
	os.WriteFile(filepath.Join(other, "data", "results.csv"), flipByte(orig), 0o644)
	err = verify(z, other)
	if got := mismatchFile(t, err); got != filepath.Join(other, "data", "results.csv") {
		t.Errorf("a changed supplied input: verify names %s", got)
	}
	// A supplied input longer than the crate says is a mismatch (at most
	// one byte past its size is read), and a missing one says where to
	// put it.
	os.WriteFile(filepath.Join(other, "data", "results.csv"), append(orig, "x,y,1\n"...), 0o644)
	err = verify(z, other)
	if got := mismatchFile(t, err); got != filepath.Join(other, "data", "results.csv") {
		t.Errorf("a longer supplied input: verify names %s", got)
	}
	err = verify(z, t.TempDir())
	if want := "(the archive left this input out; put it there)"; err == nil || !strings.Contains(err.Error(), "data/results.csv") || !strings.Contains(err.Error(), want) {
		t.Errorf("verify --inputs without the input: %v, want the path and %q", err, want)
	}
}

// TestPackNeedsCrateMetadata: a manifest without a license (RO-Crate
// requires one) is refused, naming the key.
func TestPackNeedsCrateMetadata(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	if err := report.Init(dir); err != nil {
		t.Fatal(err)
	}
	_, err := Pack(context.Background(), PackOptions{Build: buildOpts(filepath.Join(dir, "study.toml")), Out: dir + ".zip"})
	if err == nil || !strings.Contains(err.Error(), "study.toml: pack needs license") {
		t.Errorf("no license: %v", err)
	}
	// It is checked before the build (issue 31: it came after a full
	// build): a results file the build would refuse is never read.
	if err := os.WriteFile(filepath.Join(dir, "data", "results.csv"), []byte("dataset,method,metric,value\nd,A,m,NaN\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Pack(context.Background(), PackOptions{Build: buildOpts(filepath.Join(dir, "study.toml")), Out: dir + ".zip"})
	if err == nil || !strings.Contains(err.Error(), "study.toml: pack needs license") {
		t.Errorf("no license and a bad input: %v, want the license named first", err)
	}
}

// TestVerifyRefusesEscapingPaths: a metadata file edited to list an
// input (left out, to be taken from --inputs) at a path leaving the
// archive is refused before anything is read or written.
func TestVerifyRefusesEscapingPaths(t *testing.T) {
	manifest := smallStudy(t)
	dir := t.TempDir()
	lean := filepath.Join(dir, "lean.zip")
	pack(t, manifest, lean, true)
	bad := filepath.Join(dir, "bad.zip")
	rewriteZip(t, lean, bad, MetadataName, func(b []byte) []byte {
		return bytes.ReplaceAll(b, []byte(`"study/data/results.csv"`), []byte(`"study/../../escaped.csv"`))
	})
	err := verify(bad, filepath.Dir(manifest))
	if err == nil || !strings.Contains(err.Error(), `"study/../../escaped.csv": not a path inside the archive`) {
		t.Errorf("verify of a crate listing study/../../escaped.csv: %v", err)
	}
	if _, err := os.Stat(filepath.Join(os.TempDir(), "escaped.csv")); err == nil {
		t.Error("a file was written outside the unpacking directory")
	}
}

// TestCompareSites: the first differing file in path order is named,
// whether it differs, is missing from the rebuild or is new in it, and a
// different evalbook version is said.
// entriesOf is the crate's record (sha256, size) of each file.
func entriesOf(files map[string][]byte) map[string]FileEntry {
	out := map[string]FileEntry{}
	for n, b := range files {
		h := sha256.Sum256(b)
		out[n] = FileEntry{ID: SiteDir + n, SHA256: hex.EncodeToString(h[:]), Size: int64(len(b))}
	}
	return out
}

func TestCompareSites(t *testing.T) {
	a := map[string][]byte{"a.html": []byte("x"), "b.json": []byte("1"), "c.css": []byte("c")}
	cases := []struct {
		rebuilt map[string][]byte
		file    string
		msg     string
	}{
		{map[string][]byte{"a.html": []byte("x"), "b.json": []byte("2"), "c.css": []byte("d")}, "site/b.json", "differs from the archived one (first of 2"},
		{map[string][]byte{"b.json": []byte("1"), "c.css": []byte("c")}, "site/a.html", "the rebuild does not write it"},
		{map[string][]byte{"a.html": []byte("x"), "b.json": []byte("1"), "c.css": []byte("c"), "0.txt": nil}, "site/0.txt", "the archive does not hold it"},
	}
	for _, c := range cases {
		err := compareSites(entriesOf(a), c.rebuilt, "v1", "v1")
		if got := mismatchFile(t, err); got != c.file || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("got %v, want %s: …%s", err, c.file, c.msg)
		}
	}
	err := compareSites(entriesOf(a), cases[0].rebuilt, "v1", "v2")
	if err == nil || !strings.Contains(err.Error(), "built by evalbook v1, this is evalbook v2") {
		t.Errorf("versions: %v", err)
	}
	if err := compareSites(entriesOf(a), a, "v1", "v2"); err != nil {
		t.Errorf("identical sites: %v", err)
	}
}

// TestPackRefusesAnInputChangedSinceTheBuild: pack builds the site, then
// copies the files it read into the zip. A file edited in between (same
// name, other bytes) must not go into the archive beside a site built
// from its old bytes: pack fails naming it, for an input and for the
// manifest. Planting the old read (os.ReadFile, no check) makes the zip
// hold the edited file and this test fail.
func TestPackRefusesAnInputChangedSinceTheBuild(t *testing.T) {
	for _, rel := range []string{filepath.Join("data", "results.csv"), "study.toml"} {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			manifest := smallStudy(t)
			a, err := report.BuildForArchive(context.Background(), buildOpts(manifest))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(filepath.Dir(manifest), rel)
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, append(orig, []byte("\n# edited after the build\n")...), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err = packBytes(a, buildOpts(manifest), false)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "changed since the build read it") {
				t.Fatalf("pack of a study whose %s changed after its build: %v", rel, err)
			}
			// Unchanged again, the same Archivable packs.
			if err := os.WriteFile(path, orig, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, _, err := packBytes(a, buildOpts(manifest), false); err != nil {
				t.Fatalf("pack with the file restored: %v", err)
			}
		})
	}
}
