package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/examples/demo"
)

// TestConsoleOverServeAndALog plays episodes on sqlgym serve, finds them
// on the console it carries under /ui, writes the run's report as web
// pages with report --html, and serves the log read-only with sqlgym
// console once serve has stopped.
func TestConsoleOverServeAndALog(t *testing.T) {
	clearAuthEnv(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wsURL := startServe(t, "--data-dir", dir)
	ds, err := demo.Load(context.Background(), t.TempDir(), sqlite.Build)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := ds.Task("demo/library-001")
	playAll(t, wsURL, []play{{`{"run":"web"}`, a.ID, []string{a.GoldSQL}}, {`{"run":"web"}`, a.ID, []string{"SELECT -1"}}})
	base := "http://" + strings.TrimSuffix(strings.TrimPrefix(wsURL, "ws://"), "/v1/ws")
	if body := httpGet(t, base+"/ui/episodes?tags=run%3Dweb"); !strings.Contains(body, "1–2 of 2 episodes") {
		t.Fatalf("serve's console lists no run web:\n%s", body)
	}
	out := filepath.Join(t.TempDir(), "html")
	var stdout bytes.Buffer
	if err := run(ctx, []string{"report", "--data-dir", dir, "--run", "web", "--html", out}, &stdout, &stdout); err != nil {
		t.Fatalf("report --html: %v\n%s", err, &stdout)
	}
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil || !strings.Contains(string(page), `<rect class="bar a"`) || !strings.Contains(stdout.String(), "web report: ") {
		t.Fatalf("report --html: %v, no bar drawn or no path printed:\n%s", err, &stdout)
	}
	con := &signalWriter{ready: make(chan struct{}), want: "/ui/\n"}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"console", "--data-dir", dir, "--addr", "127.0.0.1:0"}, con, io.Discard)
	}()
	select {
	case <-con.ready:
	case err := <-done:
		t.Fatalf("console: %v", err)
	}
	con.mu.Lock()
	addr := regexp.MustCompile(`console on (http://\S+)/ui/`).FindStringSubmatch(con.buf.String())
	con.mu.Unlock()
	if addr == nil {
		t.Fatalf("console printed no address")
	}
	if body := httpGet(t, addr[1]+"/ui/episodes?outcome=mismatch"); !strings.Contains(body, "1–1 of 1 episodes") {
		t.Fatalf("sqlgym console lists no mismatched episode:\n%s", body)
	}
	if body := httpGet(t, addr[1]+"/ui/play"); !strings.Contains(body, "reads a log only") {
		t.Fatalf("sqlgym console offers to play:\n%s", body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("console: %v", err)
	}
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestConsoleBoundsAreFlags: the console's bounds are flags of serve and
// of sqlgym console, and a bound that would hold nothing is a usage error
// naming it.
func TestConsoleBoundsAreFlags(t *testing.T) {
	for _, c := range []struct {
		run  func(context.Context, []string, io.Writer, io.Writer) error
		args []string
		want string
	}{
		{runServe, []string{"--console-max-reports", "0"}, "--console-max-reports"},
		{runServe, []string{"--console-write-timeout", "0s"}, "--console-write-timeout"},
		{runConsole, []string{"--data-dir", t.TempDir(), "--login-failures", "0"}, "--login-failures"},
	} {
		var stderr bytes.Buffer
		err := c.run(context.Background(), c.args, io.Discard, &stderr)
		var usage usageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want a usage error naming %s", c.args, err, c.want)
		}
	}
}
