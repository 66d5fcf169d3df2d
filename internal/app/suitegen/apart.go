package suitegen

import (
	"context"
	"errors"
	"fmt"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqltext"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/schemas"
)

// This file is the one place that decides what a database says of a gold
// and its neighbours: the gold's result there, whether that result is
// one the gold must return (and not one tie order picked), and whether a
// neighbour's result tells the neighbour apart from the gold. Judging
// ties by every result a gold may rightly return changes this file
// alone.

// run is one query's outcome on one database: its rows, when it ran
// without error and returned all of them.
type run struct {
	rows     [][]any
	cols     int
	ok       bool
	timedOut bool // it ran over the time limit: the one outcome that depends on the machine
}

// runner runs a build's queries under one statement's bounds.
type runner struct{ lim env.Limits }

// query runs sql on db. A failure of the statement (bad SQL, a timeout, a
// result over the bounds) or a result cut at the row cap is a run that is
// not ok; any other error is the build's and is returned.
func (r runner) query(ctx context.Context, db env.DB, sql string) (run, error) {
	rs, err := db.Query(ctx, sql, r.lim)
	var qe *env.QueryError
	switch {
	case err == nil:
		return run{rows: rs.Rows, cols: len(rs.Columns), ok: !rs.Truncated}, nil
	case errors.As(err, &qe) && !errors.Is(err, env.ErrUnavailable) && ctx.Err() == nil:
		return run{timedOut: errors.Is(err, env.ErrTimeout)}, nil
	}
	return run{}, fmt.Errorf("run %.60q: %w", sql, err)
}

// goldRun is a gold's result on one database, prepared for telling its
// neighbours apart there.
type goldRun struct {
	run
	tied    bool // the result depends on the order in which ties are broken
	ordered bool // row order counts: the gold says ORDER BY
	prep    *reward.Gold
}

// gold runs the gold on db and checks whether its result is fixed: a gold
// with a top-level ORDER BY or LIMIT is run again with what it leaves to
// tie order settled by its own output columns, one way and the other;
// when the two runs tell each other apart, the result is not fixed.
func (r runner) gold(ctx context.Context, db env.DB, sql string) (goldRun, error) {
	g, err := r.query(ctx, db, sql)
	if err != nil || !g.ok {
		return goldRun{run: g}, err
	}
	out := goldRun{run: g, ordered: sqltext.HasOrderBy(sql), prep: reward.NewGold(g.rows)}
	asc, desc, ok := tieBreaks(sql, g.cols)
	for _, variant := range []string{desc, asc} {
		if !ok || out.tied {
			break
		}
		v, err := r.query(ctx, db, variant)
		if err != nil {
			return goldRun{}, err
		}
		out.tied = v.ok && out.apart(v)
		out.timedOut = out.timedOut || v.timedOut
	}
	return out, nil
}

// usable reports whether the gold's result on this database can tell
// neighbours apart: it ran, whole, and does not depend on tie order.
func (g goldRun) usable() bool { return g.ok && !g.tied }

// apart reports whether a neighbour's run tells it apart from the gold
// here: the rows differ under the bird rule (a set of rows) or under the
// spider rule with DISTINCT kept (a bag of rows under some column order,
// in order when the gold says ORDER BY). A neighbour that failed, timed
// out or was cut at the row cap is not told apart.
func (g goldRun) apart(n run) bool {
	if !n.ok {
		return false
	}
	return !g.prep.Match(schemas.RewardSpec{Match: schemas.MatchBird}, n.rows, false) ||
		!reward.MatchSpider(n.rows, g.rows, g.ordered)
}
