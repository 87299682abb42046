package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiling honours two hidden environment variables for performance
// work (make bench-sertkan2023, bench-1g): EVALBOOK_CPUPROFILE=path writes a
// pprof CPU profile of the whole command, EVALBOOK_TRACE=path an execution
// trace (go tool trace). The returned function stops and flushes them; a
// profile that cannot be written is reported on stderr and never changes
// the command's result.
func startProfiling(stderr io.Writer) (stop func()) {
	var stops []func()
	if path := os.Getenv("EVALBOOK_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err != nil {
			fmt.Fprintf(stderr, "evalbook: EVALBOOK_CPUPROFILE: %v\n", err)
		} else if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "evalbook: EVALBOOK_CPUPROFILE: %v\n", err)
			f.Close()
		} else {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if path := os.Getenv("EVALBOOK_TRACE"); path != "" {
		if f, err := os.Create(path); err != nil {
			fmt.Fprintf(stderr, "evalbook: EVALBOOK_TRACE: %v\n", err)
		} else if err := trace.Start(f); err != nil {
			fmt.Fprintf(stderr, "evalbook: EVALBOOK_TRACE: %v\n", err)
			f.Close()
		} else {
			stops = append(stops, func() { trace.Stop(); f.Close() })
		}
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}
