// Package cputime reads the CPU time the process has used, for
// benchmarks that report what an operation takes from a server's other
// work: on a loaded machine, wall time overstates it.
package cputime

import (
	"syscall"
	"time"
)

// Process is the process's user and system CPU time so far (getrusage);
// zero where it cannot be read.
func Process() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// PerOp is the CPU time used since start, in milliseconds per op of n.
func PerOp(start time.Duration, n int) float64 {
	return float64(Process()-start) / float64(time.Millisecond) / float64(max(n, 1))
}
