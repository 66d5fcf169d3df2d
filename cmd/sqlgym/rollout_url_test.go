package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/examples/demo"
	"github.com/sqlgym/sqlgym/internal/app/rollout"
)

// TestRolloutOnAServer runs sqlgym rollout with --url on a running
// sqlgym serve (with a token), and in process, on the same script: both
// write the same report.json; the server's store holds the episodes
// tagged {run, model, sample}; a second run with --url resumes from that
// store and plays nothing.
func TestRolloutOnAServer(t *testing.T) {
	clearAuthEnv(t)
	dir := t.TempDir()
	srvDir, inDir := filepath.Join(dir, "served"), filepath.Join(dir, "inproc")
	url := startServe(t, "--data-dir", srvDir, "--token", "sekret")
	args := func(model, dataDir, out string) []string {
		return []string{"rollout", "--model-url", model, "--model", "m1", "--tasks", "demo/library-001,demo/clinic-001",
			"--samples", "2", "--workers", "1", "--data-dir", dataDir, "--out", filepath.Join(dir, out), "--run", "r1"}
	}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args(scriptedModel(t), inDir, "out-in"), &stdout, &stderr); err != nil {
		t.Fatalf("rollout in process: %v\n%s", err, &stderr)
	}
	remote := append(args(scriptedModel(t), srvDir, "out-srv"), "--url", url, "--token", "sekret")
	if err := run(context.Background(), remote, &stdout, &stderr); err != nil {
		t.Fatalf("rollout --url: %v\n%s", err, &stderr)
	}
	in, srv := readReportJSON(t, filepath.Join(dir, "out-in")), readReportJSON(t, filepath.Join(dir, "out-srv"))
	if in["episodes"] != 4.0 || in["mean_accuracy"] != 0.5 || in["first_shot_accuracy"] != 0.5 {
		t.Errorf("in-process report %v, want 4 episodes, mean and first-shot 0.5", in)
	}
	dropFailedEpisodes(in) // each store names its episodes
	dropFailedEpisodes(srv)
	a, _ := json.Marshal(in)
	b, _ := json.Marshal(srv)
	if !bytes.Equal(a, b) {
		t.Errorf("rollout --url wrote\n%s\nin process\n%s", b, a)
	}
	checkRolloutTags(t, srvDir, 4)
	stderr.Reset()
	again := append(args("http://127.0.0.1:1/v1", srvDir, "out-srv"), "--url", url, "--token", "sekret")
	if err := run(context.Background(), again, &stdout, &stderr); err != nil || !strings.Contains(stderr.String(), "4 done before, 0 to play") {
		t.Errorf("second rollout --url: %v\n%s", err, &stderr)
	}
}

// checkRolloutTags checks that the store under dataDir holds n episodes
// of run r1, each tagged with the model m1 and a sample index.
func checkRolloutTags(t *testing.T, dataDir string, n int) {
	t.Helper()
	l, err := filelog.Open(filelog.LogDir(dataDir), filelog.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	samples := map[string]bool{}
	err = l.Episodes(context.Background(), trajlog.Filter{Incomplete: true}, func(r *trajlog.Record) error {
		var tags struct {
			Run, Model string
			Sample     *int
		}
		if json.Unmarshal(r.Tags, &tags) != nil || tags.Run != "r1" || tags.Model != "m1" || tags.Sample == nil {
			t.Errorf("episode %s has tags %s, want run r1, model m1 and a sample", r.EpisodeID, r.Tags)
			return nil
		}
		samples[fmt.Sprint(r.Task.TaskID, "#", *tags.Sample)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != n {
		t.Errorf("store holds %d distinct samples %v, want %d", len(samples), samples, n)
	}
}

// scriptedModel is an OpenAI-compatible endpoint playing two demo tasks
// with two samples each, requests coming one at a time (--workers
// 1): library-001 is submitted right (first shot), then wrong after an
// exploration; clinic-001 is explored with the gold query then submitted
// (first shot), then submitted wrong. Each conversation takes its task's
// next script on its first request.
func scriptedModel(t *testing.T) string {
	ds, err := demo.Load(context.Background(), t.TempDir(), sqlite.Build)
	if err != nil {
		t.Fatal(err)
	}
	scripts := map[string][][][2]string{}
	for _, s := range []struct {
		id      string
		samples [][][2]string
	}{
		{"demo/library-001", [][][2]string{{{"submit", ""}}, {{"execute_sql", "SELECT 1"}, {"submit", "SELECT -1"}}}},
		{"demo/clinic-001", [][][2]string{{{"execute_sql", ""}, {"submit", ""}}, {{"submit", "SELECT -1"}}}},
	} {
		task, _ := ds.Task(s.id)
		for _, calls := range s.samples {
			for i := range calls {
				if calls[i][1] == "" {
					calls[i][1] = task.GoldSQL
				}
			}
		}
		scripts[task.Question] = s.samples
	}
	var mu sync.Mutex
	var cur [][2]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req rollout.ChatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		turn := 0
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				turn++
			}
		}
		mu.Lock()
		if turn == 0 {
			q := taskOf(scripts, req)
			cur, scripts[q] = scripts[q][0], scripts[q][1:]
		}
		c := cur[turn]
		mu.Unlock()
		args, _ := json.Marshal(map[string]string{"sql": c[1]})
		json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"index": 0, "finish_reason": "tool_calls",
			"message": map[string]any{"role": "assistant", "content": nil, "tool_calls": []map[string]any{{"id": fmt.Sprint("c", turn),
				"type": "function", "function": map[string]string{"name": c[0], "arguments": string(args)}}}}}},
			"usage": map[string]int{"prompt_tokens": 40, "completion_tokens": 5}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// taskOf is the question, among the scripts', the request's prompt asks.
func taskOf[S any](scripts map[string]S, req rollout.ChatRequest) string {
	for q := range scripts {
		for _, m := range req.Messages {
			if m.Role == "user" && strings.Contains(m.Content, q) {
				return q
			}
		}
	}
	return ""
}
