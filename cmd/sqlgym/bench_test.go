package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/internal/app/bench"
)

// TestBenchInProcess runs sqlgym bench with no --url, as a user would:
// it serves the demo in process, records to a temporary log, and writes
// the report as text and as JSON.
func TestBenchInProcess(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bench.json")
	var stdout, stderr strings.Builder
	args := []string{"bench", "--episodes", "200", "--sockets", "2", "--episodes-per-socket", "8", "--out", out}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("bench: %v\nstderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "200 started, 200 ended, 0 failed") {
		t.Errorf("bench printed:\n%s", stdout.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep bench.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("--out holds no report: %v\n%s", err, b)
	}
	if !rep.InProcess || rep.Dataset != "demo" || rep.Ended != 200 || rep.Server.RecordsWritten != 200 || rep.CPU.Counts != "client and server" {
		t.Errorf("--out report: in process %v, dataset %q, ended %d, records written %d, cpu of %q; want true, demo, 200, 200, client and server",
			rep.InProcess, rep.Dataset, rep.Ended, rep.Server.RecordsWritten, rep.CPU.Counts)
	}
	if stderr.Len() > 0 {
		t.Errorf("bench wrote to stderr (no terminal, so no progress line):\n%s", stderr.String())
	}
}

// TestBenchURL runs sqlgym bench against a server by --url and --token;
// a dataset the server does not serve fails every reset, and the command.
func TestBenchURL(t *testing.T) {
	fs := newFlagSet("serve", &strings.Builder{})
	var s stackFlags
	s.register(fs)
	if err := parseFlags(fs, []string{"--data-dir", t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	log, err := newLogger("console", "error", &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	opts := serverOpts{token: "t0k", maxEpisodes: 64, idleTimeout: time.Minute, frameBytes: 1 << 20, grace: time.Second}
	ctx := context.Background()
	err = serveLoopback(ctx, &s, opts, log, func(url string, _ *serveStack) error {
		var stdout strings.Builder
		args := []string{"bench", "--url", url, "--token", "t0k", "--dataset", "demo", "--script", "submit",
			"--episodes", "50", "--sockets", "1", "--episodes-per-socket", "4"}
		if err := run(ctx, args, &stdout, &stdout); err != nil {
			t.Errorf("bench --url: %v\n%s", err, stdout.String())
		}
		if !strings.Contains(stdout.String(), "50 started, 50 ended") || !strings.Contains(stdout.String(), "server at "+url) {
			t.Errorf("bench --url printed:\n%s", stdout.String())
		}
		stdout.Reset()
		args = []string{"bench", "--url", url, "--token", "t0k", "--dataset", "nope", "--episodes", "5", "--sockets", "1"}
		err := run(ctx, args, &stdout, &stdout)
		if err == nil || !strings.Contains(err.Error(), "5 calls failed") || !strings.Contains(stdout.String(), "-32004 5") {
			t.Errorf("bench on a dataset not served: %v\n%s", err, stdout.String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestBenchUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--sockets", "0"}, "--sockets"},
		{[]string{"--duration", "-1s"}, "--duration"},
		{[]string{"--script", "golf"}, "--script must be one of mixed, submit, explore, gold"},
		{[]string{"--url", "ws://10.0.0.1:8765/v1/ws"}, "loopback"},
		{[]string{"--url", "ws://127.0.0.1:8765/v1/ws", "--dataset", "a", "--dataset", "b"}, "at most one --dataset"},
		{[]string{"--script", "gold", "--gold-repeats", "0"}, "--gold-repeats must be between 1 and 63"},
		{[]string{"--rate", "-5"}, "--rate must not be negative"},
		{[]string{"--baseline"}, "--baseline runs the gold script's statements: give --script gold"},
		{[]string{"--baseline", "--script", "gold", "--baseline-duration", "0s"}, "--baseline-duration must be positive"},
		{[]string{"--url", "ws://127.0.0.1:8765/v1/ws", "--script", "gold"}, "need --dataset [NAME=]FORMAT:PATH"},
		{[]string{"--url", "ws://127.0.0.1:8765/v1/ws", "--script", "gold", "--dataset", "spider-dev"}, "with --url, --script gold and --baseline need the spec"},
		{[]string{"--url", "ws://127.0.0.1:8765/v1/ws", "--dataset", "csv:x"}, "unknown format"},
	}
	for _, tt := range tests {
		var stderr strings.Builder
		err := runBench(context.Background(), tt.args, &stderr, &stderr)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("bench %v = %v, want a usage error saying %q", tt.args, err, tt.want)
		}
	}
}
