package judge

import (
	"context"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// Sides is a submission beside its gold, each run as Judge runs it to
// score: DISTINCT removed from both outside the bird mode unless the
// spec keeps it, each under its own timeout and the judge's row and byte
// bounds, the task's answer rows standing in for a gold SQL that fails.
// It is what a person reads to see how a submission differs (the REPL,
// the console); it pays nothing.
type Sides struct {
	Pred, Gold Side
	// Ordered is set when the order of the rows counts: the gold orders
	// them (ORDER BY) and the match mode heeds it.
	Ordered bool
	// Distinct is set when the rows compare as sets, duplicates collapsed
	// (the bird mode).
	Distinct bool
}

// Side is one statement's result, or why it failed; both are zero when
// it did not run (no submission).
type Side struct {
	Result *env.ResultSet // Columns is nil for a gold given as rows
	Err    error          // a *env.QueryError when the engine refused or failed it
}

// Sides runs predSQL ("" or blanks for none: Pred is then zero) and the
// gold of task on db under spec, as Judge would, without judging.
func (j *Judge) Sides(ctx context.Context, db env.DB, task *env.Task, predSQL string, spec schemas.RewardSpec) (*Sides, error) {
	q := newQuery(task, predSQL, spec)
	bird := spec.Match == schemas.MatchBird
	s := &Sides{Ordered: q.ordered && !bird, Distinct: bird}
	if strings.TrimSpace(predSQL) != "" {
		s.Pred = j.side(ctx, db, q.pred, j.cfg.PredTimeout)
	}
	if task.GoldSQL != "" {
		s.Gold = j.side(ctx, db, q.gold, j.cfg.GoldTimeout)
	}
	if task.GoldSQL == "" || s.Gold.Err != nil && task.GoldRows != nil {
		s.Gold = Side{Result: &env.ResultSet{Rows: task.GoldRows}}
	}
	return s, ctx.Err()
}

// side runs one statement for Sides under the judge's bounds.
func (j *Judge) side(ctx context.Context, db env.DB, sql string, timeout time.Duration) Side {
	rs, err := db.Query(ctx, sql, env.Limits{Timeout: timeout, MaxRows: j.cfg.MaxRows, MaxResultBytes: j.cfg.MaxResultBytes})
	return Side{Result: rs, Err: err}
}
