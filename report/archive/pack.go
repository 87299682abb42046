package archive

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/evalbook/evalbook/report"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
)

// zipTime is every entry's modification time: a fixed date, so two packs
// of one study are byte-identical (the zip format cannot say 1970).
var zipTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// PackOptions configure Pack.
type PackOptions struct {
	// Build is how the study is built (manifest, version, command, jobs,
	// cache, allow-outside, …); its Out is ignored: nothing is written
	// but the zip.
	Build report.Options
	// Out is the zip to write; "" means <study dir>.zip beside the study
	// directory.
	Out string
	// ExcludeInputs leaves the input tables and interaction logs out of
	// the zip, keeping their hashes in the crate (the manifest, pages and
	// bibliography stay).
	ExcludeInputs bool
	// Include adds the raw files and scripts that produced the inputs:
	// globs or directories relative to the study directory (--include).
	Include []string
}

// PackSummary says what Pack wrote.
type PackSummary struct {
	Out      string
	Files    int // study files listed
	Excluded int // of which left out
	Site     int // site files
	Bytes    int64
}

// Pack builds the study in memory and writes its archive to o.Out
// atomically (a temporary file renamed into place).
func Pack(ctx context.Context, o PackOptions) (*PackSummary, error) {
	studyDir, err := studyDirOf(o.Build.Manifest)
	if err != nil {
		return nil, err
	}
	if o.Out == "" {
		o.Out = filepath.Clean(studyDir) + ".zip"
	}
	out, err := filepath.Abs(o.Out)
	if err != nil {
		return nil, fmt.Errorf("output %s: %v", o.Out, err)
	}
	if report.Within(studyDir, out) {
		return nil, fmt.Errorf("output %s: refusing to write the archive inside the study directory %s (the next pack would archive it); write it beside the study, such as %s",
			o.Out, studyDir, filepath.Clean(studyDir)+".zip")
	}
	if err := replaceablePack(out); err != nil {
		return nil, fmt.Errorf("output %s: %v", o.Out, err)
	}
	// What RO-Crate requires of the manifest is checked before the build,
	// which can take minutes; a manifest that does not load is left to
	// the build, which reports it as build and validate do.
	manifestPath := o.Build.Manifest
	if manifestPath == "" {
		manifestPath = "study.toml"
	}
	if s, err := manifest.LoadStudy(manifestPath, kinds.Kinds()); err == nil {
		if err := checkMetadata(s, studyMetadata(s)); err != nil {
			return nil, err
		}
	}
	o.Build.Out = ""
	a, err := report.BuildForArchive(ctx, o.Build)
	if err != nil {
		return nil, err
	}
	if err := a.Include(o.Include); err != nil {
		return nil, err
	}
	data, sum, err := packBytes(a, o.Build, o.ExcludeInputs)
	if err != nil {
		return nil, err
	}
	if err := replaceablePack(out); err != nil { // again: the build took a while
		return nil, fmt.Errorf("output %s: %v", o.Out, err)
	}
	if err := writeFileAtomically(out, data); err != nil {
		return nil, fmt.Errorf("output %s: %v", o.Out, err)
	}
	sum.Out, sum.Bytes = out, int64(len(data))
	return sum, nil
}

// replaceablePack refuses an output pack would lose: a directory, a
// symbolic link (its rename would replace the link), and an existing
// file that is not an archive evalbook packed, such as a manuscript,
// another study's manifest or an RO-Crate another tool made, given as -o
// by mistake. An archive evalbook packed is a zip whose RO-Crate
// metadata names evalbook as the software of its build and whose every
// entry is one pack writes: the metadata, and files under study/ and
// site/ that the metadata lists. A missing file is fine.
func replaceablePack(out string) error {
	st, err := os.Lstat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	switch {
	case st.IsDir():
		return fmt.Errorf("is a directory; name the zip file to write")
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("is a symbolic link; name the file itself (pack replaces the file it writes)")
	case !st.Mode().IsRegular():
		return fmt.Errorf("is not a regular file")
	}
	why := packedByEvalbook(out)
	if why == "" {
		return nil
	}
	return fmt.Errorf("exists and is not an archive evalbook packed (%s), so pack will not replace it; choose another -o or move the file", why)
}

// packedByEvalbook says why the zip at path is not an archive evalbook
// packed, or "" when it is one.
func packedByEvalbook(path string) string {
	z, err := report.OpenArchive(path)
	if err != nil {
		return "not a zip archive"
	}
	defer z.Close()
	var mf *zip.File
	for _, f := range z.File {
		if f.Name == MetadataName {
			mf = f
		}
	}
	if mf == nil {
		return "it has no " + MetadataName
	}
	if meta, err := readMember(mf, 64<<20); err != nil || !namesEvalbook(meta) {
		return fmt.Sprintf("its %s does not name evalbook as the software that made it", MetadataName)
	}
	members, _, err := readCrate(path, z.Reader)
	if err != nil {
		var me *MismatchError
		if errors.As(err, &me) {
			return fmt.Sprintf("it holds %s, which its %s does not list", me.File, MetadataName)
		}
		return strings.TrimPrefix(err.Error(), path+": ")
	}
	for _, name := range sortedMemberNames(members) {
		if name != MetadataName && !strings.HasPrefix(name, StudyDir) && !strings.HasPrefix(name, SiteDir) {
			return fmt.Sprintf("it holds %s, which pack does not write", name)
		}
	}
	return ""
}

