//go:build !unix

package report

// processCPUSeconds is not measured here: the rows/cpu-s figure is left
// out.
func processCPUSeconds() float64 { return 0 }
