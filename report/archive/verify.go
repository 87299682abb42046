package archive

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/evalbook/evalbook/report"
)

// VerifyOptions configure Verify.
type VerifyOptions struct {
	// Zip is the archive to check.
	Zip string
	// Inputs is a directory holding the inputs a pack left out
	// (--exclude-inputs), at their paths relative to the study; "" when
	// none are supplied.
	Inputs string
	// Build carries the tool's version, the command recorded in the
	// provenance and the workers; the manifest and output are set by
	// Verify, and the build never uses a cache.
	Build report.Options
}

// VerifySummary says what Verify checked.
type VerifySummary struct {
	Files int // study files checked and rebuilt from
	Site  int // site files compared
}

// MismatchError is a file whose bytes are not what the archive says:
// a hash or size that does not match the crate, or a rebuilt site file
// that differs from the archived one.
type MismatchError struct {
	File string // path inside the zip
	Msg  string
}

// Error is "file: what does not match".
func (e *MismatchError) Error() string { return e.File + ": " + e.Msg }

// Verify checks every file of the archive against the crate's sha256 and
// size, unpacks the study into a temporary directory, rebuilds it without
// any cache and compares the rebuilt site with the archived one byte for
// byte. The first problem is returned, naming its file.
func Verify(ctx context.Context, o VerifyOptions) (*VerifySummary, error) {
	zr, err := report.OpenArchive(o.Zip)
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "read" {
		return nil, fmt.Errorf("%s: %v; verify reads the zip file pack wrote", o.Zip, pe.Err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: cannot be read as a zip archive: %v", o.Zip, err)
	}
	defer zr.Close()
	members, c, err := readCrate(o.Zip, zr.Reader)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "evalbook-verify-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	// The site's files are checked against the crate as they stream
	// through their hash; the rebuilt site is then compared with the
	// crate's (checked) sha256 and size, so no entry is ever held whole.
	site := map[string]FileEntry{}
	var needed []string
	sum := &VerifySummary{}
	for _, id := range sortedEntryIDs(c.Files) {
		e := c.Files[id]
		if e.Excluded && o.Inputs == "" {
			needed = append(needed, fmt.Sprintf("%s (sha256 %s, %d bytes)", strings.TrimPrefix(id, StudyDir), e.SHA256, e.Size))
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch {
		case strings.HasPrefix(id, StudyDir):
			if err := unpackUnder(tmp, id, e, members, o.Inputs); err != nil {
				return nil, err
			}
			sum.Files++
		case strings.HasPrefix(id, SiteDir):
			if err := checkEntry(id, e, members, o.Inputs, io.Discard); err != nil {
				return nil, err
			}
			site[strings.TrimPrefix(id, SiteDir)] = e
		default:
			return nil, &MismatchError{File: id, Msg: "is neither under study/ nor under site/"}
		}
	}
	if len(needed) > 0 {
		inputs := "inputs; verify needs them (pass --inputs DIR, a directory holding them at these paths)"
		if len(needed) == 1 {
			inputs = "input; verify needs it (pass --inputs DIR, a directory holding it at this path)"
		}
		return nil, fmt.Errorf("%s: the archive was packed without %d %s:\n  %s", o.Zip, len(needed), inputs, strings.Join(needed, "\n  "))
	}
	b := o.Build
	b.Manifest = filepath.Join(tmp, filepath.FromSlash(c.Manifest))
	b.Out, b.NoCache, b.Cache, b.CacheDir = "", true, nil, ""
	if b.Command == "" {
		b.Command = c.Command
	}
	rebuilt, err := report.BuildForArchive(ctx, b)
	if err != nil {
		return nil, fmt.Errorf("rebuilding the archived study: %w", err)
	}
	if err := compareSites(site, rebuilt.Site, c.Version, b.Version); err != nil {
		return nil, err
	}
	sum.Site = len(site)
	return sum, nil
}

// readCrate indexes a zip's entries (refusing escaping or repeated
// names), reads its RO-Crate metadata, and checks that every entry is
// listed there and none listed as left out is present.
func readCrate(zipPath string, zr *zip.Reader) (map[string]*zip.File, *crate, error) {
	members := map[string]*zip.File{}
	for _, f := range zr.File {
		if err := checkName(f.Name); err != nil {
			return nil, nil, fmt.Errorf("%s: %v", zipPath, err)
		}
		if _, dup := members[f.Name]; dup {
			return nil, nil, fmt.Errorf("%s: entry %s appears twice", zipPath, f.Name)
		}
		members[f.Name] = f
	}
	mf := members[MetadataName]
	if mf == nil {
		return nil, nil, fmt.Errorf("%s: no %s: not an archive written by evalbook pack", zipPath, MetadataName)
	}
	meta, err := readMember(mf, 64<<20)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %s: %v", zipPath, MetadataName, err)
	}
	c, err := parseCrate(meta)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", zipPath, err)
	}
	for _, name := range sortedMemberNames(members) {
		if name == MetadataName || strings.HasSuffix(name, "/") {
			continue
		}
		e, ok := c.Files[name]
		if !ok {
			return nil, nil, &MismatchError{File: name, Msg: fmt.Sprintf("is in the zip but not listed in %s (added after packing?)", MetadataName)}
		}
		if e.Excluded {
			return nil, nil, &MismatchError{File: name, Msg: fmt.Sprintf("is in the zip but %s says it was left out", MetadataName)}
		}
	}
	return members, c, nil
}

