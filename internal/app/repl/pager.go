package repl

import (
	"errors"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/term"
)

// pagerCommand is the pager results taller than the terminal go through:
// $PAGER when it is set (set to nothing: no pager), else less (quitting
// at once on a result that fits, keeping colour, not clearing the
// screen), else more; "" when there is none.
func pagerCommand(getenv func(string) (string, bool)) string {
	if p, ok := getenv("PAGER"); ok {
		return strings.TrimSpace(p)
	}
	if _, err := exec.LookPath("less"); err == nil {
		return "less -FRX"
	}
	if _, err := exec.LookPath("more"); err == nil {
		return "more"
	}
	return ""
}

// runPager runs command (through sh -c) on the terminal with text as its
// input, the terminal back in the mode the REPL found it in, and the
// pager's process group in the foreground: Ctrl-C there reaches the
// pager, not the REPL. shown says whether the pager ran, however it
// ended; when it did not (it could not start, or sh found no such
// command), the caller prints the text itself.
func (t *terminal) runPager(command, text string) (shown bool, err error) {
	fd := int(os.Stdin.Fd())
	if raw, err := term.GetState(fd); err == nil && t.cooked != nil {
		term.Restore(fd, t.cooked)
		defer term.Restore(fd, raw)
	}
	cmd := exec.Command("sh", "-c", command)
	cmd.Stdin = strings.NewReader(text)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err = runInForeground(cmd, fd)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &exit) && exit.ExitCode() == 127: // sh: command not found
		return false, err
	case errors.As(err, &exit):
		return true, nil // the pager ran, and ended as the person at it chose (Ctrl-C, q, a broken pipe)
	}
	return false, err
}

// runPager of a script never runs: a script has no terminal.
func (s *script) runPager(string, string) (bool, error) { return false, nil }
