package main

import (
	"context"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
)

// tableReader judges a recorded submission again on its database, as
// eval and the server judge it: whether a correct one read no table
// while the gold did (report.TableReader), and how many rows the gold
// returns (report.GoldCounter).
type tableReader struct {
	catalog  *env.Catalog
	datasets []*env.Dataset
	judge    *judge.Judge
}

// ReadsNoTable judges sql again on the episode's task under the episode's
// spec (without its timing runs); ok is false when the task's dataset is
// not at hand or the submission or its gold did not run.
func (r *tableReader) ReadsNoTable(ctx context.Context, t *schemas.Trajectory, sql string) (none, ok bool) {
	v, ok := r.judgeAgain(ctx, t, func(*env.Task) string { return sql })
	if !ok || v.Pred == nil {
		return false, false
	}
	return v.NoTableRead, true
}

// GoldRows counts the rows of the episode's gold as scoring runs it: the
// gold judged as a submission of its own task, under the episode's spec
// (so DISTINCT goes where the spec's match mode removes it), or the
// task's answer rows when it has no gold SQL. ok is false when the task's
// dataset is not at hand or the gold did not run whole.
func (r *tableReader) GoldRows(ctx context.Context, t *schemas.Trajectory) (int, bool) {
	rows := -1
	v, ok := r.judgeAgain(ctx, t, func(task *env.Task) string {
		if task.GoldSQL == "" {
			rows = len(task.GoldRows)
		}
		return task.GoldSQL
	})
	switch {
	case rows >= 0:
		return rows, true
	case !ok || v.Pred == nil || v.Pred.Truncated:
		return 0, false
	}
	return len(v.Pred.Rows), true
}

// judgeAgain judges the SQL sql gives for the episode's task on its
// database under the episode's spec (without its timing runs); ok is
// false when the task's dataset is not at hand or judging failed. An
// empty SQL is not judged.
func (r *tableReader) judgeAgain(ctx context.Context, t *schemas.Trajectory, sql func(*env.Task) string) (judge.Verdict, bool) {
	var ds *env.Dataset
	for _, d := range r.datasets {
		if d.Name == t.Task.Dataset {
			ds = d
		}
	}
	if ds == nil {
		return judge.Verdict{}, false
	}
	task, found := ds.Task(t.Task.TaskID)
	if !found {
		return judge.Verdict{}, false
	}
	q := sql(task)
	if q == "" {
		return judge.Verdict{}, false
	}
	db, err := r.catalog.DB(ctx, ds, task.DBID)
	if err != nil {
		return judge.Verdict{}, false
	}
	spec := t.RewardSpec
	spec.Final.Efficiency = 0 // the timing runs matter not here
	v, err := r.judge.Judge(ctx, db, ds.DBKey(task.DBID), task, q, spec)
	return v, err == nil
}
