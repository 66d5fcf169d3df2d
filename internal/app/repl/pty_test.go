package repl

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// Keys as a terminal sends them.
const (
	enter = "\r"
	ctrlC = "\x03"
	ctrlD = "\x04"
	up    = "\x1b[A"
	tab   = "\t"
)

// ptyRows is the height of the tests' terminals.
const ptyRows = 50

// ptySession is the REPL running in a child process on a pseudo-terminal,
// typed at and read as a person would.
type ptySession struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File // the terminal's controlling side
	done chan struct{}

	mu   sync.Mutex   // guards out
	out  bytes.Buffer // everything the REPL wrote
	seen int          // out is matched from here on
}

// startPTY runs the REPL on a terminal of cols columns, connected to url;
// env adds to the child's environment.
func startPTY(t *testing.T, url string, cols uint16, env ...string) *ptySession {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childURL+"="+url)
	return runOnPTY(t, cmd, cols, env...)
}

// runOnPTY starts cmd on a terminal of 50 rows and cols columns; env
// adds to its environment (colour allowed unless it sets NO_COLOR).
func runOnPTY(t *testing.T, cmd *exec.Cmd, cols uint16, env ...string) *ptySession {
	t.Helper()
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, "TERM=xterm", "NO_COLOR=")
	cmd.Env = append(cmd.Env, env...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: ptyRows, Cols: cols})
	if err != nil {
		t.Fatal(err)
	}
	p := &ptySession{t: t, cmd: cmd, tty: tty, done: make(chan struct{})}
	go p.read()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		tty.Close()
		<-p.done
	})
	return p
}

// read copies the REPL's output until the terminal closes.
func (p *ptySession) read() {
	defer close(p.done)
	buf := make([]byte, 4096)
	for {
		n, err := p.tty.Read(buf)
		p.mu.Lock()
		p.out.Write(buf[:n])
		p.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// send types keys.
func (p *ptySession) send(keys string) {
	p.t.Helper()
	if _, err := io.WriteString(p.tty, keys); err != nil {
		p.t.Fatalf("type %q: %v", keys, err)
	}
}

// expect waits until the output, past what earlier calls matched, holds
// want, and returns the output up to the end of the match.
func (p *ptySession) expect(want string) string {
	p.t.Helper()
	var got string
	if !waitfor.Within(waitfor.Timeout, func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		text := p.out.String()[p.seen:]
		i := strings.Index(text, want)
		if i < 0 {
			return false
		}
		got = text[:i+len(want)]
		p.seen += len(got)
		return true
	}) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.t.Fatalf("the terminal never showed %q; it shows:\n%s", want, p.out.String()[p.seen:])
	}
	return got
}

// line types a line and waits for the prompt that follows its output.
func (p *ptySession) line(keys, prompt string) string {
	p.t.Helper()
	p.send(keys + enter)
	return p.expect(prompt)
}

// command types a line and returns the output it caused, up to the
// prompt that follows: unlike line, it waits for the line to show first,
// so that prompt may be the one the line was typed at.
func (p *ptySession) command(keys, prompt string) string {
	p.t.Helper()
	p.send(keys + enter)
	p.expect(keys)
	return p.expect(prompt)
}

// exit waits for the REPL to end and checks that it ended well.
func (p *ptySession) exit() {
	p.t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- p.cmd.Wait() }()
	select {
	case err := <-errc:
		if err != nil {
			p.t.Errorf("the REPL ended with %v; output:\n%s", err, p.out.String())
		}
	case <-time.After(20 * time.Second):
		p.t.Fatalf("the REPL did not end; output:\n%s", p.out.String())
	}
}

