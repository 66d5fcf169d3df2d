package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRolloutChecksItsEndpointFirst: a rollout whose model endpoint does
// not answer, refuses the key, or does not serve the model fails at once,
// naming what is wrong, and records no episode (it used to record every
// sample as closed early).
func TestRolloutChecksItsEndpointFirst(t *testing.T) {
	clearAuthEnv(t)
	dead := deadURL(t)
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer refusing.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"object":"list","data":[{"id":"qwen"},{"id":"llama"}]}`))
	}))
	defer other.Close()
	for _, tc := range []struct{ name, url, want string }{
		{"wrong port", dead + "/v1", "does not answer"},
		{"key refused", refusing.URL + "/v1", "refused the API key"},
		{"model not served", other.URL + "/v1", `does not serve model "m1"; it serves qwen, llama`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{"rollout", "--model-url", tc.url, "--model", "m1", "--tasks", "demo/library-001",
				"--samples", "2", "--data-dir", dir, "--out", filepath.Join(dir, "out"), "--run", "r1"}, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nothing was played") {
				t.Fatalf("rollout: %v, want an error saying %q\n%s", err, tc.want, &stderr)
			}
			if n := countEpisodes(t, dir); n != 0 {
				t.Errorf("%d episodes recorded, want none", n)
			}
			if _, err := os.Stat(filepath.Join(dir, "out")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the failed rollout left its run folder --out behind (stat: %v)", err)
			}
		})
	}
}

// deadURL is the URL of a port nothing listens on.
func deadURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// countEpisodes counts the trajectory segments' episode ends under dir:
// any file of the log that holds an "end" line.
func countEpisodes(t *testing.T, dir string) int {
	n := 0
	filepath.Walk(filepath.Join(dir, "trajectories"), func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(path, ".log") {
			b, _ := os.ReadFile(path)
			n += bytes.Count(b, []byte(`"episode_id"`))
		}
		return nil
	})
	return n
}
