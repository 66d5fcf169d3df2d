//go:build unix

package bench

import (
	"syscall"
	"time"
)

// processCPU is the user and system CPU time the process has used.
func processCPU() cpuTime {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return cpuTime{}
	}
	return cpuTime{user: time.Duration(ru.Utime.Nano()), system: time.Duration(ru.Stime.Nano())}
}
