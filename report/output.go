package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

// Output safety. A build replaces its output directory as a whole, so
// before anything is written it makes sure that directory is one it may
// replace:
//
//   - every directory evalbook writes carries a marker file, SiteMarker;
//   - an existing output is replaced only when it carries the marker or is
//     an empty directory; a regular file, or a non-empty directory without
//     the marker, is refused;
//   - the output may never be the root, the home directory, the study
//     directory, nor contain (or be an ancestor of) the manifest, a page,
//     the bibliography or any input the build read;
//   - builds of one output are serialised by a lock file next to it, and
//     the leftovers of a build killed during its swap are repaired by the
//     next one;
//   - a symbolic link to a directory keeps pointing to it: the target is
//     swapped, not the link.

// SiteMarker is the name of the file that marks a directory as a site
// written by evalbook, which a later build may replace.
const SiteMarker = ".evalbook-site"

// OutputError is a refused output directory: nothing was written.
type OutputError struct {
	Out string // the output as given
	Msg string
}

// Error is "output <dir>: <why>".
func (e *OutputError) Error() string { return fmt.Sprintf("output %s: %s", e.Out, e.Msg) }

// siteMarker is the marker's content: what wrote the directory, for
// which study. It holds no absolute path, so the site's bytes do not
// depend on where the study lives.
//
// It ends with the list of the files the build wrote (markerFiles): the
// next build replaces the directory only when it holds no other file, so
// a file a user put into the site (a CNAME, a .git of a published copy)
// is never deleted with it.
func siteMarker(s *manifest.Study, files map[string][]byte) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "evalbook site\nstudy: %s\nmanifest: %s\n\n"+
		"This directory was written by `evalbook build`; the next build of the study replaces all of it,\n"+
		"and refuses to while it holds a file not listed here.\n\n%s\n",
		oneLine(s.Title), filepath.Base(s.File), markerFiles)
	for _, name := range analyses.SortedKeys(files) {
		b.WriteString(name)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// markerStudy reads the study a site's marker names: its title and
// manifest name as siteMarker wrote them; ok is false for a marker
// without them (an empty one, `touch`ed onto an older site).
func markerStudy(dir string) (title, manifest string, ok bool) {
	m, err := input.ReadOwn(filepath.Join(dir, SiteMarker))
	if err != nil {
		return "", "", false
	}
	head, _, _ := strings.Cut(string(m), "\n\n")
	var hasTitle, hasManifest bool
	for _, line := range strings.Split(head, "\n") {
		if v, found := strings.CutPrefix(line, "study: "); found {
			title, hasTitle = v, true
		} else if v, found := strings.CutPrefix(line, "manifest: "); found {
			manifest, hasManifest = v, true
		}
	}
	return title, manifest, hasTitle && hasManifest
}

// checkSameStudy refuses to replace a site built from another study: -o
// pointing at another study's site (a slip of ../a/site for ../b/site)
// would replace it without a word. A study is known by the title and
// manifest name its site's marker records (no path: a site's bytes do
// not depend on where the study lives). A site inside the study
// directory is the study's own whatever its marker says (the study was
// retitled); elsewhere a retitled study needs force (--force) once.
func checkSameStudy(out, target string, s *manifest.Study, force bool) error {
	if force || !marked(target) {
		return nil
	}
	for _, d := range locations(s.Dir) {
		if within(d, target) {
			return nil
		}
	}
	title, manifestPath, ok := markerStudy(target)
	if !ok {
		return nil
	}
	newTitle, newManifest := oneLine(s.Title), filepath.Base(s.File)
	if title == newTitle && manifestPath == newManifest {
		return nil
	}
	return &OutputError{Out: out, Msg: fmt.Sprintf("refusing to replace %s: it is the site of another study, %q (%s), and this build is of %q (%s); choose another -o, or pass --force if it is this study's site (a title or manifest renamed) and may be replaced",
		target, title, manifestPath, newTitle, newManifest)}
}

// markerFiles heads the marker's list of the files a build wrote.
const markerFiles = "files:"

// foreignFiles lists what dir holds beyond the files its marker lists
// (and their directories), at most limit of them, a directory once (with
// a trailing /). A marker without a list (an older evalbook's) lists
// nothing: ok is false, and the caller cannot tell.
func foreignFiles(dir string, limit int) (foreign []string, ok bool, err error) {
	m, err := input.ReadOwn(filepath.Join(dir, SiteMarker))
	if err != nil {
		return nil, false, err
	}
	_, list, found := strings.Cut(string(m), "\n"+markerFiles+"\n")
	if !found {
		return nil, false, nil
	}
	known := map[string]bool{SiteMarker: true, retiredBy: true}
	for _, name := range strings.Split(list, "\n") {
		for name != "" && name != "." && !known[name] {
			known[name] = true
			name = path.Dir(name)
		}
	}
	err = input.WalkOwn(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." || known[rel] {
			return nil
		}
		if d.IsDir() {
			foreign = append(foreign, rel+"/")
		} else {
			foreign = append(foreign, rel)
		}
		if len(foreign) >= limit {
			return fs.SkipAll
		}
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
	return foreign, true, err
}

// checkNoForeignFiles refuses to replace a site that holds files its
// last build did not write.
func checkNoForeignFiles(target string) error {
	if !marked(target) {
		return nil
	}
	foreign, ok, err := foreignFiles(target, 5)
	if err != nil || !ok || len(foreign) == 0 {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	return fmt.Errorf("%s holds files evalbook did not write (%s); a build replaces the whole directory, so move them out first (or choose another -o)",
		target, strings.Join(foreign, ", "))
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// studyFiles lists every file the build depends on: the manifest, the
// files it read (inputs, pages, bibliography, logs; provenance has
// recorded pages and bibliography), every declared input and every
// interaction log.
func studyFiles(s *manifest.Study, in *load.Inputs) []string {
	files := append([]string{s.File}, in.All.Files()...)
	in.Mu.Lock()
	for p := range in.Files {
		files = append(files, p)
	}
	in.Mu.Unlock()
	for _, kind := range []string{"results", "units", "characteristics"} {
		files = append(files, in.FilesOf(kind)...)
	}
	for _, p := range s.Pages {
		files = append(files, filepath.Join(s.Dir, p.Source))
	}
	if s.Bibliography != "" {
		files = append(files, filepath.Join(s.Dir, s.Bibliography))
	}
	for _, d := range s.Datasets {
		if d.Interactions != "" {
			files = append(files, filepath.Join(s.Dir, d.Interactions))
		}
	}
	return files
}

// checkOutput decides whether out may be replaced by a build of study,
// which read the files in read, and returns the resolved directory to
// write (absolute, symbolic links followed: the same path that was
// checked). It writes nothing.
func checkOutput(out string, study *manifest.Study, read []string) (string, error) {
	refuse := func(format string, args ...any) (string, error) {
		return "", &OutputError{Out: out, Msg: fmt.Sprintf(format, args...)}
	}
	target, err := input.ResolvePath(out)
	if err != nil {
		return refuse("cannot resolve the path: %v", err)
	}
	if filepath.Dir(target) == target {
		return refuse("refusing to replace the root directory %s; choose a directory of its own for the site", target)
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if h, err := input.ResolvePath(home); err == nil && within(target, h) {
			if h == target {
				return refuse("refusing to replace your home directory %s; choose a directory of its own for the site", target)
			}
			return refuse("refusing to replace %s: it holds your home directory %s; choose a directory of its own for the site", target, h)
		}
	}
	r := newResolver()
	dirs := locationsVia(r, study.Dir)
	dir := dirs[0]
	suggest := filepath.Join(dir, "site")
	for _, d := range dirs {
		if d == target {
			return refuse("refusing to write the site into the study directory %s, which it would replace; choose a directory of its own, such as %s", target, suggest)
		}
		if within(target, d) {
			return refuse("refusing to replace %s: it holds the study directory %s; choose a directory of its own, such as %s", target, d, suggest)
		}
	}
	kinds := map[string]string{} // location → what it is, when not an input
	name := func(p, what string) {
		for _, l := range locationsVia(r, p) {
			kinds[l] = what
		}
	}
	for _, p := range study.Pages {
		name(filepath.Join(study.Dir, p.Source), "page")
	}
	if study.Bibliography != "" {
		name(filepath.Join(study.Dir, study.Bibliography), "bibliography")
	}
	name(study.File, "manifest")
	var hits []string
	seen := map[string]bool{}
	for _, f := range read {
		for _, l := range locationsVia(r, f) {
			if !seen[l] && within(target, l) {
				hits = append(hits, l)
			}
			seen[l] = true
		}
	}
	if len(hits) > 0 {
		sort.Strings(hits)
		what := "the study's input"
		if k := kinds[hits[0]]; k != "" {
			what = "the study's " + k
		}
		more := ""
		if len(hits) > 1 {
			more = " and " + analyses.Count(len(hits)-1, "other file", "other files") + " of the study"
		}
		return refuse("refusing to replace %s: it holds %s %s%s; choose a directory of its own, such as %s", target, what, hits[0], more, suggest)
	}
	if err := replaceable(target); err != nil {
		return "", &OutputError{Out: out, Msg: err.Error()}
	}
	if mountPoint(target) {
		return "", &OutputError{Out: out, Msg: mountPointMsg(target)}
	}
	return target, nil
}

// mountPoint reports whether the existing directory dir is a mount
// point: its device differs from its parent's, or (a bind mount of the
// same file system; Linux) the kernel's mount table lists it. A build
// replaces its output by renaming it aside, which a mount point refuses
// (EBUSY); a mount the checks miss fails at the swap with the same
// message (swapError), with nothing written into it.
func mountPoint(dir string) bool {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() {
		return false
	}
	pst, err := os.Stat(filepath.Dir(dir))
	if err != nil {
		return false
	}
	if deviceOf(st) != deviceOf(pst) {
		return true
	}
	table, err := input.ReadOwn(mountTable)
	if err != nil {
		return false
	}
	return input.MountTableLists(table, dir)
}

// mountTable lists the mounts of this process (Linux; elsewhere it is
// missing and only devices are compared).
var mountTable = "/proc/self/mountinfo"

// deviceOf is the device a file lives on (a variable: tests make a
// directory look like a mount point without mounting anything).
var deviceOf = statDevice

// mountPointMsg says why a mount point cannot be the output, and what to
// do instead.
func mountPointMsg(dir string) string {
	return fmt.Sprintf("%s is a mount point: a build replaces its output directory by renaming it, which a mount point does not allow; build into a directory inside it (-o %s) and publish from there, or mount the parent directory instead",
		dir, filepath.Join(dir, "site"))
}

// swapError is the error of a rename of the swap: a mount point (EBUSY)
// says so.
func swapError(target string, err error) error {
	if errors.Is(err, syscall.EBUSY) {
		return errors.New(mountPointMsg(target))
	}
	return err
}

// replaceable says whether the directory target may be replaced: it
// does not exist, is an empty directory, or carries the marker.
func replaceable(target string) error {
	st, err := os.Lstat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0: // input.ResolvePath follows links: only a race gets here
		return fmt.Errorf("%s is a symbolic link; give the directory it points to", target)
	case !st.IsDir():
		return fmt.Errorf("%s is an existing file, not a site directory; evalbook replaces only a directory it wrote (choose another -o)", target)
	}
	// One listing decides, not a Stat of the marker and then a listing:
	// another build may swap the directory between two looks (checkOutput
	// runs before the output lock is taken), and a listing is of one
	// directory. Gone meanwhile is fine: the check under the lock decides.
	entries, err := input.ListOwn(target)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	for _, e := range entries {
		if (e.Name() == SiteMarker || e.Name() == retiredBy) && e.Type().IsRegular() {
			return nil // retiredBy: a site another build is removing
		}
	}
	return fmt.Errorf("%s is a non-empty directory that evalbook did not write (it has no %s file), so a build will not replace it; "+
		"choose another -o or empty it (if it is a site built by an older evalbook, mark it: touch %s)",
		target, SiteMarker, filepath.Join(target, SiteMarker))
}

// marked reports whether dir carries the site marker.
func marked(dir string) bool {
	st, err := os.Lstat(filepath.Join(dir, SiteMarker))
	return err == nil && st.Mode().IsRegular()
}

// locations returns where the file or directory p lives: its resolved
// path first, then, when p itself is a symbolic link, where the link is
// (its resolved directory and its name). Replacing either loses it.
func locations(p string) []string { return locationsVia(newResolver(), p) }

// newResolver is input.ResolvePath remembering the directories it resolved,
// for a check that resolves many paths at once (checkOutput): a study's
// inputs lie in a few directories (input.Resolver).
func newResolver() *input.Resolver { return &input.Resolver{Resolve: input.ResolvePath} }

// locationsVia is locations, resolving with r.
func locationsVia(r *input.Resolver, p string) []string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return []string{p}
	}
	res, err := r.Path(abs)
	if err != nil {
		res = abs // compare what can be compared
	}
	out := []string{res}
	if parent, err := r.Dir(filepath.Dir(abs)); err == nil {
		if l := filepath.Join(parent, filepath.Base(abs)); l != res {
			out = append(out, l)
		}
	}
	return out
}

