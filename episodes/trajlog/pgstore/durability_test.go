package pgstore

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/schemas"
)

// Each durability sets the store's synchronous_commit, over whatever the
// URL asks for, and the store records through it.
func TestDurabilitySetsSynchronousCommit(t *testing.T) {
	tests := []struct {
		d        trajlog.Durability
		inURL    string // what the URL asks for: the opposite
		want     string
		episodes string
	}{
		{trajlog.DurabilityEpisode, "off", "on", "ep_episode"},
		{trajlog.DurabilityInterval, "on", "off", "ep_interval"},
		{trajlog.DurabilityNone, "on", "off", "ep_none"},
	}
	ctx := context.Background()
	for _, tt := range tests {
		base, _ := pgtest.URL(t)
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set("synchronous_commit", tt.inURL)
		u.RawQuery = q.Encode()
		s, err := OpenConfig(ctx, Config{URL: u.String(), Durability: tt.d})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if err := s.pool.QueryRow(ctx, "SHOW synchronous_commit").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("%v: synchronous_commit = %q, want %q", tt.d, got, tt.want)
		}
		recordOne(t, s, tt.episodes)
		n := 0
		if err := s.Episodes(ctx, trajlog.Filter{}, func(*trajlog.Record) error { n++; return nil }); err != nil || n != 1 {
			t.Errorf("%v: read %d episodes (%v), want the one ended", tt.d, n, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenRefusesAnUnknownDurability(t *testing.T) {
	base, _ := pgtest.URL(t)
	if s, err := OpenConfig(context.Background(), Config{URL: base, Durability: trajlog.DurabilityNone + 1}); err == nil {
		s.Close()
		t.Fatal("OpenConfig with an unknown durability succeeded")
	}
}

// recordOne writes an episode without steps, begun and ended.
func recordOne(t *testing.T, s *Store, id string) {
	t.Helper()
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	tr := &schemas.Trajectory{EpisodeID: id, Task: schemas.TaskView{TaskID: "demo/1", Dataset: "demo", DBID: "shop", Dialect: "sqlite"},
		RewardSpec: schemas.DefaultRewardSpec(), StartedAt: at, Steps: []schemas.StepRecord{}, ServerVersion: "test"}
	if err := s.Begin(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
	end := at.Add(time.Second)
	tr.EndedAt, tr.Outcome = &end, "no_submit"
	if err := s.End(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
}
