package suitegen

import (
	"context"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward/testsuite"
)

// goldWork is one gold's distillation under way.
type goldWork struct {
	sql        string
	neighbours []Neighbour
	byOriginal []bool // neighbour i is told apart by the source database
	apart      []bool // neighbour i is told apart by a kept candidate
	left       int    // neighbours not yet told apart
	suite      []int  // the candidates kept, in the order they were drawn
	counts     testsuite.Counts
}

// sources are the databases a gold's neighbours are chosen on.
type sources struct {
	schema          *Schema
	original, empty env.DB
}

// prepare runs the gold on the source database and keeps its first
// MaxNeighbours neighbours that run without error on the empty copy and
// on the source database, noting which the source database tells apart.
// A gold that fails on the source database gets none.
func (b *builder) prepare(ctx context.Context, gold string, src sources) (*goldWork, error) {
	w := &goldWork{sql: gold}
	g, err := b.run.gold(ctx, src.original, gold)
	w.counts.Timeouts += timeouts(g.run)
	if err != nil || !g.ok {
		w.counts.GoldFailed = true
		return w, err
	}
	w.counts.Nondeterministic = g.tied
	for _, n := range Neighbours(gold, src.schema, b.cfg.Seed) {
		if len(w.neighbours) == b.cfg.MaxNeighbours {
			break
		}
		kept, apart, err := b.check(ctx, w, n, g, src)
		if err != nil {
			return nil, err
		}
		if kept {
			w.neighbours = append(w.neighbours, n)
			w.byOriginal = append(w.byOriginal, apart)
		}
	}
	w.apart = make([]bool, len(w.neighbours))
	w.left = len(w.neighbours)
	w.counts.Neighbours = len(w.neighbours)
	w.counts.ByOriginal = count(w.byOriginal, nil)
	return w, nil
}

// check runs a neighbour of w's gold on the empty copy and on the source
// database: it is kept when both run, and told apart there when its rows
// differ from the gold's.
func (b *builder) check(ctx context.Context, w *goldWork, n Neighbour, g goldRun, src sources) (kept, apart bool, err error) {
	e, err := b.run.query(ctx, src.empty, n.SQL)
	w.counts.Timeouts += timeouts(e)
	if err != nil || !e.ok {
		return false, false, err
	}
	o, err := b.run.query(ctx, src.original, n.SQL)
	w.counts.Timeouts += timeouts(o)
	if err != nil || !o.ok {
		return false, false, err
	}
	return true, g.apart(o), nil
}

// distill draws the candidates in order for w's gold, keeping each that
// tells apart a neighbour not yet told apart, until none is left or the
// candidates run out.
func (b *builder) distill(ctx context.Context, w *goldWork, cands *pool) error {
	for i := 0; i < b.cfg.Candidates && w.left > 0; i++ {
		w.counts.Tried++
		db, err := cands.db(ctx, i)
		if err != nil {
			return err
		}
		told, err := b.tell(ctx, db, w, w.apart)
		if err != nil {
			return err
		}
		if told > 0 {
			w.suite = append(w.suite, i)
			w.left -= told
		}
	}
	w.counts.BySuite = count(w.apart, nil)
	return nil
}

// tell runs the gold and each neighbour not yet in done on db, marks in
// done those db tells apart and returns how many it did. A database on
// which the gold fails or depends on tie order tells nothing, and is
// counted.
func (b *builder) tell(ctx context.Context, db env.DB, w *goldWork, done []bool) (int, error) {
	g, err := b.run.gold(ctx, db, w.sql)
	w.counts.Timeouts += timeouts(g.run)
	switch {
	case err != nil:
		return 0, err
	case !g.ok:
		w.counts.FailedCandidates++
		return 0, nil
	case g.tied:
		w.counts.TiedCandidates++
		return 0, nil
	}
	told := 0
	for j, n := range w.neighbours {
		if done[j] {
			continue
		}
		r, err := b.run.query(ctx, db, n.SQL)
		if err != nil {
			return told, err
		}
		w.counts.Timeouts += timeouts(r)
		if g.apart(r) {
			done[j] = true
			told++
		}
	}
	return told, nil
}

// heldOut measures w's suite on the held-out databases: which neighbours
// some held-out database tells apart, and how many of those the suite and
// the source database tell apart. Its counts of failed and tied
// databases are not kept: they are the candidates' figures; its timeouts
// are.
func (b *builder) heldOut(ctx context.Context, w *goldWork, held *pool) error {
	if b.cfg.HeldOut == 0 || len(w.neighbours) == 0 {
		return nil
	}
	seen := make([]bool, len(w.neighbours))
	probe := *w
	for i, left := 0, len(seen); i < b.cfg.HeldOut && left > 0; i++ {
		db, err := held.db(ctx, i)
		if err != nil {
			return err
		}
		told, err := b.tell(ctx, db, &probe, seen)
		if err != nil {
			return err
		}
		left -= told
	}
	w.counts.Timeouts = probe.counts.Timeouts
	w.counts.HeldOutApart = count(seen, nil)
	w.counts.SuiteOfHeldOut = count(seen, w.apart)
	w.counts.OriginalOfHeldOut = count(seen, w.byOriginal)
	return nil
}

// timeouts is 1 for a run over the time limit, else 0.
func timeouts(r run) int {
	if r.timedOut {
		return 1
	}
	return 0
}

// count is how many i have a[i] set and, when and is given, and[i] too.
func count(a, and []bool) int {
	n := 0
	for i, v := range a {
		if v && (and == nil || and[i]) {
			n++
		}
	}
	return n
}
