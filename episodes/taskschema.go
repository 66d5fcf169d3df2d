package episodes

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// TaskSchema is the result of tasks.schema: the tables of a task's
// database with their columns, read through the catalog as the
// episodes' own tools read them. It is no step of any episode: nothing
// is recorded or paid.
func (m *Manager) TaskSchema(ctx context.Context, p schemas.TasksSchemaParams) (*schemas.TasksSchemaResult, error) {
	if p.TaskID == "" {
		return nil, errorf(InvalidArgument, "task_id is missing: tasks.schema reads the database of one task, named as tasks.list names it")
	}
	task, ds, err := m.pickTask(schemas.ResetParams{TaskID: p.TaskID})
	if err != nil {
		return nil, err
	}
	db, err := m.cfg.Catalog.DB(ctx, ds, task.DBID)
	if err == nil {
		var res *schemas.TasksSchemaResult
		if res, err = readSchema(ctx, db); err == nil {
			res.TaskID, res.Dataset, res.DBID, res.Dialect = task.ID, ds.Name, task.DBID, string(ds.Dialect)
			return res, nil
		}
	}
	if ctx.Err() == nil { // not the caller giving up
		m.cfg.Logger.Error("schema not read", zap.String("dataset", ds.Name), zap.String("db_id", task.DBID), zap.Error(err))
	}
	return nil, fmt.Errorf("tasks.schema %s: database %s/%s: %w", task.ID, ds.Name, task.DBID, err)
}

// readSchema lists db's tables and their columns.
func readSchema(ctx context.Context, db env.DB) (*schemas.TasksSchemaResult, error) {
	tables, err := db.Tables(ctx)
	if err != nil {
		return nil, err
	}
	res := &schemas.TasksSchemaResult{Tables: make([]schemas.SchemaTable, len(tables))}
	for i, t := range tables {
		cols := make([]schemas.SchemaColumn, len(t.Columns))
		for j, c := range t.Columns {
			cols[j] = schemas.SchemaColumn{Name: c.Name, Type: c.Type}
		}
		res.Tables[i] = schemas.SchemaTable{Name: t.Name, Columns: cols}
	}
	return res, nil
}
