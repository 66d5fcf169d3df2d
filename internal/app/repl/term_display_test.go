package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalCompletion runs sqlgym repl at a terminal and completes
// with Tab: a dot command, a table after .schema, and in SQL a keyword,
// a column, a table after FROM and TABLE.column. With its own server the
// tables come from the database, read beside the episode; at a server
// elsewhere, from tasks.schema, right after the reset.
func TestTerminalCompletion(t *testing.T) {
	t.Run("own server", func(t *testing.T) {
		p := startRepl(t, 120, nil, "NO_COLOR=1")
		p.expect("sqlgym> ")
		p.send(".res" + tab + " demo/library-001" + enter)
		p.expect("library[0/8]> ")
		p.send(".sch" + tab + " boo" + tab + enter)
		got := p.expect("library[1/8]> ")
		if !strings.Contains(got, "Table books") {
			t.Errorf(".sch<Tab> boo<Tab> did not run .schema books:\n%q", got)
		}
		p.send("sel" + tab + " tit" + tab + " fr" + tab + " boo" + tab + " WHERE books.book" + tab + " = 1;" + enter)
		got = p.expect("library[2/8]> ")
		if !strings.Contains(got, " title\r\n") || !strings.Contains(got, "Things Fall Apart") {
			t.Errorf("the completed statement did not run:\n%q", got)
		}
		p.send(".quit" + enter)
		p.exit()
	})
	t.Run("server elsewhere", func(t *testing.T) {
		p := startReplElsewhere(t)
		p.send("SELECT count(*) AS n FROM boo" + tab + " WHERE publ" + tab + " < 1900;" + enter)
		got := p.expect("library[1/8]> ")
		if !strings.Contains(got, " n\r\n") || !strings.Contains(got, "(1 row") {
			t.Errorf("the statement completed right after the reset did not run:\n%q", got)
		}
		p.send(".quit" + enter)
		p.exit()
	})
}

// TestTerminalPager runs sqlgym repl at a terminal of 50 rows: a result
// taller than that goes through $PAGER, a short one does not, .pager off
// turns it off; a pager gets the terminal in its usual mode, and Ctrl-C
// there ends the pager, not the REPL.
func TestTerminalPager(t *testing.T) {
	const tall = "SELECT book_id FROM books ORDER BY book_id;" // 50 rows shown of 56
	t.Run("through the pager", func(t *testing.T) {
		p := startRepl(t, 120, nil, "NO_COLOR=1", "PAGER=sed 's/^/paged: /'")
		p.expect("sqlgym> ")
		p.line(".reset demo/library-001", "library[0/8]> ")
		got := p.line(tall, "library[1/8]> ")
		checkOutput(t, got, []string{"paged:  book_id", "paged:       50", "paged: (first 50 rows shown"}, nil)
		got = p.line("SELECT 1 AS one;", "library[2/8]> ")
		checkOutput(t, got, []string{" one"}, []string{"paged:"})
		got = p.command(".pager off", "library[2/8]> ")
		checkOutput(t, got, []string{"the pager is off"}, nil)
		got = p.line(tall, "library[3/8]> ")
		checkOutput(t, got, []string{" book_id", "(first 50 rows shown"}, []string{"paged:"})
		p.send(".quit" + enter)
		p.exit()
	})
	t.Run("a pager reading the terminal", func(t *testing.T) {
		p := startRepl(t, 120, nil, "NO_COLOR=1", "PAGER=cat >/dev/null; echo pager-waits; read x </dev/tty; echo pager-read-$x")
		p.expect("sqlgym> ")
		p.line(".reset demo/library-001", "library[0/8]> ")
		p.send(tall + enter)
		p.expect("pager-waits")
		p.send("hello" + enter)
		got := p.expect("library[1/8]> ")
		if !strings.Contains(got, "pager-read-hello") {
			t.Errorf("the pager did not read a line from the terminal:\n%q", got)
		}
		p.send(tall + enter)
		p.expect("pager-waits")
		p.send(ctrlC)
		got = p.expect("library[2/8]> ")
		if strings.Contains(got, "pager-read") {
			t.Errorf("Ctrl-C did not end the pager:\n%q", got)
		}
		p.line("SELECT 1 AS one;", "library[3/8]> ") // the REPL goes on
		p.send(".quit" + enter)
		p.expect("closed episode")
		p.exit()
	})
}

// TestTerminalVerticalAndExport runs sqlgym repl at a terminal of 60
// columns: \x shows rows as records, .vertical auto only when the table
// is wider than the terminal, and .csv and .json write the last result.
func TestTerminalVerticalAndExport(t *testing.T) {
	p := startRepl(t, 60, nil, "NO_COLOR=1")
	p.expect("sqlgym> ")
	p.line(".reset demo/library-001", "library[0/8]> ")
	got := p.command(`\x`, "library[0/8]> ")
	checkOutput(t, got, []string{"vertical display is on"}, nil)
	got = p.line("SELECT book_id, title FROM books WHERE book_id <= 2 ORDER BY book_id;", "library[1/8]> ")
	checkOutput(t, got, []string{"-[ RECORD 1 ]", "book_id | 1\r\n", "title   | Things Fall Apart\r\n",
		"-[ RECORD 2 ]", "title   | No Longer at Ease\r\n", "(2 rows, "}, nil)

	p.command(".vertical auto", "library[1/8]> ")
	got = p.line("SELECT book_id FROM books WHERE book_id = 1;", "library[2/8]> ")
	checkOutput(t, got, []string{" book_id\r\n", "       1\r\n"}, []string{"RECORD"})
	const wide = "SELECT title || ', ' || title || ', ' || title AS long, 'x,\"y\"' AS quoted, NULL AS none_here FROM books WHERE book_id = 1;"
	got = p.line(wide, "library[3/8]> ")
	checkOutput(t, got, []string{"-[ RECORD 1 ]", "long      | Things Fall Apart, Things Fall Apart, Things Fa…\r\n", "none_here | NULL\r\n"}, nil)

	file := filepath.Join(t.TempDir(), "last.csv")
	got = p.command(".csv "+file, "library[3/8]> ")
	checkOutput(t, got, []string{"wrote 1 row and its header to " + file + " as CSV"}, nil)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if want := "long,quoted,none_here\n\"Things Fall Apart, Things Fall Apart, Things Fall Apart\",\"x,\"\"y\"\"\",\n"; string(b) != want {
		t.Errorf(".csv wrote %q, want %q", b, want)
	}
	got = p.command(".json", "library[3/8]> ")
	checkOutput(t, got, []string{`{"columns": ["long","quoted","none_here"],`, ` "rows": [`,
		`  ["Things Fall Apart, Things Fall Apart, Things Fall Apart", "x,\"y\"", null]`, ` "truncated": false}`}, nil)
	p.send(".quit" + enter)
	p.exit()
}
