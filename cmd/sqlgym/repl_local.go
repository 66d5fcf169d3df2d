package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqltext"
	"github.com/sqlgym/sqlgym/internal/app/repl"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// replLocal is repl.Local on the stack of the REPL's in-process server:
// its catalog, runner and datasets, read beside the episodes.
type replLocal struct {
	st                       *serveStack
	predTimeout, goldTimeout time.Duration // the judge's: --submit-timeout, --gold-timeout
}

// task finds a served task and opens its database.
func (l *replLocal) task(ctx context.Context, taskID string) (*env.Task, env.DB, error) {
	name, _, _ := strings.Cut(taskID, "/")
	for _, ds := range l.st.Datasets {
		if ds.Name != name {
			continue
		}
		t, ok := ds.Task(taskID)
		if !ok {
			break
		}
		db, err := l.st.Catalog.DB(ctx, ds, t.DBID)
		return t, db, err
	}
	return nil, nil, fmt.Errorf("no task %q is served", taskID)
}

// Tables lists the tables of the task's database.
func (l *replLocal) Tables(ctx context.Context, taskID string) ([]repl.Table, error) {
	_, db, err := l.task(ctx, taskID)
	if err != nil {
		return nil, err
	}
	tables, err := db.Tables(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]repl.Table, len(tables))
	for i, t := range tables {
		out[i].Name = t.Name
		for _, c := range t.Columns {
			out[i].Columns = append(out[i].Columns, c.Name)
		}
	}
	return out, nil
}

// Query runs sql as execute_sql does, through the server's runner.
func (l *replLocal) Query(ctx context.Context, taskID, sql string) (*schemas.ResultInfo, *schemas.ToolError, error) {
	_, db, err := l.task(ctx, taskID)
	if err != nil {
		return nil, nil, err
	}
	res, err := l.st.Runner.Execute(ctx, db, &tools.ExecuteSQLArgs{SQL: sql})
	if err != nil {
		return nil, nil, err
	}
	return res.Info, res.Error, nil
}

// Compare runs the submission and the gold as the judge does: DISTINCT
// removed from both outside the bird mode unless keep_distinct, the gold's
// rows standing in for a gold SQL that fails, each under its timeout and
// the judge's row and byte bounds.
func (l *replLocal) Compare(ctx context.Context, taskID, predSQL string, spec schemas.RewardSpec) (*repl.Comparison, error) {
	task, db, err := l.task(ctx, taskID)
	if err != nil {
		return nil, err
	}
	goldSQL := task.GoldSQL
	if spec.Match != schemas.MatchBird && !spec.KeepDistinct { // the judge's rule
		predSQL, goldSQL = sqltext.StripDistinct(predSQL), sqltext.StripDistinct(goldSQL)
	}
	bird := spec.Match == schemas.MatchBird
	c := &repl.Comparison{Ordered: !bird && task.GoldSQL != "" && sqltext.HasOrderBy(task.GoldSQL), Distinct: bird}
	c.Pred = l.run(ctx, db, predSQL, l.predTimeout)
	if task.GoldSQL != "" {
		c.Gold = l.run(ctx, db, goldSQL, l.goldTimeout)
	}
	if task.GoldSQL == "" || c.Gold.Err != "" && task.GoldRows != nil {
		c.Gold = repl.Result{Rows: rawRows(task.GoldRows)}
	}
	return c, ctx.Err()
}

// run runs one statement for Compare.
func (l *replLocal) run(ctx context.Context, db env.DB, sql string, timeout time.Duration) repl.Result {
	rs, err := db.Query(ctx, sql, env.Limits{Timeout: timeout, MaxRows: judge.DefaultMaxRows, MaxResultBytes: judge.DefaultMaxResultBytes})
	var qe *env.QueryError
	switch {
	case errors.As(err, &qe):
		return repl.Result{Err: qe.Message}
	case err != nil:
		return repl.Result{Err: err.Error()}
	}
	return repl.Result{Columns: rs.Columns, Rows: rawRows(rs.Rows), Truncated: rs.Truncated}
}

// rawRows encodes an engine's rows as the wire does, cell by cell.
func rawRows(rows [][]any) [][]json.RawMessage {
	out := make([][]json.RawMessage, len(rows))
	for i, row := range tools.JSONRows(rows) {
		out[i] = make([]json.RawMessage, len(row))
		for j, v := range row {
			b, err := schemas.Marshal(v)
			if err != nil {
				b = []byte("null")
			}
			out[i][j] = b
		}
	}
	return out
}
