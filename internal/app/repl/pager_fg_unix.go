//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package repl

import (
	"os/exec"
	"os/signal"
	"syscall"
	"unsafe"
)

// runInForeground runs cmd in a process group of its own, made the
// foreground group of the terminal tty, and takes the terminal back when
// it ends.
func runInForeground(cmd *exec.Cmd, tty int) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Foreground: true, Ctty: tty}
	err := cmd.Run()
	if cmd.Process == nil {
		return err // it never started: the terminal is still the REPL's
	}
	// A process in the background that sets the foreground group gets
	// SIGTTOU, which stops it, unless it ignores the signal.
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	pgrp := int32(syscall.Getpgrp())
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(tty), uintptr(syscall.TIOCSPGRP), uintptr(unsafe.Pointer(&pgrp))); e != 0 && err == nil {
		err = e
	}
	return err
}
