//go:build unix

package report

import (
	"io/fs"
	"os"
	"syscall"
)

// statDevice is the device a file lives on (0 when the system does not
// say).
func statDevice(st fs.FileInfo) uint64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Dev)
	}
	return 0
}

// statGroup is a file's group, when the system has one.
func statGroup(st fs.FileInfo) (int, bool) {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(sys.Gid), true
	}
	return 0, false
}

// lockFile takes an exclusive lock on f (flock), waiting for it.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

// unlockFile releases lockFile's lock.
func unlockFile(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