// TestTerminalEpisode plays a whole episode at a terminal: reset, a
// statement over two lines, inspect_schema, a correct submit, quit.
func TestTerminalEpisode(t *testing.T) {
	srv := startServer(t, 0)
	p := startPTY(t, srv.url, 120, "NO_COLOR=1")
	p.expect("Type .help")
	p.expect("sqlgym> ")
	got := p.line(".reset demo/library-001", "library[0/8]> ")
	if !strings.Contains(got, "How many different titles by Jane Austen") {
		t.Errorf("reset shows no question:\n%s", got)
	}
	p.send("SELECT a.name, count(*) AS titles FROM books b JOIN authors a USING (author_id)" + enter)
	p.expect("         ...> ")
	got = p.line("  GROUP BY a.name ORDER BY titles DESC, a.name LIMIT 2;", "library[1/8]> ")
	for _, w := range []string{" name            | titles", " Haruki Murakami |      4", " Jane Austen     |      4", "(2 rows, ", "reward 0 (turn.ok 0) · turn 1/8"} {
		if !strings.Contains(got, w) {
			t.Errorf("result lacks %q:\n%s", w, got)
		}
	}
	got = p.line(".schema", "library[2/8]> ")
	if !strings.Contains(got, "authors(") {
		t.Errorf(".schema shows no tables:\n%s", got)
	}
	got = p.line(".submit SELECT count(*) FROM books JOIN authors USING (author_id) WHERE authors.name = 'Jane Austen';", "sqlgym> ")
	for _, w := range []string{"reward 1 (final.correct 1, turn.ok 0) · turn 3/8", "CORRECT: the result matches the gold's.", "total reward 1."} {
		if !strings.Contains(got, w) {
			t.Errorf("submit lacks %q:\n%s", w, got)
		}
	}
	if sgrColour.MatchString(got) {
		t.Errorf("NO_COLOR is set, yet the output is coloured:\n%q", got)
	}
	p.send(".quit" + enter)
	p.exit()
}

// sgrColour matches an escape that sets a foreground colour (SGR 30-37,
// 90-97, 38;...): not the line editor's cursor moves, such as \x1b[36G.
var sgrColour = regexp.MustCompile(`\x1b\[(?:[0-9]+;)*(?:3[0-8]|9[0-7])(?:;[0-9]+)*m`)

// TestTerminalFailingQuery checks that an engine error is shown with its
// message, in red unless NO_COLOR is set.
func TestTerminalFailingQuery(t *testing.T) {
	srv := startServer(t, 0)
	for _, tt := range []struct {
		name, noColor, want string
	}{
		{"colour", "", "\x1b[31merror [sql_error]: no such column: nme\x1b[0m"},
		{"NO_COLOR", "1", "\nerror [sql_error]: no such column: nme\r\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := startPTY(t, srv.url, 120, "NO_COLOR="+tt.noColor)
			p.expect("sqlgym> ")
			p.line(".reset demo/library-001", "library[0/8]> ")
			got := p.line("SELECT nme FROM authors;", "library[1/8]> ")
			if !strings.Contains(got, tt.want) {
				t.Errorf("output lacks %q:\n%q", tt.want, got)
			}
			if !strings.Contains(got, "turn.tool_error -0.02") {
				t.Errorf("output lacks the error's cost:\n%q", got)
			}
			p.send(ctrlD)
			p.expect("closed episode")
			p.exit()
		})
	}
}

// ansi matches the escape sequences of a terminal's output.
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// TestTerminalTruncatedResult checks a result with more rows than the
// row limit: the rows past it are cut and said to be, and the table is
// cut to the terminal's width.
func TestTerminalTruncatedResult(t *testing.T) {
	srv := startServer(t, 5)
	const cols = 60
	p := startPTY(t, srv.url, cols, "NO_COLOR=1")
	p.expect("sqlgym> ")
	p.line(".reset demo/library-001", "library[0/8]> ")
	got := p.line("SELECT book_id, title, title || ' ' || title || ' ' || title AS long_title FROM books ORDER BY book_id;", "library[1/8]> ")
	got = strings.ReplaceAll(ansi.ReplaceAllString(got, ""), "\r", "")
	if !strings.Contains(got, "(first 5 rows shown; the query returned more, past the row limit;") {
		t.Errorf("output does not say the rows were cut:\n%s", got)
	}
	lines := strings.Split(got, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, " book_id |") {
			start = i
		}
	}
	if start < 0 || start+7 > len(lines) {
		t.Fatalf("no table of 5 rows in:\n%s", got)
	}
	cut := false
	for _, l := range lines[start : start+7] {
		if w := len([]rune(l)); w > cols {
			t.Errorf("line of %d columns on a %d-column terminal: %q", w, cols, l)
		}
		cut = cut || strings.HasSuffix(l, "…")
	}
	if !cut {
		t.Errorf("no cell was cut to fit:\n%s", strings.Join(lines[start:start+7], "\n"))
	}
	p.send(".quit" + enter)
	p.exit()
}

