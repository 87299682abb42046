//go:build linux

package input

import (
	"os"
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
