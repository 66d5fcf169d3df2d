package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// terminal is a pseudo-terminal: what is written to TTY is read back as
// a terminal shows it, by Output once TTY is closed.
type terminal struct {
	TTY  *os.File
	ptmx *os.File
	out  bytes.Buffer
	done chan struct{}
}

func newTerminal(t *testing.T) *terminal {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	term := &terminal{TTY: tty, ptmx: ptmx, done: make(chan struct{})}
	go func() {
		defer close(term.done)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			term.out.Write(buf[:n])
			if err != nil { // EIO once the terminal's side is closed and read
				return
			}
		}
	}()
	t.Cleanup(func() { tty.Close(); <-term.done; ptmx.Close() })
	return term
}

// Output closes the terminal's side and returns everything written to it.
func (term *terminal) Output() string {
	term.TTY.Close()
	<-term.done
	return term.out.String()
}

// TestRolloutOnATerminal runs sqlgym rollout with its standard error on
// a terminal: it draws the bar, not the plain lines it writes in a pipe.
func TestRolloutOnATerminal(t *testing.T) {
	term := newTerminal(t)
	dir := t.TempDir()
	args := []string{"rollout", "--model-url", submitOne(t), "--model", "m1", "--limit", "3",
		"--data-dir", dir, "--out", filepath.Join(dir, "out"), "--run", "r1"}
	var stdout bytes.Buffer
	err := run(context.Background(), args, &stdout, term.TTY)
	shown := term.Output()
	if err != nil {
		t.Fatalf("rollout: %v\n%s", err, shown)
	}
	if !strings.Contains(shown, "] 3/3 episodes, accuracy 0.0%, ") || !strings.Contains(shown, " tokens/s \r\n") {
		t.Errorf("the terminal shows no finished bar:\n%q", shown)
	}
	if strings.Contains(shown, "demo/library-001 sample 0") {
		t.Errorf("the terminal shows the plain lines of a pipe:\n%q", shown)
	}
}
