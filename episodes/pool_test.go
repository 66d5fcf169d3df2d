package episodes_test

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
)

// runawaySQL never ends on its own: only a timeout or a cancel stops it.
const runawaySQL = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r"

// TestRunawaysDoNotStallTheirDatabase: a GRPO group of 8 episodes submits
// a never-ending query on one database, scored under a one-minute submit
// timeout. While all 8 are still running, a new episode on the same
// database resets and runs SELECT 1: both replies come before any of the
// runaways', and the metrics show the 8 connections in use.
func TestRunawaysDoNotStallTheirDatabase(t *testing.T) {
	const group = 8
	h := newHarness(t, options{engines: func(e *stack.EngineConfig) {
		e.Judge = judge.Config{PredTimeout: time.Minute, GoldTimeout: time.Minute}
	}})
	replies := h.startRunaways(t, group)
	h.waitMetrics(t, func(m map[string]float64) bool {
		// Each runaway is running, or (with too small a pool) waiting.
		return m["sqlgym_db_connections_in_use"]+m["sqlgym_db_pool_wait_total"] >= group
	})

	honest := h.dial()
	start := time.Now()
	r := reset(t, honest, schemas.ResetParams{TaskID: "t/count"})
	if n := len(replies); n > 0 {
		t.Fatalf("%d runaway submits replied before the reset", n)
	}
	s := step(t, honest, r.EpisodeID, execSQL("SELECT 1"))
	t.Logf("reset and SELECT 1 with %d runaways in flight: %s", group, time.Since(start))
	if n := len(replies); n > 0 {
		t.Fatalf("%d runaway submits replied before SELECT 1", n)
	}
	if s.Info.Error != nil || s.Info.Result == nil || s.Info.Result.RowCount != 1 {
		t.Fatalf("SELECT 1 = %+v (error %+v), want one row", s.Info.Result, s.Info.Error)
	}
	m := h.metrics(t)
	if got := m["sqlgym_db_connections_in_use"]; got != group {
		t.Errorf("connections in use after SELECT 1 = %v, want the %d runaways'", got, group)
	}
	if got := m["sqlgym_db_pool_wait_total"]; got != 0 {
		t.Errorf("pool waits = %v, want none: the pool has room for the group", got)
	}
}

// startRunaways starts n episodes of t/count and submits runawaySQL in
// each, without waiting for the replies, which arrive on the returned
// channel. When the test ends the server is closed with no grace, which
// interrupts the runaways, and their callers are waited for.
func (h *harness) startRunaways(t *testing.T, n int) <-chan error {
	t.Helper()
	c := h.dial()
	replies := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		id := reset(t, c, schemas.ResetParams{TaskID: "t/count"}).EpisodeID
		wg.Go(func() {
			_, err := c.Step(context.Background(), id, submitSQL(runawaySQL))
			replies <- err
		})
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		h.srv.Close(ctx) // a done context: running steps are cancelled at once
		wg.Wait()
	})
	return replies
}

// metrics scrapes /metrics and returns the value of each sample without
// labels.
func (h *harness) metrics(t *testing.T) map[string]float64 {
	t.Helper()
	resp, err := http.Get(h.hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	m := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") || strings.Contains(name, "{") {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			m[name] = v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// waitMetrics scrapes /metrics until ok holds of them.
func (h *harness) waitMetrics(t *testing.T, ok func(map[string]float64) bool) {
	t.Helper()
	var m map[string]float64
	if !waitfor.Within(waitfor.Timeout, func() bool { m = h.metrics(t); return ok(m) }) {
		t.Fatalf("metrics never got there: in use %v, waits %v",
			m["sqlgym_db_connections_in_use"], m["sqlgym_db_pool_wait_total"])
	}
}

// TestSubmitOfAnExecutedQueryIsScoredFromTheCache: a query tried with
// execute_sql and then submitted runs the second time from the
// connection's prepared statements, and is still scored on the tables
// it reads (the default spec pays nothing for an answer that reads no
// table).
func TestSubmitOfAnExecutedQueryIsScoredFromTheCache(t *testing.T) {
	h := newHarness(t, options{})
	c := h.dial()
	const q = "SELECT count(id) FROM items" // not the gold's text, which the judge runs
	before := h.metrics(t)
	r := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
	if s := step(t, c, r.EpisodeID, execSQL(q)); s.Info.Error != nil {
		t.Fatalf("execute_sql: %+v", s.Info.Error)
	}
	s := step(t, c, r.EpisodeID, submitSQL(q))
	if _, paid := s.Info.RewardComponents["final.correct"]; s.Info.Outcome != "correct" || !paid {
		t.Fatalf("outcome %q, components %v: want correct and paid as correct (a query that reads a table)",
			s.Info.Outcome, s.Info.RewardComponents)
	}
	after := h.metrics(t)
	if got := after["sqlgym_db_statements_reused_total"] - before["sqlgym_db_statements_reused_total"]; got < 1 {
		t.Errorf("statements reused: %v, want at least 1", got)
	}
}