// checkEntry streams a listed file, from the zip or (an input packed
// with --exclude-inputs) from the inputs directory, through its sha256
// into dst, reading at most one byte more than the size the crate
// records: an entry longer than that is an error naming it, whatever
// its zip header says, and nothing is ever held in memory whole.
func checkEntry(id string, e FileEntry, members map[string]*zip.File, inputs string, dst io.Writer) error {
	var src io.Reader
	shown := id
	if e.Excluded {
		rel := strings.TrimPrefix(id, StudyDir)
		f, err := openSupplied(inputs, rel)
		if err != nil {
			return err
		}
		defer f.Close()
		src, shown = f, filepath.Join(inputs, filepath.FromSlash(rel))
	} else {
		f := members[id]
		if f == nil {
			return &MismatchError{File: id, Msg: fmt.Sprintf("is listed in %s but missing from the zip", MetadataName)}
		}
		if f.UncompressedSize64 > uint64(e.Size) {
			return &MismatchError{File: id, Msg: fmt.Sprintf("is %d bytes in the zip, larger than the %d bytes %s records", f.UncompressedSize64, e.Size, MetadataName)}
		}
		rc, err := f.Open()
		if err != nil {
			return &MismatchError{File: id, Msg: fmt.Sprintf("damaged: %v", err)}
		}
		defer rc.Close()
		src = rc
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(h, dst), io.LimitReader(src, e.Size+1))
	if err != nil {
		if errors.Is(err, zip.ErrChecksum) {
			return &MismatchError{File: id, Msg: "damaged: the zip's checksum does not match (the entry was changed or damaged)"}
		}
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Op == "write" {
			return fmt.Errorf("unpacking %s: %v", id, err)
		}
		if e.Excluded {
			return fmt.Errorf("--inputs: %s: %v", shown, err)
		}
		return &MismatchError{File: id, Msg: fmt.Sprintf("damaged: %v", err)}
	}
	if n > e.Size {
		return &MismatchError{File: shown, Msg: fmt.Sprintf("is larger than the %d bytes %s records: the file was changed after packing", e.Size, MetadataName)}
	}
	if got := hex.EncodeToString(h.Sum(nil)); n != e.Size || got != e.SHA256 {
		return &MismatchError{File: shown, Msg: fmt.Sprintf("sha256 %s (%d bytes) does not match the archive's record, sha256 %s (%d bytes): the file was changed after packing",
			got, n, e.SHA256, e.Size)}
	}
	return nil
}

