package episodes_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestResetOnADatabaseThatWillNotOpen resets, through a real server, a
// task whose database file holds text: the client is told which database
// failed and why, the failure is logged with the dataset, db_id and
// error, and a task on a good database of the same dataset still plays.
func TestResetOnADatabaseThatWillNotOpen(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "shop.sqlite")
	if err := sqlite.Build(context.Background(), good, shopSQL); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "x.sqlite")
	if err := os.WriteFile(bad, []byte("this is not a database, only some text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds := &env.Dataset{Name: "t", Dialect: "sqlite", DBs: map[string]string{"shop": good, "x": bad}, Tasks: []env.Task{
		{ID: "t/good", Dataset: "t", DBID: "shop", Question: "How many items?", GoldSQL: "SELECT count(*) FROM items"},
		{ID: "t/bad", Dataset: "t", DBID: "x", Question: "Anything?", GoldSQL: "SELECT 1"},
	}}
	if err := ds.Index(); err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zapcore.WarnLevel)
	h := startHarness(t, options{cfg: func(c *episodes.Config) { c.Logger = zap.New(core) }}, dir, ds)
	c := h.dial()
	_, err := c.Reset(context.Background(), schemas.ResetParams{TaskID: "t/bad"})
	if rpcCode(err) != schemas.CodeInternal {
		t.Fatalf("reset on a text file: %v, want -32603", err)
	}
	for _, want := range []string{"database t/x would not open", bad, "file is not a database"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("reset error %q does not say %q", err, want)
		}
	}
	entries := logs.FilterMessage("database would not open").All()
	if len(entries) != 1 {
		t.Fatalf("%d log entries for the failed open, want 1: %+v", len(entries), logs.All())
	}
	fields := entries[0].ContextMap()
	if entries[0].Level < zapcore.WarnLevel || fields["dataset"] != "t" || fields["db_id"] != "x" ||
		!strings.Contains(fields["error"].(string), "file is not a database") {
		t.Errorf("log entry %v %v, want dataset t, db_id x and the cause", entries[0].Level, fields)
	}
	reset(t, c, schemas.ResetParams{TaskID: "t/good"})
}
