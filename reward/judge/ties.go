package judge

import (
	"context"
	"errors"
	"fmt"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqltext"
	"github.com/sqlgym/sqlgym/reward"
)

// DefaultTieRows is Config.TieRows's default.
const DefaultTieRows = 1000

// goldAnswer runs a gold for the cache. Under TiesAny, a gold with a
// top-level ORDER BY or LIMIT runs as its tie probe (sqltext.TieProbe):
// its sort keys beside its own columns, and up to TieRows rows past the
// cut, from which every result it could rightly return is read. It
// returns the gold's result (one right answer, its own columns) and the
// answer when the gold has more than one, nil when it has exactly one.
func (j *Judge) goldAnswer(ctx context.Context, db env.DB, sql string, lim env.Limits) (*env.ResultSet, *reward.Answer, error) {
	if j.cfg.Ties != TiesAny {
		rs, err := db.Query(ctx, sql, lim)
		return rs, nil, err
	}
	probe, ok := sqltext.TieProbe(sql, int64(j.cfg.TieRows))
	if !ok {
		rs, err := db.Query(ctx, sql, lim)
		return rs, nil, err
	}
	rs, err := db.Query(ctx, probe.SQL, lim)
	var qe *env.QueryError
	switch {
	case errors.As(err, &qe) && ctx.Err() == nil && !errors.Is(qe, env.ErrTimeout):
		// A rewrite the engine refuses: the gold as written, judged as
		// the official evaluators judge it.
		rs, err = db.Query(ctx, sql, lim)
		return rs, nil, err
	case err != nil || rs.Truncated:
		return rs, nil, err
	}
	ans := j.tiedAnswer(db, rs, probe)
	out := &env.ResultSet{Columns: rs.Columns[probe.Added:], Rows: ans.First(), Elapsed: rs.Elapsed,
		ReadColumns: rs.ReadColumns, ReadTables: rs.ReadTables}
	if ans.Unique() && (!sqltext.HasOrderBy(sql) || singleRows(ans)) {
		ans = nil // one right answer, in one order: compared exactly
	}
	return out, ans, nil
}

// tiedAnswer reads the answer of a probe's result.
func (j *Judge) tiedAnswer(db env.DB, rs *env.ResultSet, probe sqltext.Probe) *reward.Answer {
	own := make([][]any, len(rs.Rows))
	tk, _ := db.(env.TieKeyer) // keys as the engine's ordering compares them
	var keys [][]any
	if len(probe.KeyCols) > 0 {
		keys = make([][]any, len(rs.Rows))
	}
	for i, row := range rs.Rows {
		own[i] = row[probe.Added:]
		if keys != nil {
			k := make([]any, len(probe.KeyCols))
			for t, c := range probe.KeyCols {
				k[t] = row[c]
				if tk != nil {
					k[t] = tk.TieKey(row[c])
				}
			}
			keys[i] = k
		}
	}
	w := probe.Window
	offset, limit := int(w.Offset), -1
	if w.HasLimit && w.Limit >= 0 {
		limit = int(w.Limit)
	}
	complete := limit < 0 || len(rs.Rows) < offset+limit+j.cfg.TieRows
	return reward.TiedAnswer(own, keys, offset, limit, nil, complete)
}

// singleRows reports whether every segment of a holds one row: its order
// is fixed row by row.
func singleRows(a *reward.Answer) bool {
	for _, s := range a.Segments {
		if len(s.Rows) != 1 {
			return false
		}
	}
	return true
}

// predPlan is how a prediction runs, read from its text once per
// submission and shared by the task's database and every database of its
// suite.
type predPlan struct {
	tied    bool   // under TiesAny, its result can depend on tie order in a way the comparison sees
	counted bool   // its output columns were counted from its text
	broken  string // its text tie-broken by those columns; "" when there is no such rewrite
}

