package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/schemas"
)

// Every command that records takes --durability, --sync-interval and
// --commit-delay, and refuses a bad value with a usage error naming the
// flag.
func TestDurabilityUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--durability", "fast"}, `durability must be episode, interval or none, got "fast"`},
		{[]string{"--durability", ""}, "durability must be episode, interval or none"},
		{[]string{"--durability", "interval", "--sync-interval", "0s"}, "--sync-interval must be positive"},
		{[]string{"--sync-interval", "-5ms"}, "--sync-interval must be positive"},
		{[]string{"--commit-delay", "-1ms"}, "--commit-delay must be between 0 and 1s"},
		{[]string{"--commit-delay", "2s"}, "--commit-delay must be between 0 and 1s"},
	}
	for _, cmd := range []string{"serve", "bench", "repl"} {
		for _, tt := range tests {
			var stderr strings.Builder
			args := append([]string{cmd, "--data-dir", t.TempDir()}, tt.args...)
			err := run(context.Background(), args, &stderr, &stderr)
			var ue usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%v = %v, want a usage error saying %q", args, err, tt.want)
			}
		}
	}
}

// --durability reaches the trajectory log the server opens, and episodes
// are recorded under each mode.
func TestDurabilityReachesTheLog(t *testing.T) {
	for _, mode := range []string{"episode", "interval", "none"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			url, logs := serveObserved(t, []string{"--data-dir", dir, "--durability", mode, "--sync-interval", "10ms"})
			open := logs.FilterMessage("trajectory log open").All()
			if len(open) != 1 || open[0].ContextMap()["durability"] != mode {
				t.Fatalf("trajectory log open logged %v, want durability %s", open, mode)
			}
			id := playToEnd(t, url)
			r, err := filelog.Open(filelog.LogDir(dir), filelog.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			err = r.Episodes(context.Background(), trajlog.Filter{}, func(rec *trajlog.Record) error {
				found = found || rec.EpisodeID == id
				return nil
			})
			if err != nil || !found {
				t.Errorf("the ended episode %s is not in the log (%v)", id, err)
			}
		})
	}
}

// playToEnd plays one demo episode to its end and returns its id.
func playToEnd(t *testing.T, url string) string {
	t.Helper()
	ctx := context.Background()
	c, err := client.Dial(ctx, url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := c.Reset(ctx, schemas.ResetParams{TaskID: "demo/library-001"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Step(ctx, r.EpisodeID, client.ToolCall("submit", map[string]any{"sql": "SELECT 1"}))
	if err != nil || !res.Terminated {
		t.Fatalf("submit = %+v, %v; want the episode ended", res, err)
	}
	return r.EpisodeID
}
