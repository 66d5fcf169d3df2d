package local_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/app/repl/local"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/schemas"
)

// demoLocal is a Local over the embedded demo's stack, and the demo's
// first task.
func demoLocal(t *testing.T) (*local.Local, string, string) {
	t.Helper()
	ds, err := stack.Demo(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := stack.New(stack.EngineConfig{}, nil, ds)
	t.Cleanup(func() { st.Close() })
	task := ds.Tasks[0]
	return &local.Local{Datasets: st.Datasets, Catalog: st.Catalog, Runner: st.Runner, Judge: st.Judge}, task.ID, task.GoldSQL
}

// TestTablesAndQuery: a task's tables with their columns; a statement
// run as execute_sql runs it, a bad one answered as the model's tool
// error; a task not served is an error naming it.
func TestTablesAndQuery(t *testing.T) {
	l, taskID, _ := demoLocal(t)
	ctx := context.Background()
	tables, err := l.Tables(ctx, taskID)
	if err != nil || len(tables) == 0 || len(tables[0].Columns) == 0 {
		t.Fatalf("tables %+v, %v; want some, with columns", tables, err)
	}
	info, terr, err := l.Query(ctx, taskID, "SELECT 1 + 1 AS two")
	if err != nil || terr != nil || len(info.Rows) != 1 || info.Columns[0] != "two" {
		t.Fatalf("SELECT 1 + 1: %+v, %+v, %v", info, terr, err)
	}
	if _, terr, err := l.Query(ctx, taskID, "SELECT * FROM no_such_table"); err != nil || terr == nil {
		t.Errorf("a missing table: tool error %+v, error %v; want a tool error", terr, err)
	}
	if _, err := l.Tables(ctx, "demo/no-such-task"); err == nil || !strings.Contains(err.Error(), `no task "demo/no-such-task" is served`) {
		t.Errorf("a task not served: %v", err)
	}
}

// TestCompare: the gold beside itself has the same rows, cells as JSON;
// a failing submission carries its error and no rows.
func TestCompare(t *testing.T) {
	l, taskID, gold := demoLocal(t)
	ctx := context.Background()
	spec := schemas.DefaultRewardSpec()
	c, err := l.Compare(ctx, taskID, gold, spec)
	if err != nil {
		t.Fatal(err)
	}
	if c.Pred.Err != "" || c.Gold.Err != "" || len(c.Pred.Rows) == 0 || len(c.Pred.Rows) != len(c.Gold.Rows) {
		t.Fatalf("gold beside itself: %+v", c)
	}
	for i := range c.Pred.Rows {
		for j := range c.Pred.Rows[i] {
			if string(c.Pred.Rows[i][j]) != string(c.Gold.Rows[i][j]) {
				t.Errorf("row %d cell %d: %s beside %s", i, j, c.Pred.Rows[i][j], c.Gold.Rows[i][j])
			}
		}
	}
	c, err = l.Compare(ctx, taskID, "SELECT nothing FROM nowhere", spec)
	if err != nil || c.Pred.Err == "" || len(c.Pred.Rows) != 0 || len(c.Gold.Rows) == 0 {
		t.Errorf("a failing submission: %+v, %v; want its error beside the gold's rows", c, err)
	}
}
