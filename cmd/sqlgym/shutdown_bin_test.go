package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// probe GETs url and returns its status and body.
func probe(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// readiness GETs /readyz and decodes its body.
func readiness(t *testing.T, base string) (int, transport.Readiness) {
	t.Helper()
	code, body := probe(t, base+"/readyz")
	var r transport.Readiness
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("/readyz body %q: %v", body, err)
	}
	return code, r
}

// failing returns the named check's error in r, and whether it failed.
func failing(r transport.Readiness, name string) (string, bool) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c.Error, !c.OK
		}
	}
	return "", false
}

// hasCheck reports whether checks has one named name.
func hasCheck(checks []transport.CheckResult, name string) bool {
	for _, c := range checks {
		if c.Name == name {
			return true
		}
	}
	return false
}

// terminatedWithLiveEpisode starts the real server on dataDir with the
// given --shutdown-grace, checks that it is ready, starts an episode over
// a client (closed with the test) and sends the server SIGTERM while that
// episode is live.
func terminatedWithLiveEpisode(t *testing.T, dataDir, grace string) (*binserver.Process, *client.Client, *schemas.ResetResult) {
	t.Helper()
	p := binserver.Start(t, binserver.Build(t), "--data-dir", dataDir, "--shutdown-grace", grace)
	if code, r := readiness(t, p.HTTP()); code != http.StatusOK || !r.Ready {
		t.Fatalf("/readyz before SIGTERM: %d %+v", code, r)
	}
	ctx := context.Background()
	c, err := client.Dial(ctx, p.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ep, err := c.Reset(ctx, schemas.ResetParams{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	return p, c, ep
}

// TestSIGTERMDrains: a real server told to stop answers /readyz 503 at
// once while /livez and /healthz stay 200, refuses a new episode with
// -32006 (and OpenEnv's reset with 503), keeps stepping the episode a
// client has live, and stops once that episode has ended.
func TestSIGTERMDrains(t *testing.T) {
	p, c, ep := terminatedWithLiveEpisode(t, t.TempDir(), "10m")
	base := p.HTTP()
	ctx := context.Background()
	waitfor.Until(t, "/readyz answers 503", func() bool { code, _ := probe(t, base+"/readyz"); return code == http.StatusServiceUnavailable })
	code, r := readiness(t, base)
	if why, bad := failing(r, "draining"); code != http.StatusServiceUnavailable || r.Ready || !bad || !strings.Contains(why, "shutting down") {
		t.Fatalf("/readyz while draining: %d %+v", code, r)
	}
	for _, path := range []string{"/livez", "/healthz"} {
		if code, body := probe(t, base+path); code != http.StatusOK {
			t.Fatalf("%s while draining: %d %s", path, code, body)
		}
	}
	step, err := c.Step(ctx, ep.EpisodeID, client.ToolCall("execute_sql", map[string]any{"sql": "SELECT 1"}))
	if err != nil || step.Terminated || step.Truncated {
		t.Fatalf("step of the live episode while draining: %+v, %v", step, err)
	}
	_, err = c.Reset(ctx, schemas.ResetParams{})
	var rpcErr *schemas.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != schemas.CodeDraining || !strings.Contains(rpcErr.Message, "shutting down") {
		t.Fatalf("reset while draining: want -32006 saying the server is shutting down, got %v", err)
	}
	resp, err := http.Post(base+"/openenv/reset", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "shutting down") {
		t.Fatalf("OpenEnv reset while draining: %d %s", resp.StatusCode, body)
	}
	if _, err := c.CloseEpisode(ctx, ep.EpisodeID); err != nil {
		t.Fatal(err)
	}
	// The last live episode has ended: the server stops without waiting
	// for the grace (a second SIGTERM would end it at once instead).
	if !p.WaitLog("INFO\tstopped") {
		t.Fatalf("the server did not stop once its last episode ended\n%s", p.Stderr)
	}
}

// TestReadyzNamesAGoneDatabase: a replica whose SQLite file is removed
// under it is not ready, and /readyz says which file, while /livez stays
// 200.
func TestReadyzNamesAGoneDatabase(t *testing.T) {
	dir := t.TempDir()
	p := binserver.Start(t, binserver.Build(t), "--data-dir", dir, "--ready-interval", "1ms")
	files, err := filepath.Glob(filepath.Join(dir, "demo", "*.sqlite"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the demo's files under %s: %v %v", dir, files, err)
	}
	if code, r := readiness(t, p.HTTP()); code != http.StatusOK || !r.Ready {
		t.Fatalf("/readyz: %d %+v", code, r)
	}
	if err := os.Remove(files[0]); err != nil {
		t.Fatal(err)
	}
	waitfor.Until(t, "/readyz answers 503", func() bool {
		code, _ := probe(t, p.HTTP()+"/readyz")
		return code == http.StatusServiceUnavailable
	})
	_, r := readiness(t, p.HTTP())
	if why, bad := failing(r, "dataset:demo"); !bad || !strings.Contains(why, filepath.Base(files[0])) {
		t.Fatalf("/readyz does not name %s: %+v", files[0], r)
	}
	if code, _ := probe(t, p.HTTP()+"/livez"); code != http.StatusOK {
		t.Fatalf("/livez: %d", code)
	}
}

// TestGraceEndsLiveEpisodesAbandoned: an episode still live when the
// drain's grace has passed is ended as abandoned and recorded in the
// trajectory log, and the server stops.
func TestGraceEndsLiveEpisodesAbandoned(t *testing.T) {
	dir := t.TempDir()
	p, _, ep := terminatedWithLiveEpisode(t, dir, "1s")
	ctx := context.Background()
	if !p.WaitLog("INFO\tstopped") {
		t.Fatalf("the server did not stop after its grace\n%s", p.Stderr)
	}
	p.Kill() // gone by itself: waits for the exit, which frees the log's lock
	log, err := filelog.Open(filelog.LogDir(dir), filelog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	var outcome string
	err = log.Episodes(ctx, trajlog.Filter{}, func(r *trajlog.Record) error {
		if r.EpisodeID == ep.EpisodeID {
			outcome = r.Outcome
		}
		return nil
	})
	if err != nil || outcome != "abandoned" {
		t.Fatalf("episode %s recorded with outcome %q (%v), want abandoned", ep.EpisodeID, outcome, err)
	}
}
