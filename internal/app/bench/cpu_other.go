//go:build !unix

package bench

// processCPU is zero where the process's CPU time is not read.
func processCPU() cpuTime { return cpuTime{} }