// within reports whether path is dir or lies under it (both clean and
// absolute).
func within(dir, path string) bool {
	if dir == path {
		return true
	}
	if filepath.Dir(dir) == dir { // the root
		return true
	}
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}

// lockOutput takes the lock that serialises builds of the directory
// target: an exclusive flock on <parent>/.evalbook.<base>.lock (waiting
// for it if another build holds it). The lock file stays; unlock
// releases it.
func lockOutput(target string) (unlock func(), err error) {
	path := filepath.Join(filepath.Dir(target), ".evalbook."+filepath.Base(target)+".lock")
	f, err := input.OpenLock(path)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err = lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		unlockFile(f)
		f.Close()
	}, nil
}

// recoverLeftovers repairs what a build killed during its swap left next
// to target (called under the lock, so no other build is running): when
// target is missing, a marked <base>.old-* is the previous site and is
// put back; the other <base>.old-* and .<base>.new-* directories are
// removed when they carry the marker or are empty. Anything else is left
// alone.
func recoverLeftovers(target string) error {
	parent, base := filepath.Dir(target), filepath.Base(target)
	entries, err := input.ListOwn(parent)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	_, err = os.Lstat(target)
	missing := errors.Is(err, fs.ErrNotExist)
	for _, e := range entries { // sorted by name
		name := e.Name()
		p := filepath.Join(parent, name)
		if !e.IsDir() {
			continue
		}
		switch {
		case strings.HasPrefix(name, base+".old-"):
			// Only a site this tool retired (retiredBy): a user's own
			// copy, site.old-2023, is marked too, and is not ours.
			if !retired(p) {
				if emptyDir(p) {
					os.Remove(p)
				}
				continue
			}
			if missing && marked(p) {
				if err := os.Rename(p, target); err != nil {
					return fmt.Errorf("restore %s from %s: %w", target, p, err)
				}
				// back as it was before the swap began
				os.Remove(filepath.Join(target, retiredBy))
				missing = false
				continue
			}
			if err := removeRetired(p); err != nil {
				return fmt.Errorf("remove the leftover %s: %w", p, err)
			}
		case strings.HasPrefix(name, "."+base+".new-"):
			if !marked(p) && !emptyDir(p) {
				continue
			}
			if err := os.RemoveAll(p); err != nil {
				return fmt.Errorf("remove the leftover %s: %w", p, err)
			}
		}
	}
	return nil
}

