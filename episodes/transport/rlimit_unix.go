//go:build unix

package transport

import "syscall"

// OpenFileLimit is the process's limit on open file descriptors
// (RLIMIT_NOFILE's soft limit), and whether it could be read.
func OpenFileLimit() (int, bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == 0 {
		return 0, false
	}
	return int(min(rl.Cur, 1<<30)), true
}