// studyDirOf returns the absolute study directory of a manifest path (a
// directory stands for its study.toml).
func studyDirOf(manifest string) (string, error) {
	if manifest == "" {
		manifest = "study.toml"
	}
	abs, err := filepath.Abs(manifest)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(abs); err == nil && st.IsDir() {
		return abs, nil
	}
	return filepath.Dir(abs), nil
}

// packBytes writes the zip in memory: the crate first, then the study's
// files and the site's, each set sorted by path.
func packBytes(a *report.Archivable, o report.Options, exclude bool) ([]byte, *PackSummary, error) {
	sum := &PackSummary{}
	members, entries, manifest, err := studyMembers(a, exclude, sum)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, 0, len(a.Site))
	for n := range a.Site {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		h := sha256.Sum256(a.Site[n])
		entries = append(entries, FileEntry{ID: SiteDir + n, SHA256: hex.EncodeToString(h[:]), Size: int64(len(a.Site[n]))})
		members = append(members, member{SiteDir + n, a.Site[n]})
	}
	sum.Site = len(names)
	s := a.Study
	meta := studyMetadata(s)
	meta.Version, meta.Command, meta.Manifest = o.Version, o.Command, manifest
	if err := checkMetadata(s, meta); err != nil {
		return nil, nil, err
	}
	crate, err := crateJSON(meta, entries)
	if err != nil {
		return nil, nil, err
	}
	zipped, err := zipMembers(crate, members)
	return zipped, sum, err
}

// member is one file of the zip.
type member struct {
	name string
	data []byte
}

// studyMembers reads the files the build read (they must lie inside the
// study directory) into zip members under study/, with their entries;
// with exclude, inputs keep their entry (hash and size) but are left out.
// It returns the manifest's name in the zip.
func studyMembers(a *report.Archivable, exclude bool, sum *PackSummary) ([]member, []FileEntry, string, error) {
	dir, err := filepath.Abs(a.Study.Dir)
	if err != nil {
		return nil, nil, "", err
	}
	absManifest, _ := filepath.Abs(a.Study.File)
	var members []member
	var entries []FileEntry
	manifest := ""
	for _, p := range a.Files {
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, nil, "", fmt.Errorf("%s: lies outside the study directory %s; an archive holds only the study's own files (copy it into the study)", p, dir)
		}
		name := StudyDir + filepath.ToSlash(rel)
		data, err := a.Read(p)
		if err != nil {
			return nil, nil, "", err
		}
		h := sha256.Sum256(data)
		e := FileEntry{ID: name, SHA256: hex.EncodeToString(h[:]), Size: int64(len(data))}
		if exclude && !a.Documents[p] {
			e.Excluded = true
			sum.Excluded++
		} else {
			members = append(members, member{name, data})
		}
		if absManifest == p {
			manifest = name
		}
		entries = append(entries, e)
		sum.Files++
	}
	if manifest == "" {
		return nil, nil, "", fmt.Errorf("internal error: the manifest %s is not among the files the build read", a.Study.File)
	}
	return members, entries, manifest, nil
}

// zipMembers writes the metadata first, then the members sorted by name,
// with a fixed date and mode, so equal contents give equal bytes.
func zipMembers(crate []byte, members []member) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name string, data []byte) error {
		fh := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: zipTime}
		fh.SetMode(0o644)
		w, err := zw.CreateHeader(fh)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	if err := add(MetadataName, crate); err != nil {
		return nil, err
	}
	sort.Slice(members, func(i, j int) bool { return members[i].name < members[j].name })
	for _, m := range members {
		if err := add(m.name, m.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// studyMetadata is the crate's description of the study, from its
// manifest (the abstract, else the subtitle, describes it).
func studyMetadata(s *manifest.Study) Metadata {
	m := Metadata{Name: s.Title, Description: s.Abstract, Date: s.Date, License: s.License, DOI: s.DOI,
		Authors: s.Authors, Links: s.Links}
	if m.Description == "" {
		m.Description = s.Subtitle
	}
	return m
}

// checkMetadata refuses a study whose manifest lacks what RO-Crate 1.1
// requires of the root dataset (name, description, datePublished,
// license), naming the manifest key to add.
func checkMetadata(s *manifest.Study, m Metadata) error {
	var missing []string
	if strings.TrimSpace(m.Name) == "" {
		missing = append(missing, "title")
	}
	if strings.TrimSpace(m.Description) == "" {
		missing = append(missing, "abstract")
	}
	if strings.TrimSpace(m.Date) == "" {
		missing = append(missing, "date")
	}
	if strings.TrimSpace(m.License) == "" {
		missing = append(missing, "license")
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: pack needs %s in the manifest (RO-Crate 1.1 requires the archive's name, description, date and license)",
			filepath.Base(s.File), strings.Join(missing, ", "))
	}
	return nil
}

// writeFileAtomically writes data to a temporary file beside path and
// renames it into place: a failed pack leaves any previous zip as it was.
func writeFileAtomically(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := io.Copy(f, bytes.NewReader(data)); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