// recoverOnFailure repairs the leftovers of a build killed during its
// swap when this build fails before writing: the previous site, moved
// aside as <base>.old-*, would otherwise stay missing until a build
// succeeds. It does nothing (and takes no lock, so it writes no lock
// file) when there is nothing of the kind next to out; what it touches
// is what recoverLeftovers touches. Its own failure is not the build's:
// the next build tries again.
func recoverOnFailure(out string) {
	if out == "" {
		return
	}
	target, err := input.ResolvePath(out)
	if err != nil || filepath.Dir(target) == target {
		return
	}
	entries, err := input.ListOwn(filepath.Dir(target))
	if err != nil {
		return
	}
	base := filepath.Base(target)
	found := false
	for _, e := range entries {
		found = found || e.IsDir() && (strings.HasPrefix(e.Name(), base+".old-") || strings.HasPrefix(e.Name(), "."+base+".new-"))
	}
	if !found {
		return
	}
	unlock, err := lockOutput(target)
	if err != nil {
		return
	}
	defer unlock()
	recoverLeftovers(target)
}

// keepDirMode gives the new site directory tmp the permissions (and
// setgid bit, and group where it may) of the site it replaces, so a site
// a user made private (0700) or shared with a group stays so; a new site
// is 0755.
func keepDirMode(tmp, target string) error {
	st, err := os.Stat(target)
	if err != nil || !st.IsDir() {
		return os.Chmod(tmp, 0o755)
	}
	if gid, ok := statGroup(st); ok {
		os.Lchown(tmp, -1, gid) // a group the user is not in: kept as created
	}
	return os.Chmod(tmp, st.Mode()&(fs.ModePerm|fs.ModeSetgid|fs.ModeSticky))
}

