package repl

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalReplayKeepsTools records an episode that used search_values
// with sqlgym repl at a terminal, then replays it in another REPL: on a
// server offering more tools, the replay offers the recorded ones, so the
// prompt and every step reproduce; on a server without search_values it
// says so and sends nothing. The REPL's episodes carry origin=repl, which
// sqlgym export --exclude-tag leaves out.
func TestTerminalReplayKeepsTools(t *testing.T) {
	recorded := t.TempDir()
	p := startRepl(t, 120, []string{"--data-dir", recorded, "--tools", "inspect_schema,execute_sql,search_values"}, "NO_COLOR=1")
	p.expect("sqlgym> ")
	p.line(".reset demo/library-001", "library[0/8]> ")
	got := p.line(".search jane austin", "library[1/8]> ")
	if !strings.Contains(got, "authors.name = 'Jane Austen'") {
		t.Fatalf(".search found nothing:\n%s", got)
	}
	p.line(".submit SELECT count(*) FROM books JOIN authors USING (author_id) WHERE authors.name = 'Jane Austen'", "sqlgym> ")
	p.send(".quit" + enter)
	p.exit()

	again := t.TempDir()
	p = startRepl(t, 120, []string{"--data-dir", again, "--tools", "inspect_schema,execute_sql,search_values,describe_column"}, "NO_COLOR=1")
	p.expect("sqlgym> ")
	p.send(".replay " + recorded + enter)
	got = p.expect("Enter sends it, q stops> ")
	if !strings.Contains(got, "same prompt as recorded") || !strings.Contains(got, "step 1/2: search_values") {
		t.Errorf("the replay's reset did not reproduce the prompt:\n%s", got)
	}
	p.send(enter)
	p.expect("step 2/2: submit")
	p.expect("Enter sends it, q stops> ")
	got = p.line("", "sqlgym> ")
	if strings.Contains(got, "DIFFERS") || !strings.Contains(got, "replay: 2 of 2 steps sent, 0 differ; recorded outcome correct") {
		t.Errorf("the replay did not reproduce the episode:\n%s", got)
	}
	p.send(".quit" + enter)
	p.exit()

	p = startRepl(t, 120, nil, "NO_COLOR=1")
	p.expect("sqlgym> ")
	got = p.command(".replay "+recorded, "sqlgym> ")
	checkOutput(t, got, []string{"the recorded episode offered search_values, which this server has not enabled (it offers inspect_schema, execute_sql, submit): nothing was sent",
		"a server started with --tools inspect_schema,execute_sql,search_values replays it"}, []string{"DIFFERS", "step 1/2", "episode ep_"})
	p.send(".quit" + enter)
	p.exit()

	for _, dir := range []string{recorded, again} {
		if recs := exportRaw(t, dir); len(recs) != 1 || recs[0]["origin"] != "repl" {
			t.Errorf("%s: the REPL's episodes carry tags %v, want one with origin=repl", dir, recs)
		}
		if recs := exportRaw(t, dir, "--exclude-tag", "origin=repl"); len(recs) != 0 {
			t.Errorf("%s: export --exclude-tag origin=repl kept %v", dir, recs)
		}
	}
}

// exportRaw runs sqlgym export --format raw on the log in dataDir and
// returns each record's tags.
func exportRaw(t *testing.T, dataDir string, args ...string) []map[string]string {
	t.Helper()
	var tags []map[string]string
	sc := bufio.NewScanner(strings.NewReader(exportLines(t, dataDir, args...)))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec struct {
			Tags map[string]string `json:"tags"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		tags = append(tags, rec.Tags)
	}
	return tags
}

// exportLines runs sqlgym export --format raw on the log in dataDir and
// returns the records it wrote, a line each.
func exportLines(t *testing.T, dataDir string, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "raw.jsonl")
	cmd := exec.Command(sqlgymBinary(t), append([]string{"export", "--data-dir", dataDir, "--format", "raw", "--out", out}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("export: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTerminalServerGone runs sqlgym repl at a terminal against sqlgym
// serve, kills the server, and brings it back on the same address: the
// REPL says in one line that the server went away, keeps the session,
// and connects again once the server is back.
func TestTerminalServerGone(t *testing.T) {
	addr, dir := freeAddr(t), t.TempDir()
	srv := startServe(t, addr, dir)
	p := startRepl(t, 120, []string{"--url", srv.URL}, "NO_COLOR=1")
	p.expect("sqlgym> ")
	p.line(".reset demo/library-001", "library[0/8]> ")
	srv.Kill()

	got := p.command("SELECT 1 AS one;", "library[0/8]> ")
	if lines := nonBlankLines(got); len(lines) != 2 || !strings.Contains(lines[0], "the server went away (") {
		t.Errorf("the REPL did not say in one line that the server went away:\n%q", got)
	}
	got = p.command(".tasks 1", "library[0/8]> ")
	if !strings.Contains(got, "the server still does not answer") {
		t.Errorf(".tasks with the server gone:\n%q", got)
	}
	got = p.command(".help", "library[0/8]> ")
	if !strings.Contains(got, ".tasks [dataset] [n]") {
		t.Errorf(".help with the server gone:\n%q", got)
	}

	startServe(t, addr, dir)
	got = p.command(".tasks 1", "library[0/8]> ")
	for _, w := range []string{"connected to " + srv.URL + " again", "demo/library-001", "(1 of 64 tasks)"} {
		if !strings.Contains(got, w) {
			t.Errorf("the REPL did not connect again (no %q):\n%q", w, got)
		}
	}
	got = p.line("SELECT 1 AS one;", "sqlgym> ")
	if !strings.Contains(got, "the server no longer has this episode") {
		t.Errorf("the restarted server's answer about the old episode:\n%q", got)
	}
	p.line(".reset demo/library-002", "library[0/8]> ")
	p.send(".quit" + enter)
	p.expect("closed episode")
	p.exit()
}

// nonBlankLines are the lines of terminal output that show text, the
// terminal's escape sequences left out.
func nonBlankLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(ansi.ReplaceAllString(out, ""), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}