// unpackUnder checks an archived study file (checkEntry) while writing
// it under dir.
func unpackUnder(dir, id string, e FileEntry, members map[string]*zip.File, inputs string) error {
	p := filepath.Join(dir, filepath.FromSlash(id))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	if err := checkEntry(id, e, members, inputs, f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// compareSites names the first file (in path order) where the rebuilt
// site differs from the archived one, whose files are known by the
// crate's sha256 and size (checked against the zip's bytes).
func compareSites(archived map[string]FileEntry, rebuilt map[string][]byte, packedWith, running string) error {
	names := map[string]bool{}
	for n := range archived {
		names[n] = true
	}
	for n := range rebuilt {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var differ []string
	for _, n := range sorted {
		a, inA := archived[n]
		r, inR := rebuilt[n]
		if !inA || !inR || !sameBytes(a, r) {
			differ = append(differ, n)
		}
	}
	if len(differ) == 0 {
		return nil
	}
	n := differ[0]
	msg := "the rebuilt file differs from the archived one"
	if _, ok := archived[n]; !ok {
		msg = "the rebuild writes this file, the archive does not hold it"
	} else if _, ok := rebuilt[n]; !ok {
		msg = "the archive holds this file, the rebuild does not write it"
	}
	msg += fmt.Sprintf(" (first of %d differing site files)", len(differ))
	if packedWith != running {
		msg += fmt.Sprintf("; the archive was built by evalbook %s, this is evalbook %s", packedWith, running)
	}
	return &MismatchError{File: SiteDir + n, Msg: msg}
}

// sameBytes reports whether data has the size and sha256 of e.
func sameBytes(e FileEntry, data []byte) bool {
	h := sha256.Sum256(data)
	return int64(len(data)) == e.Size && hex.EncodeToString(h[:]) == e.SHA256
}

// checkName refuses entry names that would escape the unpacking
// directory or are not portable.
func checkName(name string) error {
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, `\`) || strings.Contains(name, "\x00") {
		return fmt.Errorf("entry %q: not a relative slash-separated path", name)
	}
	trimmed := strings.TrimSuffix(name, "/")
	if path.Clean(trimmed) != trimmed {
		return fmt.Errorf("entry %q: not a clean path", name)
	}
	for _, part := range strings.Split(trimmed, "/") {
		if part == ".." || part == "." {
			return fmt.Errorf("entry %q: leaves the archive's directory", name)
		}
	}
	return nil
}

// readMember reads one entry, at most limit bytes (the size the crate
// states), so a damaged header cannot make verify inflate without end;
// the zip's own CRC is checked at the end of the read.
func readMember(f *zip.File, limit int64) ([]byte, error) {
	if f.UncompressedSize64 > uint64(limit) {
		return nil, fmt.Errorf("%d bytes, more than the %d expected", f.UncompressedSize64, limit)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		if errors.Is(err, zip.ErrChecksum) {
			return nil, fmt.Errorf("the zip's checksum does not match (the entry was changed or damaged)")
		}
		return nil, err
	}
	return data, nil
}

// openSupplied opens an input left out of the archive from the
// --inputs directory.
func openSupplied(dir, rel string) (*os.File, error) {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	f, err := report.OpenSupplied(p)
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe) && pe.Op == "open":
		return nil, fmt.Errorf("--inputs: %s: %v (the archive left this input out; put it there)", p, pe.Err)
	case errors.As(err, &pe):
		return nil, fmt.Errorf("--inputs: %s: %v", p, pe.Err)
	case err != nil:
		return nil, fmt.Errorf("--inputs: %s: %v", p, err)
	}
	return f, nil
}

func sortedMemberNames(m map[string]*zip.File) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedEntryIDs(m map[string]FileEntry) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
