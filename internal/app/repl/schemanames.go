package repl

import (
	"context"
	"errors"

	"github.com/sqlgym/sqlgym/schemas"
)

// readTables lists the tables of a task's database with their columns:
// through Local with the REPL's own server, else by asking the server
// elsewhere (tasks.schema, which spends no turn and is not recorded). A
// server that does not know tasks.schema is asked no more: Tab then
// completes what inspect_schema showed (learn).
func (s *session) readTables(ctx context.Context, taskID string) ([]Table, error) {
	if s.local != nil {
		return s.local.Tables(ctx, taskID)
	}
	r, err := s.c.TaskSchema(ctx, taskID)
	var rpc *schemas.Error
	if errors.As(err, &rpc) && rpc.Code == schemas.CodeMethodNotFound {
		s.noSchema = true
	}
	if err != nil {
		return nil, err
	}
	out := make([]Table, len(r.Tables))
	for i, t := range r.Tables {
		out[i].Name = t.Name
		for _, c := range t.Columns {
			out[i].Columns = append(out[i].Columns, c.Name)
		}
	}
	return out, nil
}
