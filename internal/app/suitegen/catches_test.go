package suitegen

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqltext"
	"github.com/sqlgym/sqlgym/reward/testsuite"
	"github.com/sqlgym/sqlgym/schemas"
)

// catchCounts are what judging a build's neighbours as predictions finds,
// counted per task (a gold asked by two tasks counts twice, as the build
// report counts).
type catchCounts struct {
	neighbours int // neighbours judged
	paid       int // correct on the task's database alone (EX)
	caught     int // of those, told apart by the task's suite (TS)
	// tied are the neighbours the build found the source database does
	// not tell apart that EX does not pay under bird: the judge settles
	// what a prediction's LIMIT leaves to tie order by its own output
	// columns, where the build compared the rows of one run. untied are
	// any others, which the build and the judge must not disagree on.
	tied, untied int
}

// checkCatches judges every gold's neighbours, as the build chose them
// (seed 1, defaults), as predictions of the tasks asking that gold, in
// bird and in spider mode: how many the task's database pays (wrong SQL
// paid by one database) and how many of those the suite tells apart. A
// neighbour the build found the source database does not tell apart must
// be paid under bird, the one rule both share, unless its LIMIT cuts
// through ties: the judge then settles them by the neighbour's own output
// columns, and other rows may come out than the build's one run returned.
func checkCatches(t *testing.T, s *suiteJudging) {
	ctx := context.Background()
	b := newBuilder(s.ds, t.TempDir(), Config{Seed: 1}.withDefaults())
	counts := map[string]*catchCounts{schemas.MatchBird: {}, schemas.MatchSpider: {}}
	golds := testsuite.Golds(s.ds)
	for _, dbID := range slices.Sorted(maps.Keys(golds)) {
		src := copySources(t, s.ds.DBs[dbID])
		for _, g := range golds[dbID] {
			w, err := b.prepare(ctx, g, src)
			if err != nil {
				t.Fatal(err)
			}
			tasks := tasksAsking(s.ds, dbID, g)
			for mode, c := range counts {
				c.add(t, s, tasks, w, mode)
			}
		}
	}
	for _, mode := range []string{schemas.MatchBird, schemas.MatchSpider} {
		c := counts[mode]
		t.Logf("%s: %d neighbours judged; the task's database pays %d (%.1f%%); the suites tell apart %d of those (%.1f%%), %d stay paid",
			mode, c.neighbours, c.paid, 100*share(c.paid, c.neighbours), c.caught, 100*share(c.caught, c.paid), c.paid-c.caught)
		if c.caught == 0 {
			t.Errorf("%s: the suites tell apart none of the %d neighbours the task's database pays", mode, c.paid)
		}
	}
	c := counts[schemas.MatchBird]
	t.Logf("bird: %d neighbours the build found the source database does not tell apart are not paid there: their LIMIT cuts through ties", c.tied)
	if c.untied > 0 {
		t.Errorf("bird: %d neighbours whose LIMIT cuts no ties, which the build found the source database does not tell apart, are not paid there", c.untied)
	}
}

// add judges w's neighbours as predictions of the first of tasks under
// mode and counts each once per task.
func (c *catchCounts) add(t *testing.T, s *suiteJudging, tasks []*env.Task, w *goldWork, mode string) {
	t.Helper()
	n := len(tasks)
	for i, nb := range w.neighbours {
		v, err := s.verdict(context.Background(), tasks[0], nb.SQL, schemas.RewardSpec{Match: mode})
		if err != nil {
			t.Fatal(err)
		}
		c.neighbours += n
		if v.ExecOutcome != schemas.OutcomeCorrect {
			if mode == schemas.MatchBird && !w.byOriginal[i] {
				c.notPaid(t, tasks[0], nb.SQL, v.ExecOutcome, n)
			}
			continue
		}
		c.paid += n
		if v.Outcome != schemas.OutcomeCorrect {
			c.caught += n
		}
	}
}

// notPaid counts a neighbour that the build found the source database
// does not tell apart and EX did not pay; one whose LIMIT cuts nothing
// is logged.
func (c *catchCounts) notPaid(t *testing.T, task *env.Task, sql, outcome string, n int) {
	if o, ok := sqltext.TopOrder(sql); ok && o.Window.Cuts() {
		c.tied += n
		return
	}
	c.untied += n
	t.Logf("%s: a neighbour not told apart by the build is %s on the task's database: %s", task.ID, outcome, sql)
}

// tasksAsking are the tasks of ds on db_id whose gold is gold.
func tasksAsking(ds *env.Dataset, dbID, gold string) []*env.Task {
	var out []*env.Task
	for i := range ds.Tasks {
		if t := &ds.Tasks[i]; t.DBID == dbID && t.GoldSQL == gold {
			out = append(out, t)
		}
	}
	return out
}
