package bench

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestRunCounts runs a few hundred episodes of each script over three
// sockets against a real server on the demo dataset, and checks that
// every count in the report agrees with the others and with the server's.
func TestRunCounts(t *testing.T) {
	tests := []struct {
		script    string
		steps     int64 // per episode
		inspected int64 // inspect_schema steps per episode
	}{
		{ScriptMixed, 3, 1},
		{ScriptSubmit, 1, 0},
		{ScriptExplore, 5, 2},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			srv := startServer(t, serverOptions{})
			const episodes = 300
			rep, err := Run(context.Background(), Config{
				URL: srv.URL, Sockets: 3, EpisodesPerSocket: 16, Episodes: episodes, Script: tt.script,
			})
			if err != nil {
				t.Fatal(err)
			}
			checkCounts(t, rep)
			if rep.Started != episodes || rep.Ended != episodes || rep.Failed != 0 || rep.ResetsFailed != 0 {
				t.Errorf("started %d, ended %d, failed %d, resets refused %d; want %d, %d, 0, 0",
					rep.Started, rep.Ended, rep.Failed, rep.ResetsFailed, episodes, episodes)
			}
			if rep.Steps != tt.steps*episodes {
				t.Errorf("%d steps, want %d", rep.Steps, tt.steps*episodes)
			}
			if got := rep.Latency[stepKey("inspect_schema")].Count; got != tt.inspected*episodes {
				t.Errorf("%d inspect_schema steps, want %d", got, tt.inspected*episodes)
			}
			if len(rep.Errors) != 0 || len(rep.ToolErrors) != 0 {
				t.Errorf("errors %v, tool errors %v; want none", rep.Errors, rep.ToolErrors)
			}
			want := ServerDelta{EpisodesStarted: episodes, RecordsWritten: episodes, BytesWritten: rep.Server.BytesWritten}
			if rep.Server != want || want.BytesWritten <= 0 {
				t.Errorf("the server counted %+v, want %+v with bytes written", rep.Server, want)
			}
		})
	}
}

// TestRunDuration bounds a run by time alone: it stops by itself, lets
// the episodes in flight finish, and prints progress lines.
func TestRunDuration(t *testing.T) {
	srv := startServer(t, serverOptions{})
	var progress strings.Builder
	rep, err := Run(context.Background(), Config{
		URL: srv.URL, Sockets: 2, EpisodesPerSocket: 8, Duration: 300 * time.Millisecond,
		Progress: &progress, ProgressEvery: 50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, rep)
	if rep.Started == 0 || rep.Failed != 0 || rep.ErrorCount() != 0 {
		t.Errorf("started %d, failed %d, errors %v; want some started and nothing failed", rep.Started, rep.Failed, rep.Errors)
	}
	if rep.Elapsed < 0.3 {
		t.Errorf("elapsed %.3f s, want at least the 0.3 s asked for", rep.Elapsed)
	}
	out := progress.String()
	if !strings.Contains(out, "\r") || !strings.HasSuffix(out, "\n") || !strings.Contains(out, "episodes") {
		t.Errorf("progress output %q, want lines ending in \\r and a last one in \\n", out)
	}
}

// TestRunToken checks that the token reaches the server, and that a
// wrong one stops the run before it starts.
func TestRunToken(t *testing.T) {
	srv := startServer(t, serverOptions{token: "s3cret"})
	rep, err := Run(context.Background(), Config{URL: srv.URL, Token: "s3cret", Sockets: 1, EpisodesPerSocket: 4, Episodes: 20})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ended != 20 {
		t.Errorf("with the token, %d episodes ended, want 20", rep.Ended)
	}
	_, err = Run(context.Background(), Config{URL: srv.URL, Token: "wrong", Sockets: 2, Episodes: 20})
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("a wrong token gave %v, want an HTTP 401 error", err)
	}
}

// TestRunCapacity runs more episodes at once than the server admits: the
// refused resets are counted by code, and the run still ends with every
// episode it started accounted for.
func TestRunCapacity(t *testing.T) {
	srv := startServer(t, serverOptions{maxEpisodes: 4})
	const episodes = 200
	rep, err := Run(context.Background(), Config{URL: srv.URL, Sockets: 2, EpisodesPerSocket: 8, Episodes: episodes})
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, rep)
	if rep.Started+rep.ResetsFailed != episodes {
		t.Errorf("started %d + refused %d, want the %d episodes claimed", rep.Started, rep.ResetsFailed, episodes)
	}
	capacity := rep.Errors["-32003"]
	if capacity == 0 || capacity != rep.ResetsFailed || rep.ErrorCount() != capacity {
		t.Errorf("errors %v with %d resets refused; want only -32003, once per refused reset", rep.Errors, rep.ResetsFailed)
	}
}

