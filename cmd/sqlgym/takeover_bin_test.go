package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/trajlog/pgstore"
	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestTakeoverNeedsPostgres: --takeover without a PostgreSQL store to
// share is a usage error that says what it needs.
func TestTakeoverNeedsPostgres(t *testing.T) {
	_, _, err := sqlgym(t, "serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--takeover")
	if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "--trajectories postgres://") {
		t.Fatalf("serve --takeover without a store: %v, want a usage error naming --trajectories postgres://", err)
	}
}

// replicaPair starts two real replicas sharing one PostgreSQL store,
// with lease (a --lease-ttl value).
func replicaPair(t *testing.T, lease string) (a, b *binserver.Process, url string) {
	t.Helper()
	url, _ = pgtest.URL(t)
	bin := binserver.Build(t)
	start := func(id string) *binserver.Process {
		return binserver.Start(t, bin, "--data-dir", t.TempDir(), "--trajectories", url, "--takeover",
			"--replica-id", id, "--lease-ttl", lease, "--shutdown-grace", "1m")
	}
	return start("a"), start("b"), url
}

// firstTurns resets an episode on c and plays two turns, each with its
// turn number.
func firstTurns(t *testing.T, c *client.Client) string {
	t.Helper()
	ctx := context.Background()
	r, err := c.Reset(ctx, schemas.ResetParams{})
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range []schemas.Action{client.ToolCall(schemas.ToolInspectSchema, map[string]any{}),
		client.ToolCall(schemas.ToolExecuteSQL, map[string]any{"sql": "SELECT 1"})} {
		if _, err := c.StepParams(ctx, schemas.StepParams{EpisodeID: r.EpisodeID, Action: a, Turn: i + 1}); err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
	}
	return r.EpisodeID
}

// finish plays the last two turns of the episode id on c: the first
// call again (a repeat) and a submit, and checks the store holds it
// ended, four turns, each once.
func finish(t *testing.T, c *client.Client, url, id string) {
	t.Helper()
	ctx := context.Background()
	rep, err := c.StepParams(ctx, schemas.StepParams{EpisodeID: id, Turn: 3,
		Action: client.ToolCall(schemas.ToolInspectSchema, map[string]any{})})
	if err != nil {
		t.Fatalf("turn 3 on the other replica: %v", err)
	}
	if _, repeat := rep.Info.RewardComponents["turn.repeat"]; rep.Info.Turn != 3 || !repeat {
		t.Fatalf("turn 3: %+v, want turn 3 paid as a repeat", rep.Info)
	}
	end, err := c.StepParams(ctx, schemas.StepParams{EpisodeID: id, Turn: 4,
		Action: client.ToolCall(schemas.ToolSubmit, map[string]any{"sql": "SELECT 1"})})
	if err != nil || !end.Terminated {
		t.Fatalf("submit: %v %+v", err, end)
	}
	s, err := pgstore.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec, err := s.Episode(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if rec.EndedAt == nil || rec.Outcome != end.Info.Outcome || len(rec.Steps) != 4 {
		t.Fatalf("stored: ended %v outcome %q, %d steps; want ended %q with 4", rec.EndedAt, rec.Outcome, len(rec.Steps), end.Info.Outcome)
	}
	for i, st := range rec.Steps {
		if st.Turn != i+1 {
			t.Fatalf("stored turns %d at %d: a step lost or doubled", st.Turn, i)
		}
	}
}

// TestSIGTERMHandsEpisodesBack: a replica told to stop under --takeover
// hands its live episode back and exits at once, and the other replica
// goes on with it where it was.
func TestSIGTERMHandsEpisodesBack(t *testing.T) {
	a, b, url := replicaPair(t, "1m")
	ca := dial(t, a.URL)
	id := firstTurns(t, ca)
	cb := dial(t, b.URL)
	_, err := cb.StepParams(context.Background(), schemas.StepParams{EpisodeID: id, Turn: 3,
		Action: client.ToolCall(schemas.ToolInspectSchema, map[string]any{})})
	if e := new(schemas.Error); !errors.As(err, &e) || e.Code != schemas.CodeElsewhere {
		t.Fatalf("a step on b while a drives the episode: %v, want -32007", err)
	}
	a.Stop(t) // within its 30 s, far below the minute of grace: nothing was left to wait for
	finish(t, cb, url, id)
}

// TestKilledReplicaTakenOver: the episodes of a replica killed outright
// are refused elsewhere (-32007) until its lease expires, then taken
// over where its last acknowledged step left them.
func TestKilledReplicaTakenOver(t *testing.T) {
	a, b, url := replicaPair(t, "1s")
	id := firstTurns(t, dial(t, a.URL))
	a.Kill()
	cb := dial(t, b.URL)
	waitfor.Until(t, "the killed replica's episode taken over", func() bool {
		_, err := cb.StepParams(context.Background(), schemas.StepParams{EpisodeID: id, Turn: 2,
			Action: client.ToolCall(schemas.ToolExecuteSQL, map[string]any{"sql": "SELECT 1"})})
		return err == nil // turn 2 is recorded: once taken over, it is answered from the record
	})
	finish(t, cb, url, id)
}

// dial opens a client to url, closed when the test ends.
func dial(t *testing.T, url string) *client.Client {
	t.Helper()
	c, err := client.Dial(context.Background(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
