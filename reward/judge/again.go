package judge

import (
	"context"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// Again judges a recorded episode's submission again on its database,
// as the server judged it, for reports over a log: whether a correct one
// read no table while the gold did (the run report's TableReader), and
// how many rows the gold returns (its GoldCounter).
type Again struct {
	Catalog  *env.Catalog
	Datasets []*env.Dataset
	Judge    *Judge
}

// ReadsNoTable judges sql again on the episode's task under the episode's
// spec (without its timing runs); ok is false when the task's dataset is
// not at hand or the submission or its gold did not run.
func (a *Again) ReadsNoTable(ctx context.Context, t *schemas.Trajectory, sql string) (none, ok bool) {
	v, ok := a.judge(ctx, t, func(*env.Task) string { return sql })
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
func (a *Again) GoldRows(ctx context.Context, t *schemas.Trajectory) (int, bool) {
	rows := -1
	v, ok := a.judge(ctx, t, func(task *env.Task) string {
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

// judge judges the SQL sql gives for the episode's task on its database
// under the episode's spec (without its timing runs); ok is false when
// the task's dataset is not at hand or judging failed. An empty SQL is
// not judged.
func (a *Again) judge(ctx context.Context, t *schemas.Trajectory, sql func(*env.Task) string) (Verdict, bool) {
	ds, task, found := env.FindTask(a.Datasets, t.Task.Dataset, t.Task.TaskID)
	if !found {
		return Verdict{}, false
	}
	q := sql(task)
	if q == "" {
		return Verdict{}, false
	}
	db, err := a.Catalog.DB(ctx, ds, task.DBID)
	if err != nil {
		return Verdict{}, false
	}
	spec := t.RewardSpec
	spec.Final.Efficiency = 0 // the timing runs matter not here
	v, err := a.Judge.Judge(ctx, db, ds.DBKey(task.DBID), task, q, spec)
	return v, err == nil
}
