//go:build windows

package report

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// statDevice is 0 on Windows: a mount point (a volume mounted in a
// folder) is found by the rename failing, not beforehand.
func statDevice(fs.FileInfo) uint64 { return 0 }

// statGroup: Windows files have no POSIX group to keep.
func statGroup(fs.FileInfo) (int, bool) { return 0, false }

// lockFile takes an exclusive lock on f's first byte (LockFileEx),
// waiting for it.
func lockFile(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, new(windows.Overlapped))
}

// unlockFile releases lockFile's lock.
func unlockFile(f *os.File) {
	windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}
