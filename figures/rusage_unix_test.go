//go:build unix

package figures

import "syscall"

// processCPUSeconds is the CPU time (user and system) the process has
// used, for benchmarks not skewed by other processes on the machine.
func processCPUSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
