package repl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/peterh/liner"
	"golang.org/x/term"

	"github.com/sqlgym/sqlgym/base/atomicfile"
	"github.com/sqlgym/sqlgym/env/sqltext"
)

// errInterrupt is what reading a line returns when the user pressed
// Ctrl-C: the line, and the statement it was part of, are dropped.
var errInterrupt = errors.New("interrupted")

// lineSource is where the REPL's lines come from.
type lineSource interface {
	// readLine shows prompt and returns one line without its line break;
	// io.EOF at the end of the input (Ctrl-D), errInterrupt on Ctrl-C.
	readLine(prompt string) (string, error)
	// remember keeps a command in the history.
	remember(entry string)
	// runPager shows text through a pager command (a terminal's only),
	// and says whether it did.
	runPager(command, text string) (shown bool, err error)
	close() error
}

// script reads lines from a stream that is not a terminal: no prompt is
// shown, unless echo asks for the prompt and the line, as a terminal
// would show them.
type script struct {
	sc   *bufio.Scanner
	out  io.Writer
	echo bool
}

func newScript(r io.Reader, out io.Writer, echo bool) *script {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	return &script{sc: sc, out: out, echo: echo}
}

func (s *script) readLine(prompt string) (string, error) {
	if !s.sc.Scan() {
		if err := s.sc.Err(); err != nil {
			return "", err
		}
		return "", io.EOF
	}
	line := strings.TrimSuffix(s.sc.Text(), "\r")
	if s.echo {
		fmt.Fprintf(s.out, "%s%s\n", prompt, line)
	}
	return line, nil
}

func (s *script) remember(string) {}
func (s *script) close() error    { return nil }

// terminal reads lines with liner's line editing, on the process's
// standard input and output, and keeps the history in a file.
type terminal struct {
	st      *liner.State
	history string      // the history file; "" keeps none
	cooked  *term.State // the terminal's mode before liner's, for a pager; nil if unknown
}

// openTerminal puts the terminal in raw mode, completes words with
// complete on Tab, and loads the history. A history file that cannot be
// read is not fatal: the session starts with an empty history and says
// why.
func openTerminal(history string, complete liner.WordCompleter) *terminal {
	cooked, _ := term.GetState(int(os.Stdin.Fd()))
	t := &terminal{st: liner.NewLiner(), history: history, cooked: cooked}
	t.st.SetCtrlCAborts(true)
	t.st.SetMultiLineMode(true)
	t.st.SetWordCompleter(complete)
	t.st.SetTabCompletionStyle(liner.TabPrints) // Tab completes what all share; a second Tab lists them
	if history == "" {
		return t
	}
	f, err := os.Open(history)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(os.Stderr, "sqlgym repl: history: %v\n", err)
		}
		return t
	}
	defer f.Close()
	if _, err := t.st.ReadHistory(f); err != nil {
		fmt.Fprintf(os.Stderr, "sqlgym repl: history %s: %v\n", history, err)
	}
	return t
}

func (t *terminal) readLine(prompt string) (string, error) {
	line, err := t.st.Prompt(prompt)
	if errors.Is(err, liner.ErrPromptAborted) {
		fmt.Println("^C")
		return "", errInterrupt
	}
	if errors.Is(err, io.EOF) {
		fmt.Println()
	}
	return line, err
}

// remember adds entry to the history and saves the history file, so it
// survives even a session that is killed.
func (t *terminal) remember(entry string) {
	if entry == "" {
		return
	}
	t.st.AppendHistory(entry)
	if t.history == "" {
		return
	}
	if err := saveHistory(t.history, t.st); err != nil {
		fmt.Fprintf(os.Stderr, "sqlgym repl: %v\n", err)
		t.history = "" // say it once
	}
}

func (t *terminal) close() error { return t.st.Close() }

// isTerminal says whether v is a file open on a terminal.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// terminalSize is the width and height of the terminal behind w, or
// zeros (no limit) when w is not a terminal.
func terminalSize(w io.Writer) (cols, rows int) {
	f, ok := w.(*os.File)
	if !ok {
		return 0, 0
	}
	cols, rows, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0, 0
	}
	return cols, rows
}

// historyEntry is a command as one history line: a statement typed over
// several lines is joined into one, its -- comments dropped so that they
// do not swallow the rest of the line.
func historyEntry(cmd string) string {
	if strings.HasPrefix(cmd, ".") {
		cmd, _, _ = strings.Cut(cmd, "\n") // .text keeps its first line only
		return strings.TrimSpace(cmd)
	}
	var b strings.Builder
	space := false // the last byte written is a space
	for _, t := range sqltext.Tokens(cmd) {
		if t.Kind == sqltext.Space || t.Kind == sqltext.Comment && strings.HasPrefix(t.Text, "--") {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		b.WriteString(strings.ReplaceAll(t.Text, "\n", " "))
		space = false
	}
	return strings.TrimSpace(b.String())
}

// DefaultHistoryFile is where the REPL keeps its history unless told
// otherwise: $XDG_STATE_HOME/sqlgym/history when XDG_STATE_HOME is set,
// else ~/.sqlgym_history (as psql and sqlite3 keep theirs); "" when
// neither can be found.
func DefaultHistoryFile(getenv func(string) string) string {
	if dir := getenv("XDG_STATE_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "sqlgym", "history")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".sqlgym_history")
	}
	return ""
}

// historyWriter is what saveHistory needs of liner's state.
type historyWriter interface {
	WriteHistory(w io.Writer) (int, error)
}

// saveHistory writes the whole history (liner keeps the last 1000 lines)
// to path through a synced temporary file and a rename, so a crash leaves the
// old file or the new one, never half of one.
func saveHistory(path string, h historyWriter) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	err := atomicfile.Write(path, atomicfile.Options{Perm: 0o600}, func(w *bufio.Writer) error {
		_, err := h.WriteHistory(w)
		return err
	})
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}
