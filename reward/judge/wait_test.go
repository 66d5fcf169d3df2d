package judge

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestWaitingForAConnectionIsATimeout: on a database whose only
// connection a runaway holds, a prediction and a gold that wait for it
// time out within their own timeouts (pred_timeout, gold_timeout) while
// the runaway still runs, and the gold that timed out waiting is run
// again once the database is free.
func TestWaitingForAConnectionIsATimeout(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.sqlite")
	if err := sqlite.Build(ctx, path, singers); err != nil {
		t.Fatal(err)
	}
	eng := sqlite.New(sqlite.Config{MaxConns: 1})
	db, err := eng.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); db.Query(runCtx, forever, env.Limits{Timeout: time.Minute}) }()
	defer func() { stop(); <-done }()
	waitfor.Until(t, "the runaway to take the connection", func() bool { return eng.PoolStats().InUse >= 1 })

	j := New(Config{PredTimeout: 50 * time.Millisecond, GoldTimeout: 50 * time.Millisecond})
	byRows := &env.Task{GoldRows: [][]any{{int64(1)}}}
	v, err := j.Judge(ctx, db, "a", byRows, "SELECT 1", spec(schemas.MatchBird))
	if err != nil || v.Outcome != schemas.OutcomePredTimeout || !strings.Contains(v.PredErr.Error(), "busy") {
		t.Errorf("prediction waiting: %s (%v), %v; want pred_timeout saying the database was busy", v.Outcome, v.PredErr, err)
	}
	bySQL := &env.Task{GoldSQL: "SELECT 1"}
	if v, err := j.Judge(ctx, db, "a", bySQL, "SELECT 1", spec(schemas.MatchBird)); err != nil || v.Outcome != schemas.OutcomeGoldTimeout {
		t.Errorf("gold waiting: %s, %v; want gold_timeout", v.Outcome, err)
	}
	select {
	case <-done:
		t.Fatal("the runaway ended before the judge returned")
	default:
	}
	stop()
	<-done
	if v, err := j.Judge(ctx, db, "a", bySQL, "SELECT 1", spec(schemas.MatchBird)); err != nil || v.Outcome != schemas.OutcomeCorrect {
		t.Errorf("once free: %s, %v; want correct (the busy gold's timeout was not cached)", v.Outcome, err)
	}
}
