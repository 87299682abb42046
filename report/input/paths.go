package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Match is one file a path pattern matched, with the values its
// {dataset} and {method} placeholders took.
type Match struct {
	Path            string
	Dataset, Method string
}

// AbsPath is a manifest path (or path pattern) made absolute against the
// study directory dir.
func AbsPath(dir, path string) string {
	p := filepath.FromSlash(path)
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p
}

// CheckFile refuses what a build must not read: anything but a regular
// file (a FIFO would block, a device never end), a file on a kernel
// pseudo-filesystem (/proc, /sys: a read may never return), and a file outside the
// study directory unless the manifest says allow_outside = true (a page
// source of ../../etc/passwd would publish it). Symbolic links are
// followed, and where they lead is what is checked. dir is the study
// directory, shown the path as messages name it, manifest the manifest's
// file name.
func CheckFile(dir, path, shown string, allowOutside bool, manifest string) error {
	return (*Resolver)(nil).CheckFile(dir, path, shown, allowOutside, manifest)
}

// CheckFile is CheckFile, resolving links with r.
func (r *Resolver) CheckFile(dir, path, shown string, allowOutside bool, manifest string) error {
	st, err := os.Stat(path)
	if err != nil {
		if os.IsNotExist(err) {
			if !allowOutside && !lexicallyInside(dir, path) {
				// outside as written: the same message as for a file
				// that exists, which tells nothing of what is there
				return outsideError(dir, path, manifest)
			}
			return fmt.Errorf("%s: no such file", shown)
		}
		return fmt.Errorf("%s: %v", shown, errors.Unwrap(err))
	}
	if !st.Mode().IsRegular() {
		what := "not a regular file"
		switch {
		case st.IsDir():
			what = "a directory, not a file"
		case st.Mode()&os.ModeNamedPipe != 0:
			what = "a named pipe (FIFO), not a regular file"
		case st.Mode()&os.ModeDevice != 0:
			what = "a device, not a regular file"
		case st.Mode()&os.ModeSocket != 0:
			what = "a socket, not a regular file"
		}
		return fmt.Errorf("%s: %s; evalbook reads only regular files", shown, what)
	}
	if err := checkStored(path, shown); err != nil {
		return err
	}
	if allowOutside {
		return nil
	}
	if !r.inside(dir, path) {
		return outsideError(dir, path, manifest)
	}
	return nil
}

// outsideError is CheckFile's error of a file outside the study.
func outsideError(dir, path, manifest string) error {
	return fmt.Errorf("%s: outside the study directory; evalbook reads only files under the directory of %s unless the manifest says allow_outside = true (or --allow-outside)", shownOutside(dir, path), manifest)
}

// lexicallyInside reports whether path, as written (no link resolved),
// lies under dir.
func lexicallyInside(dir, path string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	return err == nil && below(rel)
}

// checkStored refuses a file on a kernel pseudo-filesystem (/proc,
// /sys, debugfs, …), whatever allow_outside says: such a file passes for
// a regular file, but reading it may never return (/proc/kmsg) or give
// different bytes each time.
func checkStored(path, shown string) error {
	if fs := pseudoFS(path); fs != "" {
		return fmt.Errorf("%s: on the kernel's %s pseudo-filesystem, not a stored file; evalbook never reads /proc, /sys or other pseudo-filesystems, even with allow_outside", shown, fs)
	}
	return nil
}

// shownOutside names a file outside the study as the manifest would
// (a relative path), never as an absolute host path.
func shownOutside(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(path)
}

// inside reports whether path, with symbolic links resolved, lies under
// dir (also resolved).
func (r *Resolver) inside(dir, path string) bool {
	rd, err := r.Dir(dir)
	if err != nil {
		return false
	}
	rp, err := r.Path(path)
	if err != nil {
		return false
	}
	rd, _ = filepath.Abs(rd)
	rp, _ = filepath.Abs(rp)
	rel, err := filepath.Rel(rd, rp)
	return err == nil && below(rel) && rel != "."
}

// below reports whether a relative path from filepath.Rel stays under
// its base (or is the base itself, ".").
func below(rel string) bool {
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Resolver resolves paths as its Resolve function does
// (filepath.EvalSymlinks when nil), remembering each directory it
// resolved: a check of many paths at once (a build's pattern matches,
// its output check) meets a few directories, and resolving every path
// from the root took ten lstat calls a file. One lives as long as one
// such check: a link changed after it resolved a directory is seen by
// the next (and by the check of each file just before it is opened,
// which resolves anew). A nil *Resolver remembers nothing. Safe for
// concurrent use.
type Resolver struct {
	// Resolve resolves a whole path: filepath.EvalSymlinks when nil;
	// report's output check gives one that follows links to missing
	// places.
	Resolve func(string) (string, error)
	mu      sync.Mutex
	dirs    map[string]resolved
}

type resolved struct {
	path string
	err  error
}

func (r *Resolver) whole(path string) (string, error) {
	if r == nil || r.Resolve == nil {
		return filepath.EvalSymlinks(path)
	}
	return r.Resolve(path)
}

// Path resolves path. A clean absolute path whose last element exists
// and is not a link resolves as its directory (remembered) joined with
// that element; any other path (relative, with "..", a trailing slash,
// a link, missing) is resolved whole.
func (r *Resolver) Path(path string) (string, error) {
	dir, base := filepath.Split(path)
	if r == nil || !filepath.IsAbs(path) || filepath.Clean(path) != path || base == "" {
		return r.whole(path)
	}
	if st, err := os.Lstat(path); err != nil || st.Mode()&os.ModeSymlink != 0 {
		return r.whole(path)
	}
	rd, err := r.Dir(dir)
	if err != nil {
		return r.whole(path)
	}
	return filepath.Join(rd, base), nil
}

// Dir resolves a directory, once.
func (r *Resolver) Dir(dir string) (string, error) {
	if r == nil {
		return r.whole(dir)
	}
	dir = filepath.Clean(dir)
	r.mu.Lock()
	got, ok := r.dirs[dir]
	r.mu.Unlock()
	if ok {
		return got.path, got.err
	}
	got.path, got.err = r.whole(dir)
	r.mu.Lock()
	if r.dirs == nil {
		r.dirs = map[string]resolved{}
	}
	r.dirs[dir] = got
	r.mu.Unlock()
	return got.path, got.err
}

// ResolvePath returns p as an absolute path with every symbolic link of
// its existing part followed, a link to a missing place included; the
// part that does not exist yet is appended as it is.
func ResolvePath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	for hops := 0; ; hops++ {
		next, err := resolveOnce(abs)
		if err != nil || next == abs {
			return next, err
		}
		if hops == 40 {
			return "", fmt.Errorf("%s: too many levels of symbolic links", p)
		}
		abs = next
	}
}

