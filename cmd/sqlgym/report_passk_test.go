package main

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// rightOnce is an OpenAI-compatible endpoint whose model submits the
// gold the first time it is asked one of the questions given, and a
// wrong answer every other time.
func rightOnce(t *testing.T, golds map[string]string) string {
	var mu sync.Mutex
	asked := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		sql := "SELECT 0"
		mu.Lock()
		for q, gold := range golds {
			if bytes.Contains(body, []byte(q)) && !asked[q] {
				asked[q], sql = true, gold
			}
		}
		mu.Unlock()
		submitReply(w, sql)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// TestReportPassAtKUnequalSamples is the run: 20 tasks at 2
// samples, then 2 of them taken to 6, each of those 2 right once. The
// report gives pass@1 and pass@2 over the 20 tasks, worked out by hand,
// and no pass@3..6 (which the old report printed from the 2 tasks, up to
// pass@6 = 100%).
func TestReportPassAtKUnequalSamples(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	model := rightOnce(t, map[string]string{
		"titles by Jane Austen":    "SELECT count(*) FROM books AS b JOIN authors AS a ON a.author_id = b.author_id WHERE a.name = 'Jane Austen'",
		"book with the most pages": "SELECT title FROM books ORDER BY pages DESC LIMIT 1",
	})
	common := []string{"rollout", "--model-url", model, "--model", "m", "--data-dir", dir, "--out", out, "--run", "r", "--workers", "1"}
	var stdout, stderr bytes.Buffer
	for _, more := range [][]string{{"--limit", "20", "--samples", "2"}, {"--tasks", "demo/library-001,demo/library-005", "--samples", "6"}} {
		stdout.Reset()
		if err := run(context.Background(), append(common, more...), &stdout, &stderr); err != nil {
			t.Fatalf("rollout %v: %v\n%s", more, err, &stderr)
		}
	}
	// pass@1: two tasks of 6 samples with 1 correct, 1/6 each, over 20 tasks.
	// pass@2: 1 - C(5,2)/C(6,2) = 1 - 10/15 = 1/3 each, over 20 tasks.
	checkGroupReport(t, filepath.Join(out, "report.json"), map[string]any{"tasks": 20.0, "episodes": 48.0,
		"samples": 6.0, "min_samples": 2.0, "pass_at_k_tasks": map[string]any{"1": 20.0, "2": 20.0}})
	rep := readReportJSON(t, out)
	got, _ := rep["pass_at_k"].(map[string]any)
	want := map[string]float64{"1": (1.0 / 6 * 2) / 20, "2": (1.0 / 3 * 2) / 20}
	for k, w := range want {
		if g, _ := got[k].(float64); math.Abs(g-w) > 1e-12 || len(got) != len(want) {
			t.Errorf("pass_at_k %v, want %v", got, want)
		}
	}
	for _, want := range []string{"@1 1.7%  @2 3.3%  (k past 2 left out: fewer than half the tasks have that many samples)", "2 to 6\n"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, &stdout)
		}
	}
}
