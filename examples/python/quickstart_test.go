package python_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
)

// fence is one fenced block of the README: its language and its lines,
// the list item's indentation taken off.
type fence struct {
	lang  string
	lines []string
}

// quickStart reads the fenced blocks of README.md's Quick start, in order.
func quickStart(t *testing.T) []fence {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Quick start\n")
	if !ok {
		t.Fatal("README.md has no Quick start section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var out []fence
	var cur *fence
	indent := ""
	for _, line := range strings.Split(section, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			indent = line[:len(line)-len(trimmed)]
			cur = &fence{lang: strings.TrimPrefix(trimmed, "```")}
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, strings.TrimPrefix(line, indent))
		}
	}
	return out
}

// quickAddr is the address the Quick start's commands name; the test's
// server listens where the kernel says, and the commands and outputs
// are read with its address in place of this one.
const quickAddr = "127.0.0.1:8765"

// TestQuickStartAsWritten runs README.md's Quick start as written, in
// order, from the repository's root: step 1's `go run ./cmd/sqlgym serve`
// in the background (on a free port, SQLGYM_ADDR, and a temporary data
// dir, SQLGYM_DATA_DIR: the README's flags as environment variables),
// then each command after it, with step 1's server still running, each
// checked to succeed and to print what the README shows after it. The
// REPL's session is typed on its standard input (with --echo, so that
// the output reads as the README's transcript); the Python block runs in
// the virtual environment the README's install makes (no package index).
// `go run ./cmd/sqlgym` is the binary go build makes of the same package,
// built once.
func TestQuickStartAsWritten(t *testing.T) {
	py := python3(t)
	bin := binserver.Build(t)
	blocks := quickStart(t)
	if len(blocks) < 2 || blocks[0].lang != "sh" || len(blocks[0].lines) != 1 || !strings.HasSuffix(blocks[0].lines[0], " serve") {
		t.Fatalf("the Quick start does not begin with the serve command in a sh block: %+v", blocks)
	}
	q := &quick{t: t, bin: bin, venv: filepath.Join(t.TempDir(), "venv"), pyDir: filepath.Dir(py)}
	q.serve(blocks[0].lines[0], blocks[1])
	ran := 1
	for i := 2; i < len(blocks); i++ {
		b := blocks[i]
		var want *fence
		if i+1 < len(blocks) && blocks[i+1].lang == "text" {
			want = &blocks[i+1]
			i++
		}
		switch b.lang {
		case "sh":
			for _, cmd := range b.lines {
				q.shell(cmd, want)
				ran++
			}
		case "python":
			q.python(strings.Join(b.lines, "\n"), want)
			ran++
		default:
			t.Errorf("a %q block without a command before it in the Quick start", b.lang)
		}
	}
	if ran < 4 { // serve, repl, pip install, the Python block
		t.Errorf("ran %d of the Quick start's commands, want at least 4", ran)
	}
}

// quick runs the Quick start's commands.
type quick struct {
	t     *testing.T
	bin   string // cmd/sqlgym, built
	addr  string // where step 1's server listens
	data  string // its data dir
	venv  string // the README's .venv, in a temporary folder
	pyDir string // the folder of the python3 the machine has
}

// text is cmd (or a README output) with the test's places in the
// README's: the built binary, the server's address, the venv.
func (q *quick) text(s string) string {
	s = strings.ReplaceAll(s, "go run ./cmd/sqlgym", q.bin)
	s = strings.ReplaceAll(s, quickAddr, q.addr)
	return strings.ReplaceAll(s, ".venv", q.venv)
}

// command is bash running cmd from the repository's root.
func (q *quick) command(ctx context.Context, cmd string) *exec.Cmd {
	c := exec.CommandContext(ctx, "bash", "-c", q.text(cmd))
	c.Dir = "../.."
	c.Env = append(withoutSqlgymVars(os.Environ()), "SQLGYM_DATA_DIR="+q.data, "PATH="+q.pyDir+":"+os.Getenv("PATH"),
		"PIP_NO_INDEX=1", "PIP_DISABLE_PIP_VERSION_CHECK=1", "PYTHONDONTWRITEBYTECODE=1")
	return c
}

