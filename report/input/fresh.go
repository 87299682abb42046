package input

import (
	"io/fs"
	"os"
)

// FreshFile is what a file evalbook writes into a new site gets: its
// mode (0644 less the umask), owner and group, and its directories'
// mode (0755 less the umask). A build keeps a file of the site it
// replaces only where the file is as a fresh write would leave it
// (report's unchangedSite and keptFiles).
type FreshFile struct {
	Perm, DirPerm fs.FileMode
	UID, GID      uint32
}

// FreshFileIn returns what a file written into a new directory under
// parent gets: the process's owner, and the group of parent if it is
// set-group-ID, else the process's. ok is false where the system does
// not tell the umask.
func FreshFileIn(parent string) (FreshFile, bool) {
	umask, ok := Umask()
	uid, gid := os.Geteuid(), os.Getegid()
	st, err := os.Stat(parent)
	if !ok || uid < 0 || gid < 0 || err != nil {
		return FreshFile{}, false
	}
	f := FreshFile{Perm: 0o644 &^ umask, DirPerm: 0o755 &^ umask, UID: uint32(uid), GID: uint32(gid)}
	if st.Mode()&fs.ModeSetgid != 0 {
		if _, f.GID, ok = Owner(st); !ok {
			return FreshFile{}, false
		}
	}
	return f, true
}

// Looks reports whether a file (os.Lstat's st) of size bytes looks as a
// fresh write leaves it: a regular file of one name (no hard link that
// could change it behind the build), with the mode a fresh file gets
// and no set-user-ID, set-group-ID or sticky bit, and the same owner
// and group.
func (f FreshFile) Looks(st fs.FileInfo, size int) bool {
	mode := st.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	uid, gid, ok := Owner(st)
	return st.Mode().IsRegular() && mode == f.Perm && st.Size() == int64(size) && SingleLink(st) &&
		ok && uid == f.UID && gid == f.GID
}

// Same reports whether the file at p, which looks fresh (st), also has
// no access control list and holds b.
func (f FreshFile) Same(p string, st fs.FileInfo, b []byte) bool {
	return !HasACL(p) && EqualOwn(p, st, b)
}
