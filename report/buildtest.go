package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Archive is a txtar archive (golang.org/x/tools/txtar's format): a
// comment, then files introduced by "-- name --" lines. Tests write whole
// studies as one readable string (after Hugo's integration tests), and
// `evalbook init` scaffolds its example study from one.
type Archive struct {
	Comment string
	Files   []ArchiveFile
}

// ArchiveFile is one file of an archive.
type ArchiveFile struct {
	Name string
	Data []byte
}

// ParseArchive parses txtar text.
func ParseArchive(data []byte) *Archive {
	a := &Archive{}
	var cur *ArchiveFile
	var buf bytes.Buffer
	flush := func() {
		if cur != nil {
			cur.Data = append([]byte(nil), buf.Bytes()...)
			a.Files = append(a.Files, *cur)
		} else {
			a.Comment = buf.String()
		}
		buf.Reset()
	}
	for _, line := range strings.SplitAfter(string(data), "\n") {
		trimmed := strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			flush()
			cur = &ArchiveFile{Name: strings.TrimSpace(trimmed[3 : len(trimmed)-3])}
			continue
		}
		buf.WriteString(line)
	}
	flush()
	return a
}

// WriteDir writes the archive's files under dir, refusing names that
// would leave it.
func (a *Archive) WriteDir(dir string) error {
	for _, f := range a.Files {
		clean := filepath.Clean(filepath.FromSlash(f.Name))
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return fmt.Errorf("archive: file %q is outside the directory", f.Name)
		}
		p := filepath.Join(dir, clean)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
