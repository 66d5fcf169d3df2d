package judge

import (
	"container/list"
	"context"
	"errors"
	"fmt"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/schemas"
)

// goldKey names a gold result: the database, and the gold SQL as run;
// bare runs skip what only the task's own database needs (the tables
// and columns read), as on a suite database.
type goldKey struct {
	db, sql string
	bare    bool
}

// goldRun is one run of a gold query. rs, match and err are written
// once, before done is closed, and only read after.
type goldRun struct {
	done  chan struct{}
	rs    *env.ResultSet
	match *goldMatch // what a prediction must match; nil when err is set
	err   error

	elem   *list.Element // its place in the LRU once cached; guarded by Judge.mu
	size   int64         // its estimated size once cached; guarded by Judge.mu
	joined int           // callers that found it in the map rather than ran it; guarded by Judge.mu (tests wait on it)
}

// runGold returns the gold's result: from the cache, by joining a run in
// flight, or by running it. A result, a gold error and a too-large gold
// are cached; a timeout is shared with the callers that joined its run
// but not cached (a loaded server may run it in time later); a server
// fault of the caller that ran it (its context ended) sends the callers
// that joined back to run it themselves.
func (j *Judge) runGold(ctx context.Context, db env.DB, key goldKey) (*goldRun, error) {
	for {
		j.mu.Lock()
		run, ok := j.gold[key]
		if ok {
			run.joined++
			j.lru.touch(run)
		} else {
			run = &goldRun{done: make(chan struct{})}
			j.gold[key] = run
			j.mu.Unlock()
			j.fill(ctx, db, key, run)
			return run, run.err
		}
		j.mu.Unlock()
		select {
		case <-run.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("judge: wait for gold: %w", ctx.Err())
		}
		var qe *env.QueryError
		if run.err == nil || errors.As(run.err, &qe) || errors.Is(run.err, ErrGoldTooLarge) {
			return run, run.err
		}
	}
}

// fill runs the gold for run and publishes the result, keeping it cached
// only when it will not change on a second try.
func (j *Judge) fill(ctx context.Context, db env.DB, key goldKey, run *goldRun) {
	defer close(run.done)
	lim := j.limits(j.cfg.GoldTimeout)
	lim.Reads = !key.bare
	var ans *reward.Answer
	run.rs, ans, run.err = j.goldAnswer(ctx, db, key.sql, lim)
	if run.err == nil && run.rs.Truncated {
		run.rs, run.err = nil, fmt.Errorf("%w: over %d rows or %d bytes", ErrGoldTooLarge, j.cfg.MaxRows, j.cfg.MaxResultBytes)
	}
	if run.err == nil {
		run.match = &goldMatch{gold: reward.NewGold(run.rs.Rows), answer: ans}
	}
	var qe *env.QueryError
	cacheable := run.err == nil || errors.Is(run.err, ErrGoldTooLarge) ||
		errors.As(run.err, &qe) && !errors.Is(qe, env.ErrTimeout) && ctx.Err() == nil
	j.mu.Lock()
	defer j.mu.Unlock()
	if !cacheable {
		delete(j.gold, key)
		return
	}
	j.lru.add(key, run)
	j.lru.evict(j.gold, j.cfg.GoldCacheBytes)
}

// goldMatch is what a prediction must match: the gold's one right
// answer, prepared for matching, or, when the gold has several (ties),
// all of them.
type goldMatch struct {
	gold   *reward.Gold
	answer *reward.Answer // nil: gold is the only right answer
}

// matches reports whether pred is a right answer under spec.
func (m *goldMatch) matches(spec schemas.RewardSpec, pred [][]any, ordered bool) bool {
	if m.answer == nil {
		return m.gold.Match(spec, pred, ordered)
	}
	return reward.MatchAnswer(spec, pred, m.answer, ordered)
}
