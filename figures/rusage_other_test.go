//go:build !unix

package figures

// processCPUSeconds is not measured here: the cpu-ms figure reads 0.
func processCPUSeconds() float64 { return 0 }
