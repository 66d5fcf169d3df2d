package suitegen

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/reward/testsuite"
	"github.com/sqlgym/sqlgym/schemas"
)

// suiteJudging is the path a submission takes when a server judges on
// built suites: the store opened through a catalog of the SQLite engine,
// the task databases through the same catalog, and a judge with the
// store as its Suites and every tie judged (TiesAny). One verdict holds
// both answers: ExecOutcome is the task's database alone (EX), Outcome
// the suite too (TS).
type suiteJudging struct {
	ds    *env.Dataset
	cat   *env.Catalog
	store *testsuite.Store
	judge *judge.Judge
}

// newSuiteJudging opens the store at root for ds with the SQLite engine's
// defaults; everything it opens is closed when the test ends.
func newSuiteJudging(t testing.TB, root string, ds *env.Dataset) *suiteJudging {
	t.Helper()
	return newSuiteJudgingWith(t, root, ds, sqlite.Config{})
}

// newSuiteJudgingWith is newSuiteJudging with the engine configured by
// cfg.
func newSuiteJudgingWith(t testing.TB, root string, ds *env.Dataset, cfg sqlite.Config) *suiteJudging {
	t.Helper()
	cat := env.NewCatalog(sqlite.New(cfg))
	t.Cleanup(func() { cat.Close() })
	store, err := testsuite.Open(context.Background(), root, []*env.Dataset{ds}, cat)
	if err != nil {
		t.Fatal(err)
	}
	j := judge.New(judge.Config{Suites: store, Ties: judge.TiesAny})
	return &suiteJudging{ds: ds, cat: cat, store: store, judge: j}
}

// verdict judges sql as the prediction of task under spec.
func (s *suiteJudging) verdict(ctx context.Context, task *env.Task, sql string, spec schemas.RewardSpec) (judge.Verdict, error) {
	db, err := s.cat.DB(ctx, s.ds, task.DBID)
	if err != nil {
		return judge.Verdict{}, err
	}
	return s.judge.Judge(ctx, db, s.ds.DBKey(task.DBID), task, sql, spec)
}

// task returns the task of Spider-dev's dev.json at index i.
func (s *suiteJudging) task(t testing.TB, i int) *env.Task {
	t.Helper()
	task, ok := s.ds.Task(fmt.Sprintf("%s/%d", s.ds.Name, i))
	if !ok {
		t.Fatalf("no task %d in %s", i, s.ds.Name)
	}
	return task
}

// judgeSpecs are the rules every gold must pass on its own suite: bird,
// spider (DISTINCT removed, as the official evaluator does by default)
// and spider with DISTINCT kept.
var judgeSpecs = []schemas.RewardSpec{
	{Match: schemas.MatchBird},
	{Match: schemas.MatchSpider},
	{Match: schemas.MatchSpider, KeepDistinct: true},
}

// specName names a spec in messages.
func specName(s schemas.RewardSpec) string {
	if s.KeepDistinct {
		return s.Match + "+keep_distinct"
	}
	return s.Match
}

// checkGoldsOnSuites judges every task's gold as its own prediction under
// each of judgeSpecs: it must be correct on the task's database and on
// every database of its suite. It logs how many tasks have a suite and
// how many databases a suite holds.
func checkGoldsOnSuites(t *testing.T, s *suiteJudging) {
	ctx := context.Background()
	var sizes []int
	for i := range s.ds.Tasks {
		task := &s.ds.Tasks[i]
		for _, spec := range judgeSpecs {
			v, err := s.verdict(ctx, task, task.GoldSQL, spec)
			if err != nil {
				t.Fatal(err)
			}
			if v.Outcome != schemas.OutcomeCorrect || v.Suite.Judged != v.Suite.Databases || v.Suite.GoldFailed > 0 {
				t.Errorf("%s (%s): %s (on its database %s), suite %+v", task.ID, specName(spec), v.Outcome, v.ExecOutcome, v.Suite)
			}
			if spec == judgeSpecs[0] {
				sizes = append(sizes, v.Suite.Databases)
			}
		}
	}
	slices.Sort(sizes)
	covered := len(sizes) - countEqual(sizes, 0)
	t.Logf("tasks %d, with a suite %d (%.1f%%); databases per task with a suite: mean %.2f, median %d, max %d; %s",
		len(sizes), covered, 100*share(covered, len(sizes)), share(sum(sizes), covered), sizes[len(sizes)-covered+covered/2],
		sizes[len(sizes)-1], histogram(sizes))
	if covered < len(sizes)*95/100 {
		t.Errorf("%d of %d tasks have a suite; want 95%% or more", covered, len(sizes))
	}
}

// countEqual is how many of xs equal x.
func countEqual(xs []int, x int) int {
	n := 0
	for _, v := range xs {
		if v == x {
			n++
		}
	}
	return n
}

// sum adds up xs.
func sum(xs []int) int {
	n := 0
	for _, v := range xs {
		n += v
	}
	return n
}

// histogram says how many of the sorted sizes take each value.
func histogram(sorted []int) string {
	out := "tasks by suite size:"
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		out += fmt.Sprintf(" %d:%d", sorted[i], j-i)
		i = j
	}
	return out
}
