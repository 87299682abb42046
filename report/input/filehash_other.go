//go:build !linux

package input

import "os"

// sysIdentity has only size and modification time on this system; the
// racy window still makes quick edits hash again.
func sysIdentity(os.FileInfo, *FileStamp) {}

// SingleLink reports whether a file has one name; this system's link
// count is not read, so it says no (a caller then rewrites the file).
func SingleLink(os.FileInfo) bool { return false }

// Umask returns the process's file mode creation mask, which this
// system does not let a process read without setting it: ok is false.
func Umask() (os.FileMode, bool) { return 0, false }

// Links returns a file's number of names; this system's is not read.
func Links(os.FileInfo) (uint64, bool) { return 0, false }

// Owner returns a file's owner and group; this system's are not read.
func Owner(os.FileInfo) (uid, gid uint32, ok bool) { return 0, 0, false }

// HasACL reports whether a file carries an access control list; this
// system's are not read, so it says yes (a caller then rewrites the
// file).
func HasACL(string) bool { return true }
