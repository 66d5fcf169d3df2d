//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package repl

import "os/exec"

// runInForeground runs cmd; on this system the REPL does not hand the
// terminal's foreground to it.
func runInForeground(cmd *exec.Cmd, _ int) error { return cmd.Run() }
