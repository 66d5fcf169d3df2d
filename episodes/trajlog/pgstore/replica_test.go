package pgstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/pgstore"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// twoReplicas opens two stores sharing one schema, as two replicas do.
func twoReplicas(t *testing.T, ttl time.Duration) (a, b *pgstore.Store) {
	t.Helper()
	url, _ := pgtest.URL(t)
	a = open(t, pgstore.Config{URL: url, Replica: "a", LeaseTTL: ttl})
	b = open(t, pgstore.Config{URL: url, Replica: "b", LeaseTTL: ttl})
	return a, b
}

// A live replica's episode cannot be claimed; once it hands its
// episodes back, another claims one with every step, and the first
// replica's late write is fenced.
func TestClaimAfterHandBack(t *testing.T) {
	ctx := context.Background()
	a, b := twoReplicas(t, time.Minute)
	ep := episode("ep_claim", "demo/t1", "", 0, t0, 2)
	record(t, a, ep) // not ended: Begin and its steps
	if _, err := b.Claim(ctx, ep.EpisodeID); !errors.Is(err, trajlog.ErrHeld) {
		t.Fatalf("claim of a live replica's episode: %v, want ErrHeld", err)
	}
	if _, err := b.Claim(ctx, "ep_none"); !errors.Is(err, trajlog.ErrNoEpisode) {
		t.Fatalf("claim of no episode: %v, want ErrNoEpisode", err)
	}
	if err := a.HandBack(ctx); err != nil {
		t.Fatal(err)
	}
	rec, err := b.Claim(ctx, ep.EpisodeID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Steps) != 2 || rec.Steps[1].Turn != 2 {
		t.Fatalf("claimed record holds %d steps, want turns 1 and 2", len(rec.Steps))
	}
	late := ep.Steps[1]
	late.Turn = 3
	if err := a.Step(ctx, ep.EpisodeID, &late); !errors.Is(err, trajlog.ErrMoved) {
		t.Fatalf("a step of the replica that handed the episode back: %v, want ErrMoved", err)
	}
	if err := b.Step(ctx, ep.EpisodeID, &late); err != nil {
		t.Fatalf("the new driver's step: %v", err)
	}
	ended := episode("ep_claim", "demo/t1", "correct", 1, t0, 3)
	if err := b.End(ctx, ended); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Claim(ctx, ep.EpisodeID); !errors.Is(err, trajlog.ErrEnded) {
		t.Fatalf("claim of an ended episode: %v, want ErrEnded", err)
	}
}

// A replica that stops beating loses its episodes once its lease
// expires; an orphan idle past the idle time is listed.
func TestClaimAfterLeaseExpires(t *testing.T) {
	ctx := context.Background()
	url, _ := pgtest.URL(t)
	a, err := pgstore.OpenConfig(ctx, pgstore.Config{URL: url, Replica: "a", LeaseTTL: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	b := open(t, pgstore.Config{URL: url, Replica: "b", LeaseTTL: 300 * time.Millisecond})
	ep := episode("ep_dead", "demo/t1", "", 0, t0, 1)
	record(t, a, ep)
	a.Close() // its heartbeat stops, as a killed replica's does
	var orphans []string
	waitfor.Until(t, "the dead replica's episode listed as an orphan", func() bool {
		ids, err := b.Orphans(ctx, time.Millisecond, 10)
		orphans = ids
		return err == nil && len(ids) == 1
	})
	if orphans[0] != ep.EpisodeID {
		t.Fatalf("orphans %v, want %s", orphans, ep.EpisodeID)
	}
	rec, err := b.Claim(ctx, ep.EpisodeID)
	if err != nil || len(rec.Steps) != 1 {
		t.Fatalf("claim after the lease expired: %v (%v)", err, rec)
	}
}

// A replica that handed its episodes back stops beating: while the
// other replica beats on, its heartbeat stays deleted, so the store
// counts it gone.
func TestHandBackStopsTheHeartbeat(t *testing.T) {
	ctx := context.Background()
	url, _ := pgtest.URL(t)
	const ttl = 60 * time.Millisecond // a beat every 20 ms
	a := open(t, pgstore.Config{URL: url, Replica: "a", LeaseTTL: ttl})
	open(t, pgstore.Config{URL: url, Replica: "b", LeaseTTL: ttl})
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := a.HandBack(ctx); err != nil {
		t.Fatal(err)
	}
	seen := func(replica string) (at time.Time, ok bool) {
		err := conn.QueryRow(ctx, `SELECT seen_at FROM sqlgym_replicas WHERE replica_id = $1`, replica).Scan(&at)
		if errors.Is(err, pgx.ErrNoRows) {
			return at, false
		}
		if err != nil {
			t.Fatal(err)
		}
		return at, true
	}
	first, _ := seen("b")
	beats := 0
	waitfor.Until(t, "three more beats of the replica that stayed", func() bool {
		if at, _ := seen("b"); at.After(first) {
			first, beats = at, beats+1
		}
		if _, ok := seen("a"); ok {
			t.Fatalf("after %d beats of b, the replica that handed back has a heartbeat again", beats)
		}
		return beats >= 3
	})
}