// planPred reads how sql runs under the judge's Ties.
func (j *Judge) planPred(sql string, ordered bool) predPlan {
	if j.cfg.Ties != TiesAny || !needsTieBreak(sql, ordered) {
		return predPlan{}
	}
	p := predPlan{tied: true}
	if n, ok := sqltext.OutputCount(sql); ok {
		p.counted = true
		if tb, ok := sqltext.TieBreak(sql, n); ok {
			p.broken = tb
		}
	}
	return p
}

// runPred runs the prediction as plan says. Under TiesAny, a prediction
// with a top-level LIMIT, or an ORDER BY where row order counts, runs
// with its own output columns appended to its ORDER BY (sqltext.TieBreak),
// so that which tied rows it returns never depends on the engine's whim;
// when the engine refuses that rewrite, it runs as written.
func (j *Judge) runPred(ctx context.Context, db env.DB, sql string, plan predPlan, lim env.Limits) (*env.ResultSet, error) {
	switch {
	case !plan.tied:
		return db.Query(ctx, sql, lim)
	case plan.counted:
		if rs, ok, err := tieBroken(ctx, db, plan.broken, lim); ok {
			return rs, err
		}
		return db.Query(ctx, sql, lim)
	}
	rs, err := db.Query(ctx, sql, lim)
	if err != nil {
		return rs, err
	}
	if tb, ok := sqltext.TieBreak(sql, len(rs.Columns)); ok {
		if broken, ok, err := tieBroken(ctx, db, tb, lim); ok {
			return broken, err
		}
	}
	return rs, nil
}

// needsTieBreak reports whether sql's result can depend on tie order in a
// way the comparison sees.
func needsTieBreak(sql string, ordered bool) bool {
	o, ok := sqltext.TopOrder(sql)
	return ok && (o.Window.Cuts() || ordered && len(o.Terms) > 0)
}

// tieBroken runs tb, a prediction tie-broken by its output columns; ok
// is false when there is no such rewrite ("") or the engine refused it
// (the caller then runs the prediction as written).
func tieBroken(ctx context.Context, db env.DB, tb string, lim env.Limits) (*env.ResultSet, bool, error) {
	if tb == "" {
		return nil, false, nil
	}
	rs, err := db.Query(ctx, tb, lim)
	var qe *env.QueryError
	if errors.As(err, &qe) && ctx.Err() == nil && !errors.Is(qe, env.ErrTimeout) {
		return nil, false, nil
	}
	return rs, true, err
}

// rowsMatch is what a prediction must match on a task given as rows: its
// GoldRows, or, under TiesAny, any of the right answers its GoldSegments
// hold.
func (j *Judge) rowsMatch(task *env.Task) *goldMatch {
	m := &goldMatch{gold: reward.NewGold(task.GoldRows)}
	if j.cfg.Ties == TiesAny && len(task.GoldSegments) > 0 {
		ans := &reward.Answer{Segments: make([]reward.Segment, len(task.GoldSegments))}
		for i, s := range task.GoldSegments {
			ans.Segments[i] = reward.Segment{Rows: s.Rows, Take: s.Take}
		}
		if !ans.Unique() {
			m.answer = ans
		}
	}
	return m
}

// GoldAnswer runs sql on db as a gold is run under TiesAny and returns
// every result it could rightly return: one segment taking every row
// when it has exactly one (row order aside). sqlgym import keeps it for a
// task it can only give as rows. An error is the statement's
// (*env.QueryError) or the server's.
func GoldAnswer(ctx context.Context, db env.DB, sql string, lim env.Limits) (*reward.Answer, error) {
	j := New(Config{Ties: TiesAny})
	rs, ans, err := j.goldAnswer(ctx, db, sql, lim)
	switch {
	case err != nil:
		return nil, err
	case rs.Truncated:
		return nil, fmt.Errorf("%w: over %d rows", ErrGoldTooLarge, lim.MaxRows)
	case ans == nil:
		return reward.ExactAnswer(rs.Rows, false), nil
	}
	return ans, nil
}