// TestTerminalHistory checks that lines typed in one session come back
// with the up arrow in the next.
func TestTerminalHistory(t *testing.T) {
	srv := startServer(t, 0)
	history := filepath.Join(t.TempDir(), "state", "sqlgym", "history")
	first := startPTY(t, srv.url, 120, "NO_COLOR=1", childHistory+"="+history)
	first.expect("sqlgym> ")
	first.line(".reset demo/library-001", "library[0/8]> ")
	first.send("SELECT 6 * 7\r")
	first.expect("...> ")
	first.line("  AS answer;", "library[1/8]> ")
	first.send(ctrlD)
	first.exit()
	b, err := os.ReadFile(history)
	if err != nil {
		t.Fatal(err)
	}
	if want := ".reset demo/library-001\nSELECT 6 * 7 AS answer;\n"; string(b) != want {
		t.Errorf("history file holds %q, want %q", b, want)
	}

	second := startPTY(t, srv.url, 120, "NO_COLOR=1", childHistory+"="+history)
	second.expect("sqlgym> ")
	second.line(".reset demo/library-002", "library[0/8]> ")
	got := second.line(up+up, "library[1/8]> ")
	if !strings.Contains(got, " answer\r\n-------\r\n     42\r\n") {
		t.Errorf("the recalled statement did not run:\n%q", got)
	}
	second.send(".quit" + enter)
	second.exit()
}

// TestTerminalText sends raw completions in both action formats and
// checks how the server parsed them.
func TestTerminalText(t *testing.T) {
	srv := startServer(t, 0)
	for _, tt := range []struct {
		format, completion, want string
	}{
		{"hermes", `I will count the books.` + enter + `<tool_call>{"name": "execute_sql", "arguments": {"sql": "SELECT count(*) AS n FROM books"}}</tool_call>`,
			"parsed as execute_sql: SELECT count(*) AS n FROM books"},
		{"tags", `I will count the books.` + enter + `<sql>SELECT count(*) AS n FROM books</sql>`,
			"parsed as execute_sql: SELECT count(*) AS n FROM books"},
	} {
		t.Run(tt.format, func(t *testing.T) {
			p := startPTY(t, srv.url, 120, "NO_COLOR=1")
			p.expect("sqlgym> ")
			got := p.line(".reset demo/library-001 --format "+tt.format, "library[0/8]> ")
			if !strings.Contains(got, tt.format+" format") {
				t.Errorf("reset does not say the format:\n%s", got)
			}
			p.send(".text" + enter)
			p.expect("...> ")
			p.send(tt.completion + enter)
			got = p.line(".end", "library[1/8]> ")
			for _, w := range []string{tt.want, "the model sees:", "  n\r\n  56\r\n  (1 row)\r\n  7 turns left.", "turn.ok 0"} {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%q", w, got)
				}
			}
			p.line(".text", "...> ")
			p.line("no call here", "...> ")
			got = p.line(".end", "library[2/8]> ")
			if !strings.Contains(got, "error [format_error]") || strings.Contains(got, "parsed as") {
				t.Errorf("text with no call is not a format error:\n%q", got)
			}
			p.send(".quit" + enter)
			p.exit()
		})
	}
}

// TestTerminalInterrupt checks that Ctrl-C drops the statement being
// typed and keeps the REPL, and that Ctrl-D ends it, closing the episode.
func TestTerminalInterrupt(t *testing.T) {
	srv := startServer(t, 0)
	p := startPTY(t, srv.url, 120, "NO_COLOR=1")
	p.expect("sqlgym> ")
	p.line(".reset demo/library-001", "library[0/8]> ")
	p.send("SELECT 1" + enter)
	p.expect("...> ")
	p.waitRaw()
	p.send("FROM nowhere" + ctrlC)
	got := p.expect("library[0/8]> ")
	if !strings.Contains(got, "^C") {
		t.Errorf("Ctrl-C was not shown:\n%q", got)
	}
	got = p.line("SELECT 2 AS two;", "library[1/8]> ")
	if !strings.Contains(got, "two") || strings.Contains(got, "nowhere") {
		t.Errorf("the dropped statement ran, or the next did not:\n%q", got)
	}
	p.send(ctrlD)
	got = p.expect("(no_submit")
	if !strings.Contains(got, "closed episode ep_") {
		t.Errorf("Ctrl-D did not close the episode:\n%q", got)
	}
	p.exit()
}

// TestSGRColourPattern pins what counts as colour in the terminal tests.
func TestSGRColourPattern(t *testing.T) {
	for s, want := range map[string]bool{"\x1b[31merror": true, "\x1b[1;36mx": true, "\x1b[38;5;9m": true,
		"\x1b[36G": false, "\x1b[1G\x1b[0K": false, "\x1b[0m": false, "\x1b[1m": false} {
		if got := sgrColour.MatchString(s); got != want {
			t.Errorf("%q: coloured = %v, want %v", s, got, want)
		}
	}
}
