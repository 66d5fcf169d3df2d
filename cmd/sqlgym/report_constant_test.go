package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// answersByQuestion is an OpenAI-compatible endpoint whose model submits,
// on its first turn, the SQL of the first question fragment found in the
// request.
func answersByQuestion(t *testing.T, answers [][2]string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		sql := "SELECT 0"
		for _, a := range answers {
			if bytes.Contains(body, []byte(a[0])) {
				sql = a[1]
				break
			}
		}
		submitReply(w, sql)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// submitReply writes a chat completion whose one tool call submits sql.
func submitReply(w http.ResponseWriter, sql string) {
	args, _ := json.Marshal(map[string]string{"sql": sql})
	call, _ := json.Marshal(map[string]any{"id": "c1", "type": "function",
		"function": map[string]string{"name": "submit", "arguments": string(args)}})
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,` +
		`"tool_calls":[` + string(call) + `]}}]}`))
}

// TestReportCountsConstantAnswers plays, on the demo, a constant that
// matches the gold (SELECT 4: library-001's count), a constant behind a
// FROM (SELECT 13 FROM (SELECT 1): library-003's) and a gold query
// (library-005), two samples each, under the binary reward (no
// table-read guard) and the default one (with it). The rollout's report,
// which judges again on the databases, counts and lists both constants;
// sqlgym report without --dataset finds them in the record under the
// guard, and only the one without FROM otherwise, and says so.
func TestReportCountsConstantAnswers(t *testing.T) {
	dir := t.TempDir()
	model := answersByQuestion(t, [][2]string{
		{"titles by Jane Austen", "SELECT 4"},
		{"loans are still out", "SELECT 13 FROM (SELECT 1)"},
		{"book with the most pages", "SELECT title FROM books ORDER BY pages DESC LIMIT 1"},
	})
	tasks := "demo/library-001,demo/library-003,demo/library-005"
	for _, tc := range []struct {
		reward                string
		offline               float64 // what report without --dataset counts
		offlineTasks          []string
		offlineCheck, saysHow string
	}{
		{"binary", 2, []string{"demo/library-001"}, "sql_text", "only a query without FROM is caught"},
		{"default", 4, []string{"demo/library-001", "demo/library-003"}, "sql_text", "only a query without FROM is caught"},
	} {
		out := filepath.Join(dir, tc.reward)
		var stdout, stderr bytes.Buffer
		args := []string{"rollout", "--model-url", model, "--model", "m", "--tasks", tasks, "--samples", "2",
			"--reward", tc.reward, "--data-dir", dir, "--out", out, "--run", tc.reward}
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("rollout: %v\n%s", err, &stderr)
		}
		checkConstants(t, "rollout --reward "+tc.reward, readReportJSON(t, out), 4,
			[]string{"demo/library-001", "demo/library-003"}, "tables_read")
		if !strings.Contains(stdout.String(), "4 of 6 correct episodes, in 2 tasks (judged again on the databases)") ||
			!strings.Contains(stdout.String(), "demo/library-001: 2, e.g. ") {
			t.Errorf("rollout --reward %s printed:\n%s", tc.reward, &stdout)
		}
		out2 := filepath.Join(dir, tc.reward+"-report")
		os.MkdirAll(out2, 0o755)
		stdout.Reset()
		if err := run(context.Background(), []string{"report", "--data-dir", dir, "--run", tc.reward, "--out", out2}, &stdout, &stderr); err != nil {
			t.Fatalf("report: %v\n%s", err, &stderr)
		}
		checkConstants(t, "report --run "+tc.reward, readReportJSON(t, out2), tc.offline, tc.offlineTasks, tc.offlineCheck)
		if !strings.Contains(stdout.String(), tc.saysHow) {
			t.Errorf("report --run %s does not say %q:\n%s", tc.reward, tc.saysHow, &stdout)
		}
	}
}

// checkConstants checks a report.json's count and list of correct
// answers that read no table, and how they were told.
func checkConstants(t *testing.T, name string, rep map[string]any, count float64, tasks []string, check string) {
	t.Helper()
	var got []string
	list, _ := rep["correct_no_table_read_tasks"].([]any)
	for _, c := range list {
		got = append(got, c.(map[string]any)["task_id"].(string))
	}
	if rep["correct_no_table_read"] != count || strings.Join(got, ",") != strings.Join(tasks, ",") ||
		rep["no_table_read_check"] != check || rep["mean_accuracy"] != 1.0 {
		t.Errorf("%s: %v correct reading no table in %v by %v (mean %v); want %v in %v by %s, all correct",
			name, rep["correct_no_table_read"], got, rep["no_table_read_check"], rep["mean_accuracy"], count, tasks, check)
	}
}
