package pgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/pgstore"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/schemas"
)

// withSettings is an episode with the begin line's settings that have no
// column: tools, max_calls_per_turn and prompt_style.
func withSettings(id string, outcome string) *schemas.Trajectory {
	tr := episode(id, "demo/1", outcome, 1, t0, 2)
	tr.Tools = []string{schemas.ToolExecuteSQL, schemas.ToolSubmit, schemas.ToolSearchValues}
	tr.MaxCallsPerTurn, tr.PromptStyle = 2, schemas.PromptStyleNative
	return tr
}

// TestEpisodeSettingsRoundTrip: tools, max_calls_per_turn and
// prompt_style come back as written, from an ended episode and from one
// still running (written by Begin alone).
func TestEpisodeSettingsRoundTrip(t *testing.T) {
	s := open(t, pgstore.Config{})
	ended, running := withSettings("ep_ended", "correct"), withSettings("ep_running", "")
	running.Tools = nil
	record(t, s, ended)
	record(t, s, running)
	flushed(t, s, "ep_running", 2)
	got := readAll(t, s, trajlog.Filter{Incomplete: true})
	if len(got) != 2 {
		t.Fatalf("read %d records, want 2", len(got))
	}
	for i, want := range []*schemas.Trajectory{ended, running} {
		if g, w := canon(t, &got[i].Trajectory), canon(t, want); g != w {
			t.Errorf("record %d differs:\n got %s\nwant %s", i, g, w)
		}
	}
}

// TestStoreBeforeEpisodeExtraReadsAsBefore drops the episodes' extra
// column, as a store made before it lacks it, and opens the store again:
// the migration adds it, the old episode reads as it was written, and a
// new one keeps its settings.
func TestStoreBeforeEpisodeExtraReadsAsBefore(t *testing.T) {
	url, _ := pgtest.URL(t)
	s := open(t, pgstore.Config{URL: url})
	old := episode("ep_old", "demo/1", "correct", 1, t0, 2)
	record(t, s, old)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "ALTER TABLE sqlgym_episodes DROP COLUMN extra"); err != nil {
		t.Fatal(err)
	}
	again := open(t, pgstore.Config{URL: url})
	fresh := withSettings("ep_new", "mismatch")
	fresh.StartedAt = t0.Add(time.Hour)
	record(t, again, fresh)
	got := readAll(t, again, trajlog.Filter{})
	if len(got) != 2 {
		t.Fatalf("read %d records, want 2", len(got))
	}
	for i, want := range []*schemas.Trajectory{old, fresh} {
		if g, w := canon(t, &got[i].Trajectory), canon(t, want); g != w {
			t.Errorf("record %d differs:\n got %s\nwant %s", i, g, w)
		}
	}
}
