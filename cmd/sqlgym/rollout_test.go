package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// submitOne is an OpenAI-compatible endpoint whose model submits
// "SELECT 1" on its first turn, as a native tool call.
func submitOne(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,` +
			`"tool_calls":[{"id":"c1","type":"function","function":{"name":"submit","arguments":"{\"sql\":\"SELECT 1\"}"}}]}}],` +
			`"usage":{"prompt_tokens":50,"completion_tokens":7}}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// TestRolloutThenReport runs sqlgym rollout on the demo, then sqlgym
// report on the same run: both write the same report.json, with the
// tokens of usage.jsonl; a second rollout with the run's name plays
// nothing.
func TestRolloutThenReport(t *testing.T) {
	dir := t.TempDir()
	out, out2 := filepath.Join(dir, "out"), filepath.Join(dir, "out2")
	args := []string{"rollout", "--model-url", submitOne(t), "--model", "m1", "--limit", "3", "--samples", "2",
		"--data-dir", dir, "--out", out, "--run", "r1"}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("rollout: %v\n%s", err, &stderr)
	}
	if n := strings.Count(stderr.String(), "/6 demo/"); n != 6 {
		t.Errorf("%d progress lines, want 6 in a pipe\n%s", n, &stderr)
	}
	first := readReportJSON(t, out)
	if first["episodes"] != 6.0 || first["tasks"] != 3.0 || first["run"] != "r1" || first["model"] != "m1" {
		t.Errorf("report.json: %v", first)
	}
	if tok := first["tokens"].(map[string]any); tok["completion"] != 42.0 {
		t.Errorf("tokens %v, want 42 completion tokens (6 requests of 7)", tok)
	}
	stderr.Reset()
	if err := run(context.Background(), args, &stdout, &stderr); err != nil || !strings.Contains(stderr.String(), "6 done before, 0 to play") {
		t.Fatalf("second rollout: %v\n%s", err, &stderr)
	}
	os.MkdirAll(out2, 0o755)
	rargs := []string{"report", "--data-dir", dir, "--run", "r1", "--out", out2, "--usage", filepath.Join(out, "usage.jsonl")}
	if err := run(context.Background(), rargs, &stdout, &stderr); err != nil {
		t.Fatalf("report: %v", err)
	}
	second := readReportJSON(t, out2)
	dropVote(first) // report without --dataset votes by SQL text
	dropVote(second)
	a, _ := json.Marshal(first)
	b, _ := json.Marshal(second)
	if !bytes.Equal(a, b) {
		t.Errorf("sqlgym report wrote\n%s\nrollout wrote\n%s", b, a)
	}
}

// dropVote removes sc_vote from a report.json and its breakdowns,
// no_table_read_check (without --dataset: by SQL text) and the failed
// tasks' expected_rows (without --dataset: not run).
func dropVote(rep map[string]any) {
	delete(rep, "sc_vote")
	delete(rep, "no_table_read_check")
	failed, _ := rep["failed_tasks"].([]any)
	for _, f := range failed {
		delete(f.(map[string]any), "expected_rows")
	}
	for _, by := range []string{"by_difficulty", "by_db"} {
		groups, _ := rep[by].(map[string]any)
		for _, g := range groups {
			delete(g.(map[string]any), "sc_vote")
		}
	}
}

func readReportJSON(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRolloutFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--model", "m"}, "--model-url and --model are required"},
		{[]string{"--model-url", "http://x/v1", "--model", "m", "--attempts", "2"}, "--attempts must be at least 3"},
		{[]string{"--model-url", "http://x/v1", "--model", "m", "--tool-calling", "json"}, "--tool-calling must be native or text"},
		{[]string{"--model-url", "http://x/v1", "--model", "m", "--teacher-hints", "gold"}, `unknown hint kind "gold"`},
		{[]string{"--model-url", "http://x/v1", "--model", "m", "--action-format", "tags"}, "--action-format is for --tool-calling text"},
		{[]string{"--model-url", "http://x/v1", "--model", "m", "--reconnect-timeout", "-1s"}, "--reconnect-timeout must be 0 (never reconnect) or more"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"rollout"}, tt.args...), &out, &out)
		if err == nil || !strings.Contains(err.Error(), tt.want) || exitCode(err) != 2 {
			t.Errorf("%v: error %v, want %q (exit 2)", tt.args, err, tt.want)
		}
	}
}

// TestRolloutFailuresExitNonZero runs sqlgym rollout against an
// endpoint that answers with an HTML page: every episode is closed
// early, too few for the run to stop, yet the command must fail (exit
// status 1) saying so, after writing the report of what was recorded.
func TestRolloutFailuresExitNonZero(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>Welcome to nginx!</body></html>"))
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	args := []string{"rollout", "--model-url", srv.URL + "/v1", "--model", "m1", "--limit", "2",
		"--data-dir", dir, "--out", out, "--run", "r1"}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), args, &stdout, &stderr)
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "2 episodes were closed early by a failure") {
		t.Fatalf("rollout: %v (exit %d), want exit 1 saying 2 episodes were closed early\n%s", err, exitCode(err), &stderr)
	}
	if rep := readReportJSON(t, out); rep["unfinished"] != 2.0 {
		t.Errorf("report.json: %v, want its 2 unfinished episodes", rep)
	}
}
