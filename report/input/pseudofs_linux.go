//go:build linux

package input

import "syscall"

// pseudoFilesystems are the kernel's pseudo-filesystems by their statfs
// magic number (linux/magic.h): their files report themselves as regular
// files of size 0 or 4096, yet a read may block for ever (/proc/kmsg),
// never end, or differ on every read. No study input lives there.
var pseudoFilesystems = map[int64]string{
	0x9fa0:     "proc",
	0x62656572: "sysfs",
	0x64626720: "debugfs",
	0x74726163: "tracefs",
	0x73636673: "securityfs",
	0x27e0eb:   "cgroup",
	0x63677270: "cgroup2",
	0xcafe4a11: "bpf",
	0x62656570: "configfs",
	0x6165676c: "pstore",
	0xde5e81e4: "efivarfs",
	0x1cd1:     "devpts",
	0x65735543: "fusectl",
	0xf97cff8c: "selinuxfs",
	0x43415d53: "smackfs",
	0x42494e4d: "binfmt_misc",
	0x6e736673: "nsfs",
	0x67596969: "rpc_pipefs",
	0x50495045: "pipefs",
	0x534f434b: "sockfs",
	0x09041934: "anon_inode",
}

// pseudoFS names the pseudo-filesystem path lies on (symbolic links
// followed, as statfs does), or "" for a filesystem that stores files.
func pseudoFS(path string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return ""
	}
	return pseudoFilesystems[int64(st.Type)]
}
