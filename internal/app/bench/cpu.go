package bench

import "time"

// cpuTime is CPU time used, split as the kernel counts it.
type cpuTime struct {
	user, system time.Duration
}

// sub is the CPU time used since before.
func (c cpuTime) sub(before cpuTime) cpuTime {
	return cpuTime{user: c.user - before.user, system: c.system - before.system}
}
