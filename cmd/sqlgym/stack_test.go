package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// parseStack parses args as the stack flags of a command.
func parseStack(t *testing.T, args ...string) *stackFlags {
	t.Helper()
	var s stackFlags
	fs := newFlagSet("serve", &strings.Builder{})
	s.register(fs)
	if err := parseFlags(fs, args); err != nil {
		t.Fatal(err)
	}
	return &s
}

func TestStackFlagsDBPoolUsage(t *testing.T) {
	for _, args := range [][]string{{"--db-conns", "0"}, {"--db-running", "0"}, {"--db-open-max", "0"}} {
		err := parseStack(t, args...).check()
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%v: error %v, want a usage error naming the flag", args, err)
		}
	}
}

// TestStackFlagsDBPoolReachTheEngine: --db-conns and --db-running bound
// the engine the stack builds. With one connection (or one slot) held by
// a runaway, execute_sql times out within --query-timeout, naming what
// it waited for.
func TestStackFlagsDBPoolReachTheEngine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "one.sqlite")
	if err := sqlite.Build(context.Background(), path, "CREATE TABLE t(x); INSERT INTO t VALUES (1);"); err != nil {
		t.Fatal(err)
	}
	ds := &env.Dataset{Name: "d", Dialect: "sqlite", DBs: map[string]string{"one": path}}
	for _, tt := range []struct {
		flag, want string
	}{
		{"--db-conns", "all 1 connections"},
		{"--db-running", "1 statements at once"},
	} {
		t.Run(tt.flag, func(t *testing.T) {
			catalog, runner, _ := parseStack(t, tt.flag, "1", "--query-timeout", "50ms").engines(nil)
			defer catalog.Close()
			db, err := catalog.DB(context.Background(), ds, "one")
			if err != nil {
				t.Fatal(err)
			}
			stop := holdWithRunaway(t, catalog, db)
			defer stop()
			res, err := runner.Execute(context.Background(), db, &tools.ExecuteSQLArgs{SQL: "SELECT 1"})
			if err != nil || res.Error == nil || res.Error.Code != schemas.ErrCodeTimeout || !strings.Contains(res.Content, tt.want) {
				t.Errorf("SELECT 1 = %+v, %v; want a timeout saying %q", res, err, tt.want)
			}
		})
	}
}

// holdWithRunaway runs a never-ending query on db until the returned
// function is called (which waits for it to end), once the catalog shows
// its connection in use.
func holdWithRunaway(t *testing.T, catalog *env.Catalog, db env.DB) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		db.Query(ctx, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r",
			env.Limits{Timeout: time.Minute})
	}()
	stop := func() { cancel(); <-done }
	if !waitfor.Within(waitfor.Timeout, func() bool { return catalog.PoolStats().InUse >= 1 }) {
		stop()
		t.Fatal("the runaway never took a connection")
	}
	return stop
}
