//go:build linux

package input

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// sysIdentity adds the change time, inode and device where the system
// reports them.
func sysIdentity(st os.FileInfo, id *FileStamp) {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		id.Ctime = s.Ctim.Sec*1e9 + s.Ctim.Nsec
		id.Ino = s.Ino
		id.Dev = uint64(s.Dev)
	}
}

// SingleLink reports whether a file (os.Lstat's info) has one name, no
// other hard link that could change it behind the name evalbook wrote.
func SingleLink(st os.FileInfo) bool {
	s, ok := st.Sys().(*syscall.Stat_t)
	return ok && s.Nlink == 1
}

// Umask returns the process's file mode creation mask (the kernel's
// /proc/self/status, which reads it without setting it, as umask(2)
// would), and whether it could be read.
func Umask() (os.FileMode, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32)
			return os.FileMode(m) & os.ModePerm, err == nil
		}
	}
	return 0, false
}

// Links returns a file's number of names (os.Lstat's info); ok is false
// where the system does not say.
func Links(st os.FileInfo) (n uint64, ok bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(s.Nlink), true
}

// Owner returns a file's owner and group (os.Lstat's info); ok is false
// where the system does not say.
func Owner(st os.FileInfo) (uid, gid uint32, ok bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return s.Uid, s.Gid, true
}

// HasACL reports whether the file at path (a regular file: a link is
// followed) carries an access control list, which gives access its mode
// does not show. A file system without extended attributes has none;
// any other failure to tell counts as having one.
func HasACL(path string) bool {
	_, err := syscall.Getxattr(path, "system.posix_acl_access", nil)
	return !(errors.Is(err, syscall.ENODATA) || errors.Is(err, syscall.ENOTSUP))
}
