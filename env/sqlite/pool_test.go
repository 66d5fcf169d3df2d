package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// endless never ends on its own: only a timeout or a cancel stops it.
const endless = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r"

// openWith opens the fixture with an engine of cfg, closed when the test
// ends.
func openWith(t *testing.T, cfg Config) (*Engine, env.DB) {
	t.Helper()
	e := New(cfg)
	d, err := e.Open(context.Background(), fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return e, d
}

// startRunaway runs endless on d (for a minute at most) and returns once
// the engine has inUse connections in use. The returned channel is
// closed when the query returns; the query is cancelled, and waited for,
// when the test ends.
func startRunaway(t *testing.T, e *Engine, d env.DB, inUse int) <-chan struct{} {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Query(ctx, endless, env.Limits{Timeout: time.Minute})
	}()
	t.Cleanup(func() { cancel(); <-done })
	waitStats(t, e, func(s env.PoolStats) bool { return s.InUse >= inUse })
	return done
}

// waitStats waits until the engine's statistics satisfy ok.
func waitStats(t *testing.T, e *Engine, ok func(env.PoolStats) bool) {
	t.Helper()
	if !waitfor.Within(waitfor.Timeout, func() bool { return ok(e.PoolStats()) }) {
		t.Fatalf("pool statistics never got there: %+v", e.PoolStats())
	}
}

// running reports whether a runaway started by startRunaway still runs.
func running(done <-chan struct{}) bool {
	select {
	case <-done:
		return false
	default:
		return true
	}
}

// TestPoolWaitCountsAgainstTimeout: with one connection, held by a
// runaway, a query waiting for it gets a timeout error that says why,
// while the runaway still runs, and the wait is counted.
func TestPoolWaitCountsAgainstTimeout(t *testing.T) {
	e, d := openWith(t, Config{MaxConns: 1})
	done := startRunaway(t, e, d, 1)
	_, err := d.Query(context.Background(), "SELECT 1", env.Limits{Timeout: 50 * time.Millisecond})
	if !running(done) {
		t.Fatal("the runaway ended before the waiting query returned")
	}
	if !errors.Is(err, env.ErrTimeout) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	for _, want := range []string{"timed out after 50ms", "all 1 connections", "busy"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if s := e.PoolStats(); s.Waits != 1 || s.WaitTime <= 0 || s.InUse != 1 || s.Open != 1 {
		t.Errorf("stats = %+v, want 1 wait, 1 connection in use and open", s)
	}
}

// TestSchemaCallWaitCountsAgainstTimeout: the engine's own queries (those
// of inspect_schema) wait within their timeout too.
func TestSchemaCallWaitCountsAgainstTimeout(t *testing.T) {
	e, d := openWith(t, Config{MaxConns: 1, DefaultTimeout: 50 * time.Millisecond})
	done := startRunaway(t, e, d, 1)
	_, err := d.Tables(context.Background())
	if !running(done) {
		t.Fatal("the runaway ended before the schema call returned")
	}
	if !errors.Is(err, env.ErrTimeout) {
		t.Fatalf("err = %v, want a timeout", err)
	}
}

// TestRunningSlotsAreShared: with one running slot, a runaway on one
// database makes a query on another time out, saying the server was busy;
// a cancelled caller waiting for a slot gets its context's error.
func TestRunningSlotsAreShared(t *testing.T) {
	e, a := openWith(t, Config{MaxRunning: 1})
	b, err := e.Open(context.Background(), fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	done := startRunaway(t, e, a, 1)
	// b's Open ran while the slot was free; its query now waits for it.
	_, err = b.Query(context.Background(), "SELECT 1", env.Limits{Timeout: 50 * time.Millisecond})
	if !running(done) {
		t.Fatal("the runaway ended before the waiting query returned")
	}
	if !errors.Is(err, env.ErrTimeout) || !strings.Contains(err.Error(), "1 statements at once") {
		t.Fatalf("err = %v, want a timeout naming the server's limit", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = b.Query(ctx, "SELECT 1", env.Limits{})
	var qe *env.QueryError
	if !errors.Is(err, context.Canceled) || errors.As(err, &qe) {
		t.Errorf("cancelled caller: err = %v, want its context's error", err)
	}
	if s := e.PoolStats(); s.Waits < 1 || s.InUse != 1 {
		t.Errorf("stats = %+v, want a wait counted and the runaway's connection in use", s)
	}
}

// TestPoolStatsKeepClosedWaits: the waits of a closed database stay
// counted; its connections no longer are.
func TestPoolStatsKeepClosedWaits(t *testing.T) {
	e := New(Config{MaxConns: 1})
	d, err := e.Open(context.Background(), fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	runDone := make(chan struct{})
	go func() {
		defer close(runDone)
		d.Query(ctx, endless, env.Limits{Timeout: time.Minute})
	}()
	waitStats(t, e, func(s env.PoolStats) bool { return s.InUse == 1 })
	d.Query(context.Background(), "SELECT 1", env.Limits{Timeout: 10 * time.Millisecond})
	cancel()
	<-runDone
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if s := e.PoolStats(); s.Waits != 1 || s.InUse != 0 || s.Open != 0 {
		t.Errorf("stats after close = %+v, want 1 wait, no connection", s)
	}
}

// TestConnectionsHaveASmallCache: every connection gets the small page
// cache, not SQLite's default.
func TestConnectionsHaveASmallCache(t *testing.T) {
	_, d := openWith(t, Config{})
	pc, err := d.(*db).pool.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	var got driver.Value
	err = pc.Raw(func(dc any) error {
		c := dc.(*conn)
		c.RegisterAuthorizer(nil) // the sandbox denies reading this pragma
		defer c.RegisterAuthorizer(c.authorize)
		rows, err := c.Query("PRAGMA cache_size", nil)
		if err != nil {
			return err
		}
		defer rows.Close()
		dest := []driver.Value{nil}
		err = rows.Next(dest)
		got = dest[0]
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(-connCacheKiB); got != want {
		t.Errorf("cache_size = %v, want %d", got, want)
	}
}

// TestTimeoutMessageNamesTheWait: a timeout says how long the statement
// waited to start when that was a quarter of its time or more.
func TestTimeoutMessageNamesTheWait(t *testing.T) {
	for _, tt := range []struct {
		waited time.Duration
		want   string
	}{
		{0, "query timed out after 4s"},
		{999 * time.Millisecond, "query timed out after 4s"},
		{time.Second, "query timed out after 4s (1s of it spent waiting to start: the server was busy)"},
		{3500400 * time.Microsecond, "query timed out after 4s (3.5s of it spent waiting to start: the server was busy)"},
	} {
		err := timedOut(budget{timeout: 4 * time.Second, waited: tt.waited})
		if !errors.Is(err, env.ErrTimeout) || err.Error() != tt.want {
			t.Errorf("waited %s: %v, want %q", tt.waited, err, tt.want)
		}
	}
}