// serve starts step 1's server in the background and waits until it has
// printed every line want shows; the server is stopped when the test ends.
func (q *quick) serve(cmd string, want fence) {
	t := q.t
	q.addr, q.data = "127.0.0.1:0", t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	c := q.command(ctx, "exec "+cmd) // the server itself gets the signal that stops it
	c.Env = append(c.Env, "SQLGYM_ADDR=127.0.0.1:0")
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		done <- c.Wait()
	}()
	t.Cleanup(func() {
		c.Process.Signal(os.Interrupt)
		for range lines {
		}
		if err := <-done; err != nil {
			t.Errorf("%s stopped with %v\n%s", cmd, err, &stderr)
		}
		cancel()
	})
	first := regexp.MustCompile(`ws://(127\.0\.0\.1:\d+)/v1/ws`)
	var got []string
	deadline := time.After(5 * time.Minute)
	for pending := want.lines; len(pending) > 0; {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("%s exited before printing %q:\n%s\n%s", cmd, pending[0], strings.Join(got, "\n"), &stderr)
			}
			got = append(got, line)
			if m := first.FindStringSubmatch(line); m != nil && q.addr == "127.0.0.1:0" {
				q.addr = m[1]
			}
			if matches(q.text(pending[0]), line) {
				pending = pending[1:]
			}
		case <-deadline:
			t.Fatalf("%s did not print %q within 5 minutes:\n%s\n%s", cmd, pending[0], strings.Join(got, "\n"), &stderr)
		}
	}
	go func() { // the rest of what it prints
		for range lines {
		}
	}()
}

// prompt is the start of a REPL transcript's input line.
var prompt = regexp.MustCompile(`^(sqlgym|[a-z_]+\[\d+/\d+\])> `)

// shell runs one command to its end and checks it printed want: a REPL
// transcript (its input lines typed, its output the transcript line for
// line), or lines that appear in its output in order.
func (q *quick) shell(cmd string, want *fence) {
	t := q.t
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	transcript := want != nil && len(want.lines) > 0 && prompt.MatchString(want.lines[0])
	c := q.command(ctx, cmd)
	if transcript {
		c = q.command(ctx, cmd+" --echo")
		var in strings.Builder
		for _, l := range want.lines {
			if p := prompt.FindString(l); p != "" {
				in.WriteString(q.text(strings.TrimPrefix(l, p)) + "\n")
			}
		}
		c.Stdin = strings.NewReader(in.String())
	}
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	got := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	switch {
	case transcript:
		if len(got) != len(want.lines) {
			t.Errorf("%s printed %d lines, the README's transcript has %d:\n%s", cmd, len(got), len(want.lines), out)
		}
		for i := range min(len(got), len(want.lines)) {
			if !matches(q.text(want.lines[i]), got[i]) {
				t.Errorf("%s: line %d is %q, the README shows %q", cmd, i+1, got[i], want.lines[i])
			}
		}
	case want != nil:
		checkInOrder(t, cmd, q.text, want.lines, got)
	}
}

// python runs code with the virtual environment's python and checks it
// printed want's lines in order.
func (q *quick) python(code string, want *fence) {
	t := q.t
	c := exec.Command(filepath.Join(q.venv, "bin", "python"), "-")
	c.Dir = t.TempDir()
	c.Stdin = strings.NewReader(q.text(code))
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("the Quick start's Python: %v\n%s", err, out)
	}
	if want == nil {
		t.Fatal("the Quick start's Python block shows no output after it")
	}
	checkInOrder(t, "the Quick start's Python", q.text, want.lines, strings.Split(strings.TrimRight(string(out), "\n"), "\n"))
}

// checkInOrder checks that each of want's lines matches a line of got,
// in order.
func checkInOrder(t *testing.T, what string, text func(string) string, want, got []string) {
	t.Helper()
	i := 0
	for _, g := range got {
		if i < len(want) && matches(text(want[i]), g) {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("%s did not print %q (the README shows it):\n%s", what, want[i], strings.Join(got, "\n"))
	}
}

// matches reports whether line is the README's line want, where "..."
// in want stands for any text.
func matches(want, line string) bool {
	parts := strings.Split(want, "...")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(strings.TrimRight(line, " "))
}
