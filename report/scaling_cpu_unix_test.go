//go:build unix

package report

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) the process has used: on
// a shared machine the growth of a build's CPU time is its exponent,
// where its wall time also measures the other processes.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
