package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalPeek runs sqlgym repl at a terminal: .peek reads the
// episode's database beside it, marked so, spending no turn and
// recording no step, under execute_sql's sandbox; it still reads the
// database once the episode has ended. At a server elsewhere it says it
// works only with the REPL's own server.
func TestTerminalPeek(t *testing.T) {
	dir := t.TempDir()
	p := startRepl(t, 120, []string{"--data-dir", dir}, "NO_COLOR=1")
	p.expect("sqlgym> ")
	p.line(".reset demo/library-001", "library[0/8]> ")
	got := p.command(".peek SELECT count(*) AS n FROM books", "library[0/8]> ")
	checkOutput(t, got, []string{"peek (beside the episode: no turn spent, nothing recorded, not seen by the model)", " n\r\n", " 56\r\n", "(1 row, "},
		[]string{"reward"})
	got = p.command(".peek SELECT nme FROM authors", "library[0/8]> ")
	checkOutput(t, got, []string{"peek (", "error [sql_error]: no such column: nme"}, []string{"reward"})
	got = p.command(".peek DELETE FROM books", "library[0/8]> ")
	checkOutput(t, got, []string{"peek (", "error [denied]"}, []string{"reward"})
	got = p.command(".trajectory", "library[0/8]> ")
	checkOutput(t, got, []string{"0 of 8 turns taken, live"}, nil)
	p.line(".submit SELECT count(*) FROM books JOIN authors USING (author_id) WHERE authors.name = 'Jane Austen'", "sqlgym> ")
	got = p.command(".peek SELECT count(*) AS n FROM authors", "sqlgym> ")
	checkOutput(t, got, []string{"peek (", " 23\r\n"}, nil)
	p.send(".quit" + enter)
	p.exit()

	p = startReplElsewhere(t)
	got = p.command(".peek SELECT 1", "library[0/8]> ")
	checkOutput(t, got, []string{".peek works only with the REPL's own server (sqlgym repl without --url)"}, []string{"peek (beside"})
	p.send(".quit" + enter)
	p.exit()
}

// TestTerminalMismatchDifference runs sqlgym repl at a terminal: with its
// own server, a MISMATCH shows how the result differs from the gold's
// (the shape of each, the first row that differs, in order when the gold
// orders its rows), which nothing records; at a server elsewhere, only
// where to see it.
func TestTerminalMismatchDifference(t *testing.T) {
	dir := t.TempDir()
	p := startRepl(t, 120, []string{"--data-dir", dir}, "NO_COLOR=1")
	p.expect("sqlgym> ")
	p.line(".reset demo/library-001", "library[0/8]> ")
	got := p.line(".submit SELECT name FROM authors WHERE name LIKE 'J%' ORDER BY name", "sqlgym> ")
	checkOutput(t, got, []string{"MISMATCH: the query ran, but its result differs from the gold's.",
		"how it differs from the gold (shown here only; the model's observation has none of it):",
		"  yours: 2 rows × 1 column (name)\r\n", "  gold:  1 row × 1 column (count(*))\r\n",
		"  first row of yours the gold lacks: #1 (J", "  first row of the gold yours lacks: #1 (4)\r\n", "Episode over"}, nil)

	p.send(".quit" + enter)
	p.exit()
	if raw := exportLines(t, dir); strings.Contains(raw, "lacks") || strings.Contains(raw, "differs from the gold") {
		t.Errorf("the difference was recorded:\n%s", raw)
	}

	spider := filepath.Join(t.TempDir(), "spider.json")
	if err := os.WriteFile(spider, []byte(`{"match": "spider"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p = startRepl(t, 120, []string{"--reward", spider}, "NO_COLOR=1")
	p.expect("sqlgym> ")
	p.line(".reset demo/library-002", "library[0/8]> ")
	got = p.line(".submit SELECT title, published_year FROM books WHERE published_year < 1900 ORDER BY published_year DESC", "sqlgym> ")
	checkOutput(t, got, []string{"MISMATCH", "  yours: ", " × 2 columns (title, published_year)",
		"  the gold orders its rows (ORDER BY); the first that differs is #1: yours ("}, []string{"lacks"})
	p.send(".quit" + enter)
	p.exit()

	p = startReplElsewhere(t)
	got = p.line(".submit SELECT 5", "sqlgym> ")
	checkOutput(t, got, []string{"MISMATCH", "(sqlgym repl without --url, on its own server, shows how a result differs from the gold's)"},
		[]string{"yours:", "lacks"})
	p.send(".quit" + enter)
	p.exit()
}
