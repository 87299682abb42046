//go:build unix

package report

import "syscall"

// processCPUSeconds is the CPU time (user and system) the process has
// used: a benchmark that divides by it is not skewed by other processes
// sharing the machine, as one that divides by the wall clock is.
func processCPUSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