func emptyDir(dir string) bool {
	entries, err := input.ListOwn(dir)
	return err == nil && len(entries) == 0
}

// writeAtomically writes files (and the marker, first) into a fresh sibling
// directory of target and swaps it in place of target, under the
// output's lock. target is checkOutput's answer; whether it may be
// replaced is checked again under the lock, after the leftovers of an
// interrupted build are repaired.
func writeAtomically(target string, files map[string][]byte, marker []byte) error {
	parent := filepath.Dir(target)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	unlock, err := lockOutput(target)
	if err != nil {
		return err
	}
	defer unlock()
	if err := recoverLeftovers(target); err != nil {
		return err
	}
	if err := replaceable(target); err != nil {
		return err
	}
	if err := checkNoForeignFiles(target); err != nil {
		return err
	}
	if unchangedSite(target, files, marker) {
		return nil // a rebuild that changes nothing rewrites nothing
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(target)+".new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // gone after a successful swap
	if err := writeFiles(tmp, target, files, marker); err != nil {
		return err
	}
	if err := keepDirMode(tmp, target); err != nil {
		return err
	}
	// Again, just before the swap: a file put into the site while this
	// build wrote its own would be lost with the old site.
	if err := checkNoForeignFiles(target); err != nil {
		return err
	}
	old := ""
	if _, err := os.Lstat(target); err == nil {
		old = target + ".old-" + strings.TrimPrefix(filepath.Base(tmp), "."+filepath.Base(target)+".new-")
		// The old site is named as retired by this build before it is
		// moved aside, so only it is ever restored or removed.
		if err := os.WriteFile(filepath.Join(target, retiredBy), []byte(filepath.Base(old)+"\n"), 0o644); err != nil {
			return err
		}
		if err := os.Rename(target, old); err != nil {
			os.Remove(filepath.Join(target, retiredBy)) // still the site
			return swapError(target, err)
		}
	}
	if err := os.Rename(tmp, target); err != nil {
		if old != "" {
			os.Rename(old, target)
		}
		return swapError(target, err)
	}
	if old != "" {
		// The new site is in place: an old one that cannot be removed
		// (a directory made read-only inside it) keeps its name and is
		// removed by the next build; this one has done its work.
		removeRetired(old)
	}
	return nil
}

// writeFiles writes the marker and files into the new site tmp, linking
// those the site target it replaces already holds as they would be
// written (keptFiles).
func writeFiles(tmp, target string, files map[string][]byte, marker []byte) error {
	// The marker first: an interrupted write leaves a directory the next
	// build knows it may remove.
	if err := os.WriteFile(filepath.Join(tmp, SiteMarker), marker, 0o644); err != nil {
		return err
	}
	fresh, ok := keptOwner(tmp, len(marker))
	keep := keptFiles(target, fresh, ok)
	for _, name := range analyses.SortedKeys(files) {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		old, st := keep(name, files[name])
		if kept, err := linkKept(old, st, p); err != nil {
			return err
		} else if kept {
			continue
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// unchangedSite reports whether target is already, byte for byte, the
// site a build would write: no site retired from it (retiredBy) left
// inside; its marker (which lists the site's files) the same; every file
// as a fresh write leaves it (input.FreshFile: a regular file of one
// name, no hard link elsewhere, with the mode a build gives, 0644 less
// the umask, the build's owner and group, no access control list) and
// with the same bytes; every directory of theirs a directory, not a
// link, with a new directory's permissions (0755 less the umask). With
// checkNoForeignFiles passed, nothing else is there, so the build need
// not write: on Sertkan et al. 2023, comparing 55 files (a few sizes
// differ when anything changed) costs a third of writing them anew.
// Where the system does not tell the umask or a file's links, it says
// no.
func unchangedSite(target string, files map[string][]byte, marker []byte) bool {
	fresh, ok := input.FreshFileIn(filepath.Dir(target))
	if !ok {
		return false
	}
	if st, err := os.Lstat(target); err != nil || !st.IsDir() {
		return false
	}
	if _, err := os.Lstat(filepath.Join(target, retiredBy)); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	mp := filepath.Join(target, SiteMarker)
	mst, err := os.Lstat(mp)
	if err != nil || !fresh.Looks(mst, len(marker)) || !fresh.Same(mp, mst, marker) {
		return false
	}
	names := analyses.SortedKeys(files)
	infos := make([]fs.FileInfo, len(names))
	dirs := map[string]bool{}
	for i, name := range names {
		st, err := os.Lstat(filepath.Join(target, filepath.FromSlash(name)))
		if err != nil || !fresh.Looks(st, len(files[name])) {
			return false
		}
		infos[i] = st
		for d := path.Dir(name); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for d := range dirs {
		if st, err := os.Lstat(filepath.Join(target, filepath.FromSlash(d))); err != nil || !st.IsDir() || st.Mode().Perm() != fresh.DirPerm {
			return false
		}
	}
	for i, name := range names {
		if !fresh.Same(filepath.Join(target, filepath.FromSlash(name)), infos[i], files[name]) {
			return false
		}
	}
	return true
}

// keptFiles returns where, in the site target that a build replaces, a
// file of the new site already is, byte for byte, as the build would
// write it (fresh): what unchangedSite asks of a whole site, asked of
// one file in directories, not links, of target. The new site links it
// under its name rather than writing it again (linkKept): a rebuild
// that changes a page writes that page, and the unchanged pages,
// figures and scripts (the chart library alone is 560 kB) keep their
// inodes and times, as a rebuild that changes nothing keeps them all.
// "" when there is none, and always where the system does not tell the
// umask or a file's owner and links (all but Linux).
func keptFiles(target string, fresh input.FreshFile, ok bool) func(name string, b []byte) (string, fs.FileInfo) {
	none := func(string, []byte) (string, fs.FileInfo) { return "", nil }
	if st, err := os.Lstat(target); !ok || err != nil || !st.IsDir() {
		return none
	}
	if _, err := os.Lstat(filepath.Join(target, retiredBy)); !errors.Is(err, fs.ErrNotExist) {
		return none
	}
	dirs := map[string]bool{".": true}
	realDir := func(d string) bool {
		ok, seen := dirs[d]
		if !seen {
			st, err := os.Lstat(filepath.Join(target, filepath.FromSlash(d)))
			ok = err == nil && st.IsDir()
			dirs[d] = ok
		}
		return ok
	}
	return func(name string, b []byte) (string, fs.FileInfo) {
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			if !realDir(d) {
				return "", nil
			}
		}
		p := filepath.Join(target, filepath.FromSlash(name))
		st, err := os.Lstat(p)
		if err != nil || !fresh.Looks(st, len(b)) || !fresh.Same(p, st, b) {
			return "", nil
		}
		return p, st
	}
}

// keptOwner is what a fresh file of the new site tmp gets (input.FreshFileIn),
// checked against its marker, the first file written there: where they
// differ (a file system that gives new files another group), nothing is
// kept.
func keptOwner(tmp string, marker int) (input.FreshFile, bool) {
	fresh, ok := input.FreshFileIn(filepath.Dir(tmp))
	p := filepath.Join(tmp, SiteMarker)
	st, err := os.Lstat(p)
	return fresh, ok && err == nil && fresh.Looks(st, marker) && !input.HasACL(p)
}

// linkKept links old (a file keptFiles found, st) as p in the new site,
// and keeps the link only if p is then that very file with two names,
// the old site's and p: a file swapped for a link or another file, or
// given a third name, between the check and the link is written
// instead. It returns whether p is kept; an error when a link it must
// not keep cannot be removed (the build then stops rather than write
// through it).
func linkKept(old string, st fs.FileInfo, p string) (bool, error) {
	if old == "" || os.Link(old, p) != nil {
		return false, nil
	}
	lst, err := os.Lstat(p)
	n, ok := uint64(0), false
	if err == nil {
		n, ok = input.Links(lst)
	}
	if err == nil && lst.Mode().IsRegular() && os.SameFile(lst, st) && ok && n == 2 {
		return true, nil
	}
	if err := os.Remove(p); err != nil {
		return false, err
	}
	return false, nil
}

// retiredBy names the file a build writes into the site it is about to
// move aside as <site>.old-<n>, holding that name: the proof that the
// directory is a site this tool retired, not a user's copy of one.
const retiredBy = ".evalbook-retired"

// retired reports whether dir is a site this tool retired (retiredBy).
func retired(dir string) bool {
	b, err := input.ReadOwn(filepath.Join(dir, retiredBy))
	return err == nil && strings.TrimSpace(string(b)) == filepath.Base(dir)
}

// removeRetired removes a retired site, its marker and retiredBy file
// last: a removal stopped halfway leaves a directory the next build
// still knows as its own, and a build that lists the directory while it
// is being removed (it was the site a moment ago) never sees its files
// without the marker.
func removeRetired(dir string) error {
	entries, err := input.ListOwn(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() != retiredBy && e.Name() != SiteMarker {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return os.RemoveAll(dir)
}
