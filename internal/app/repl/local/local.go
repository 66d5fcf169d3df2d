// Package local is the REPL's Local over a server run in this process:
// a task's tables, execute_sql and the judge's comparison read through
// the same catalog, runner and judge the server's episodes use, so that
// what .peek shows is what a step or a submission would meet.
package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/app/repl"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// Local is repl.Local on the stack of the REPL's in-process server: its
// datasets, catalog, runner and judge, read beside the episodes.
type Local struct {
	Datasets []*env.Dataset
	Catalog  *env.Catalog
	Runner   *tools.Runner
	Judge    *judge.Judge
}

var _ repl.Local = (*Local)(nil)

// task finds a served task and opens its database.
func (l *Local) task(ctx context.Context, taskID string) (*env.Task, env.DB, error) {
	name, _, _ := strings.Cut(taskID, "/")
	ds, t, ok := env.FindTask(l.Datasets, name, taskID)
	if !ok {
		return nil, nil, fmt.Errorf("no task %q is served", taskID)
	}
	db, err := l.Catalog.DB(ctx, ds, t.DBID)
	return t, db, err
}

// Tables lists the tables of the task's database.
func (l *Local) Tables(ctx context.Context, taskID string) ([]repl.Table, error) {
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
func (l *Local) Query(ctx context.Context, taskID, sql string) (*schemas.ResultInfo, *schemas.ToolError, error) {
	_, db, err := l.task(ctx, taskID)
	if err != nil {
		return nil, nil, err
	}
	res, err := l.Runner.Execute(ctx, db, &tools.ExecuteSQLArgs{SQL: sql})
	if err != nil {
		return nil, nil, err
	}
	return res.Info, res.Error, nil
}

// Compare runs the submission and the gold as the judge does
// (judge.Sides).
func (l *Local) Compare(ctx context.Context, taskID, predSQL string, spec schemas.RewardSpec) (*repl.Comparison, error) {
	task, db, err := l.task(ctx, taskID)
	if err != nil {
		return nil, err
	}
	s, err := l.Judge.Sides(ctx, db, task, predSQL, spec)
	if err != nil {
		return nil, err
	}
	return &repl.Comparison{Pred: replResult(s.Pred), Gold: replResult(s.Gold), Ordered: s.Ordered, Distinct: s.Distinct}, nil
}

// replResult is one side of a comparison as the REPL shows it.
func replResult(s judge.Side) repl.Result {
	var qe *env.QueryError
	switch {
	case errors.As(s.Err, &qe):
		return repl.Result{Err: qe.Message}
	case s.Err != nil:
		return repl.Result{Err: s.Err.Error()}
	case s.Result == nil:
		return repl.Result{}
	}
	return repl.Result{Columns: s.Result.Columns, Rows: rawRows(s.Result.Rows), Truncated: s.Result.Truncated}
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