// resolveOnce resolves the existing part of abs with EvalSymlinks; when
// that part ends in a link to a missing place, it returns the link's
// destination joined with the rest, for the caller to resolve again.
func resolveOnce(abs string) (string, error) {
	cur, rest := abs, ""
	for {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if st, err := os.Lstat(cur); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			dest, err := os.Readlink(cur)
			if err != nil {
				return "", err
			}
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(filepath.Dir(cur), dest)
			}
			return filepath.Join(dest, rest), nil
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// ReadText reads a text source (a page or the bibliography) whole: it
// must be UTF-8, since a page in another encoding (Latin-1) would reach
// the site as bytes no browser shows as written. shown is the path as
// messages name it. The caller checks the file first (CheckFile).
//
// A file above max bytes (max > 0) is refused by its size before it is
// read: what evalbook renders from it costs more than the file, so a
// page of hundreds of megabytes must not be read to learn that.
func ReadText(path, shown string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", shown, errors.Unwrap(err))
	}
	defer f.Close()
	r := io.Reader(f)
	if max > 0 {
		if st, err := f.Stat(); err == nil && st.Size() > max {
			return nil, fmt.Errorf("%s: %d bytes, above the limit of %d", shown, st.Size(), max)
		}
		r = io.LimitReader(f, max+1) // a file that grew meanwhile
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", shown, err)
	}
	if max > 0 && int64(len(b)) > max {
		return nil, fmt.Errorf("%s: more than %d bytes, above the limit", shown, max)
	}
	if !utf8.Valid(b) {
		at := 0
		for at < len(b) {
			r, size := utf8.DecodeRune(b[at:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			at += size
		}
		return nil, Errorf(shown, bytes.Count(b[:at], []byte("\n"))+1, "invalid UTF-8 (byte 0x%02X); pages and the bibliography must be UTF-8", b[at])
	}
	return b, nil
}

// MatchPattern resolves a manifest path — relative to dir, with globs and
// {dataset}/{method} placeholders — to its files, sorted, and the values
// the placeholders take. It fails when nothing matches.
func MatchPattern(dir, path string) ([]Match, error) {
	pattern := filepath.FromSlash(path)
	if !filepath.IsAbs(pattern) {
		pattern = filepath.Join(dir, pattern)
	}
	glob := strings.NewReplacer("{dataset}", "*", "{method}", "*").Replace(pattern)
	paths, err := filepath.Glob(glob)
	if err != nil {
		return nil, fmt.Errorf("bad pattern %q: %v", path, err)
	}
	sort.Strings(paths)
	re, names := placeholderRegexp(filepath.ToSlash(pattern))
	out := make([]Match, 0, len(paths))
	for _, p := range paths {
		m := Match{Path: p}
		sub := re.FindStringSubmatch(filepath.ToSlash(p))
		if sub == nil {
			continue
		}
		for i, n := range names {
			switch n {
			case "dataset":
				m.Dataset = sub[i+1]
			case "method":
				m.Method = sub[i+1]
			}
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no file matches %q", path)
	}
	return out, nil
}

// placeholderRegexp turns a path pattern into a regexp: {dataset} and
// {method} become groups matching non-greedily, left to right; * and ?
// match within one path element, as in the glob.
func placeholderRegexp(pattern string) (*regexp.Regexp, []string) {
	var b strings.Builder
	var names []string
	b.WriteString("^")
	for len(pattern) > 0 {
		switch {
		case strings.HasPrefix(pattern, "{dataset}"), strings.HasPrefix(pattern, "{method}"):
			j := strings.IndexByte(pattern, '}')
			names = append(names, pattern[1:j])
			b.WriteString(`([^/]+?)`)
			pattern = pattern[j+1:]
			continue
		case pattern[0] == '*':
			b.WriteString(`[^/]*`)
		case pattern[0] == '?':
			b.WriteString(`[^/]`)
		default:
			b.WriteString(regexp.QuoteMeta(pattern[:1]))
		}
		pattern = pattern[1:]
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String()), names
}
