package main

import (
	"context"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
)

// tableReader tells whether a correct submission read no table of its
// database while the gold did by judging it again, as eval and the
// server judge it (report.TableReader).
type tableReader struct {
	catalog  *env.Catalog
	datasets []*env.Dataset
	judge    *judge.Judge
}

// ReadsNoTable judges sql again on the episode's task under the episode's
// spec (without its timing runs); ok is false when the task's dataset is
// not at hand or the submission or its gold did not run.
func (r *tableReader) ReadsNoTable(ctx context.Context, t *schemas.Trajectory, sql string) (none, ok bool) {
	var ds *env.Dataset
	for _, d := range r.datasets {
		if d.Name == t.Task.Dataset {
			ds = d
		}
	}
	if ds == nil {
		return false, false
	}
	task, found := ds.Task(t.Task.TaskID)
	if !found {
		return false, false
	}
	db, err := r.catalog.DB(ctx, ds, task.DBID)
	if err != nil {
		return false, false
	}
	spec := t.RewardSpec
	spec.Final.Efficiency = 0 // only the tables read matter here
	v, err := r.judge.Judge(ctx, db, ds.DBKey(task.DBID), task, sql, spec)
	if err != nil || v.Pred == nil {
		return false, false
	}
	return v.NoTableRead, true
}
