//go:build !unix

package report

import "time"

// processCPU is not measured here: BenchmarkScaling prints wall time only.
func processCPU() time.Duration { return 0 }
