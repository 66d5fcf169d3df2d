package repl

import (
	"golang.org/x/sys/unix"

	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// waitRaw waits until the REPL's line editor has the terminal in raw
// mode, reading keys one at a time. liner prints a prompt before it
// leaves the cooked mode the terminal is in between lines: a Ctrl-C typed
// in between would be the terminal's SIGINT, not a key, and the line
// typed before it would be flushed unseen. A person cannot type that
// fast after a prompt shows; a test can, so a test that types a control
// key waits for this first. The master side of a pseudo-terminal reads
// the terminal's modes.
func (p *ptySession) waitRaw() {
	p.t.Helper()
	raw := func() bool {
		tio, err := unix.IoctlGetTermios(int(p.tty.Fd()), unix.TCGETS)
		return err == nil && tio.Lflag&unix.ICANON == 0
	}
	if !waitfor.Within(waitfor.Timeout, raw) {
		p.t.Fatal("the terminal never left cooked mode for the line editor's raw mode")
	}
}
