package repl

import (
	"strings"
	"testing"
)

// TestTerminalCommandAtContinuation runs sqlgym repl at a terminal: a
// word typed without ";" leaves the continuation prompt, and a dot
// command typed there runs, dropping the statement and saying so; Ctrl-C
// there clears what was typed; a line starting with "." inside a string
// stays part of the statement.
func TestTerminalCommandAtContinuation(t *testing.T) {
	p := startRepl(t, 120, nil, "NO_COLOR=1")
	p.expect("sqlgym> ")
	p.line(".reset demo/library-001", "library[0/8]> ")
	p.send("selec" + enter)
	p.expect("...> ")
	got := p.line(".tasks 1", "library[0/8]> ")
	for _, w := range []string{"dropped the statement being typed (no closing ;): selec", "demo/library-001", "(1 of 64 tasks)"} {
		if !strings.Contains(got, w) {
			t.Errorf("the command at the continuation prompt: output lacks %q:\n%q", w, got)
		}
	}

	p.send("SELECT 1 AS one" + enter)
	p.expect("...> ")
	p.waitRaw()
	p.send("FROM books" + ctrlC)
	got = p.expect("library[0/8]> ")
	if !strings.Contains(got, "the statement being typed was dropped") {
		t.Errorf("Ctrl-C at the continuation prompt did not say the statement was dropped:\n%q", got)
	}
	got = p.line("SELECT 2 AS two;", "library[1/8]> ")
	if !strings.Contains(got, " two\r\n----\r\n   2\r\n") || strings.Contains(got, "one") {
		t.Errorf("the statement after Ctrl-C did not run alone:\n%q", got)
	}

	p.send("SELECT 'a" + enter)
	p.expect("...> ")
	got = p.line(".b' AS s;", "library[2/8]> ")
	if !strings.Contains(got, " a\\n.b") {
		t.Errorf("a line starting with . inside a string was not part of the statement:\n%q", got)
	}

	p.send("oops" + enter)
	p.expect("...> ")
	p.send(".quit" + enter)
	p.expect("closed episode")
	p.exit()
}