// TestRunServerGone stops the server in the middle of a long run: the run
// ends by itself, counting the episodes cut short as failed.
func TestRunServerGone(t *testing.T) {
	srv := startServer(t, serverOptions{})
	done := make(chan struct{})
	var rep *Report
	var err error
	go func() {
		defer close(done)
		rep, err = Run(context.Background(), Config{URL: srv.URL, Sockets: 2, EpisodesPerSocket: 8, Duration: time.Minute})
	}()
	waitfor.Until(t, "the run to have ended episodes and to have others live", func() bool {
		st := srv.Manager.Info(schemas.Limits{}).Stats
		var ended int64
		for _, n := range st.Ended {
			ended += n
		}
		return ended > 0 && st.LiveEpisodes > 0
	})
	srv.Stop()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the run went on after its server stopped")
	}
	if err != nil {
		t.Fatal(err)
	}
	if rep.Started != rep.Ended+rep.Failed {
		t.Errorf("started %d, want ended %d + failed %d", rep.Started, rep.Ended, rep.Failed)
	}
	if rep.Started == 0 || rep.ErrorCount() == 0 {
		t.Errorf("started %d, errors %v; want some episodes, then errors", rep.Started, rep.Errors)
	}
}

// TestRunCancel cancels a long run: it returns the report of what ran.
func TestRunCancel(t *testing.T) {
	srv := startServer(t, serverOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	rep, err := Run(ctx, Config{URL: srv.URL, Sockets: 1, EpisodesPerSocket: 8, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Started != rep.Ended+rep.Failed || rep.Started == 0 {
		t.Errorf("started %d, ended %d, failed %d; want some, all accounted for", rep.Started, rep.Ended, rep.Failed)
	}
	if rep.UncanceledErrors() != 0 {
		t.Errorf("errors %v, want only canceled calls", rep.Errors)
	}
}

// TestRunSpiderDev explores the Spider-dev databases: every table name
// read from inspect_schema must be one its queries can use.
func TestRunSpiderDev(t *testing.T) {
	ds, err := datasets.LoadSpider("spider-dev", spiderdev.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, serverOptions{dataset: ds})
	rep, err := Run(context.Background(), Config{
		URL: srv.URL, Sockets: 2, EpisodesPerSocket: 16, Episodes: 400, Script: ScriptExplore, Dataset: "spider-dev",
	})
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, rep)
	if rep.Ended != 400 || len(rep.Errors) != 0 || len(rep.ToolErrors) != 0 {
		t.Errorf("ended %d, errors %v, tool errors %v; want 400 and none", rep.Ended, rep.Errors, rep.ToolErrors)
	}
	if rep.Outcomes[schemas.OutcomeNoSubmit] != 0 {
		t.Errorf("outcomes %v, want every episode to submit", rep.Outcomes)
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{URL: "ws://10.1.2.3:8765/v1/ws"}, "loopback"},
		{Config{URL: "ws://example.com/v1/ws"}, "loopback"},
		{Config{URL: "http://127.0.0.1:8765/v1/ws"}, "want ws://"},
		{Config{URL: "ws://127.0.0.1:8765/v1/ws", Script: "golf"}, "unknown script"},
		{Config{URL: "ws://127.0.0.1:8765/v1/ws", Rate: -1}, "rate -1"},
	}
	for _, tt := range tests {
		_, err := Run(context.Background(), tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Run(%+v) = %v, want an error saying %q", tt.cfg, err, tt.want)
		}
	}
	if err := CheckURL("ws://10.0.0.1/v1/ws"); !errors.Is(err, ErrNotLoopback) {
		t.Errorf("CheckURL of 10.0.0.1 = %v, want ErrNotLoopback", err)
	}
	for _, u := range []string{"ws://127.0.0.1:1/v1/ws", "ws://[::1]:1/v1/ws", "ws://localhost:1/v1/ws", "wss://127.0.0.2/v1/ws"} {
		if err := CheckURL(u); err != nil {
			t.Errorf("CheckURL(%q) = %v, want nil", u, err)
		}
	}
}

// TestRunCallTimeout: a step the server does not answer within the call
// timeout fails its episode as "timeout", and the run ends by itself with
// every episode accounted for; the late answer is ignored.
func TestRunCallTimeout(t *testing.T) {
	// The query never ends by itself: the server answers when its query
	// timeout ends it, always later than the 100 ms call timeout, and the
	// test cannot end before that answer: a query timeout of 1 s rather
	// than 5 s shortens the test without changing what it shows.
	srv, ds, _ := startServerLog(t, serverOptions{queryTimeout: time.Second})
	tasks := tasksOf(ds)
	for i := range tasks { // runs until the server's query timeout
		tasks[i].GoldSQL = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
	}
	rep, err := Run(context.Background(), Config{URL: srv.URL, Sockets: 1, EpisodesPerSocket: 2, Episodes: 2,
		Script: ScriptGold, Tasks: tasks, CallTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Started != 2 || rep.Failed != 2 || rep.Ended != 0 {
		t.Errorf("started %d, failed %d, ended %d; want 2 started, both failed", rep.Started, rep.Failed, rep.Ended)
	}
	if rep.Errors["timeout"] != 2 || rep.ErrorCount() != 2 {
		t.Errorf("errors %v, want 2 timeouts", rep.Errors)
	}
}
