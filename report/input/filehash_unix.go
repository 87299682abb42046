//go:build linux

package input

import (
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
