package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Golds of demo tasks, and a wrong answer to any of them.
const (
	goldLib001 = "SELECT count(*) FROM books AS b JOIN authors AS a ON a.author_id = b.author_id WHERE a.name = 'Jane Austen'"
	goldLib002 = "SELECT title, published_year FROM books WHERE published_year < 1900 ORDER BY published_year"
	goldLib003 = "SELECT count(*) FROM loans WHERE return_date IS NULL"
	goldLib004 = "SELECT name FROM members WHERE city IS NULL"
	goldLib005 = "SELECT title FROM books ORDER BY pages DESC LIMIT 1"
	goldLib006 = "SELECT g.name, count(*) FROM books AS b JOIN genres AS g ON g.genre_id = b.genre_id GROUP BY g.genre_id, g.name"
	wrong      = "SELECT 0"
)

// Question fragments of the demo tasks library-001 to 006.
var libQuestion = map[string]string{
	"demo/library-001": "titles by Jane Austen", "demo/library-002": "published before 1900",
	"demo/library-003": "loans are still out", "demo/library-004": "no city on file",
	"demo/library-005": "book with the most pages", "demo/library-006": "For each genre",
}

// scripted is an OpenAI-compatible endpoint whose model answers each
// task (by its question) with the next call of the task's script, the
// last one again once the script runs out: "submit SQL" or
// "execute_sql SQL".
func scripted(t *testing.T, scripts map[string][]string) string {
	var mu sync.Mutex
	asked := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		reply := "submit " + wrong
		mu.Lock()
		for task, script := range scripts {
			if bytes.Contains(body, []byte(libQuestion[task])) {
				reply = script[min(asked[task], len(script)-1)]
				asked[task]++
			}
		}
		mu.Unlock()
		tool, sql, _ := strings.Cut(reply, " ")
		toolReply(w, tool, sql)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// toolReply writes a chat completion whose one tool call sends sql to tool.
func toolReply(w http.ResponseWriter, tool, sql string) {
	args, _ := json.Marshal(map[string]string{"sql": sql})
	call, _ := json.Marshal(map[string]any{"id": "c1", "type": "function",
		"function": map[string]string{"name": tool, "arguments": string(args)}})
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,` +
		`"tool_calls":[` + string(call) + `]}}]}`))
}

// rolloutRun plays a run of the scripts' tasks, samples each, recording
// into dir.
func rolloutRun(t *testing.T, dir, name, samples string, scripts map[string][]string, more ...string) *bytes.Buffer {
	t.Helper()
	var tasks []string
	for task := range scripts {
		tasks = append(tasks, task)
	}
	args := append([]string{"rollout", "--model-url", scripted(t, scripts), "--model", "m-" + name, "--tasks", strings.Join(tasks, ","),
		"--samples", samples, "--data-dir", dir, "--out", filepath.Join(dir, name), "--run", name}, more...)
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("rollout %s: %v\n%s", name, err, &stderr)
	}
	return &stdout
}

// TestReportListsFailedTasks plays a mismatch of the gold's row count, a
// mismatch of another count, a query that fails, an episode that only
// runs queries until its turns run out, and a correct answer. The
// rollout's report (which has the databases) and sqlgym report (which
// does not: no expected rows) list the four failed tasks with their last
// SQL and what came of it, in report.json and in the terminal.
func TestReportListsFailedTasks(t *testing.T) {
	dir := t.TempDir()
	stdout := rolloutRun(t, dir, "f", "1", map[string][]string{
		"demo/library-001": {"submit " + wrong},
		"demo/library-002": {"submit " + wrong},
		"demo/library-003": {"submit SELECT nope FROM loans"},
		"demo/library-004": {"execute_sql SELECT name FROM members"},
		"demo/library-005": {"submit " + goldLib005},
	}, "--max-turns", "2")
	want := []map[string]any{
		{"task_id": "demo/library-001", "episodes": 1.0, "failed": 1.0, "outcome": "mismatch", "sql": wrong, "sql_tool": "submit",
			"rows": 1.0, "expected_rows": 1.0},
		{"task_id": "demo/library-002", "episodes": 1.0, "failed": 1.0, "outcome": "mismatch", "sql": wrong, "sql_tool": "submit",
			"rows": 1.0, "expected_rows": 7.0},
		{"task_id": "demo/library-003", "episodes": 1.0, "failed": 1.0, "outcome": "pred_error", "sql": "SELECT nope FROM loans",
			"sql_tool": "submit", "error": "sql_error: no such column: nope"},
		{"task_id": "demo/library-004", "episodes": 1.0, "failed": 1.0, "outcome": "no_submit", "sql": "SELECT name FROM members",
			"sql_tool": "execute_sql"},
	}
	checkFailed(t, "rollout", readReportJSON(t, filepath.Join(dir, "f")), want)
	for _, line := range []string{
		"failed tasks: 4 of 5 (4 never right), by their last failing episode\n",
		"demo/library-001  mismatch    1 of 1  1 row as expected: values or order differ  SELECT 0\n",
		"demo/library-002  mismatch    1 of 1  1 row, 7 expected                          SELECT 0\n",
		"demo/library-003  pred_error  1 of 1  sql_error: no such column: nope            SELECT nope FROM loans\n",
		"demo/library-004  no_submit   1 of 1  submitted nothing                          (execute_sql) SELECT name FROM members\n",
	} {
		if !strings.Contains(stdout.String(), line) {
			t.Errorf("rollout's report lacks %q:\n%s", line, stdout)
		}
	}
	out := filepath.Join(dir, "offline")
	var rout bytes.Buffer
	if err := run(context.Background(), []string{"report", "--data-dir", dir, "--run", "f", "--out", out}, &rout, &rout); err != nil {
		t.Fatalf("report: %v\n%s", err, &rout)
	}
	for _, w := range want[:2] {
		delete(w, "expected_rows") // no databases: the gold is not run
	}
	checkFailed(t, "report", readReportJSON(t, out), want)
	if !hasWords(rout.String(), "demo/library-002 mismatch 1 of 1 1 row SELECT 0 demo/library-003") {
		t.Errorf("sqlgym report's list:\n%s", &rout)
	}
}

// checkFailed checks report.json's failed tasks against want (each
// entry's named fields, and an episode id).
func checkFailed(t *testing.T, name string, rep map[string]any, want []map[string]any) {
	t.Helper()
	got, _ := rep["failed_tasks"].([]any)
	if len(got) != len(want) {
		t.Fatalf("%s: %d failed tasks, want %d: %v", name, len(got), len(want), rep["failed_tasks"])
	}
	for i, w := range want {
		g := got[i].(map[string]any)
		if id, _ := g["episode_id"].(string); id == "" {
			t.Errorf("%s: failed task %d names no episode: %v", name, i, g)
		}
		delete(g, "episode_id")
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(w)
		if !bytes.Equal(gj, wj) {
			t.Errorf("%s: failed task %d\n%s\nwant\n%s", name, i, gj, wj)
		}
	}
}

// dropFailedEpisodes removes the episode ids of a report.json's failed
// tasks.
func dropFailedEpisodes(rep map[string]any) {
	failed, _ := rep["failed_tasks"].([]any)
	for _, f := range failed {
		delete(f.(map[string]any), "episode_id")
	}
}

// hasWords reports whether text holds line's words in a row, however
// the tables spaced them.
func hasWords(text, line string) bool {
	return strings.Contains(strings.Join(strings.Fields(text), " "), strings.Join(strings.Fields(line), " "))
}
