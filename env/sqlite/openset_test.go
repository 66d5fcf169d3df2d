package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// smallDBs builds n one-table databases, database i holding the value i,
// and returns their paths.
func smallDBs(t testing.TB, n int) []string {
	t.Helper()
	dir := t.TempDir()
	paths := make([]string, n)
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprintf("db%d.sqlite", i))
		if err := Build(context.Background(), paths[i], fmt.Sprintf("CREATE TABLE t(v INTEGER); INSERT INTO t VALUES (%d);", i)); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// openAll opens every path with e and closes them when the test ends.
func openAll(t testing.TB, e *Engine, paths []string) []env.DB {
	t.Helper()
	dbs := make([]env.DB, len(paths))
	for i, p := range paths {
		d, err := e.Open(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		dbs[i] = d
	}
	return dbs
}

// valueOf runs SELECT v FROM t on d and returns the value.
func valueOf(t *testing.T, d env.DB) (int64, error) {
	t.Helper()
	rs, err := d.Query(context.Background(), "SELECT v FROM t", env.Limits{})
	if err != nil {
		return 0, err
	}
	return rs.Rows[0][0].(int64), nil
}

// TestOpenDatabasesAreBounded: with MaxOpenDBs 3, opening and querying
// 12 databases leaves at most 3 with connections open; every database,
// closed ones included, answers from its own file when asked again.
func TestOpenDatabasesAreBounded(t *testing.T) {
	e := New(Config{MaxOpenDBs: 3})
	dbs := openAll(t, e, smallDBs(t, 12))
	for round := range 2 {
		for i, d := range dbs {
			v, err := valueOf(t, d)
			if err != nil || v != int64(i) {
				t.Fatalf("round %d, database %d: %v, %v", round, i, v, err)
			}
			if n := e.OpenDatabases(); n > 3 {
				t.Fatalf("%d databases open, bound 3", n)
			}
		}
	}
	if st := e.PoolStats(); st.Open > 3*DefaultIdleConns || st.InUse != 0 {
		t.Errorf("stats %+v: want at most %d connections open, none in use", st, 3*DefaultIdleConns)
	}
	for _, d := range dbs {
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n, st := e.OpenDatabases(), e.PoolStats(); n != 0 || st.Open != 0 {
		t.Errorf("after Close: %d databases, %d connections open", n, st.Open)
	}
}

// TestBusyDatabaseStaysOpen: a database running a statement is never
// closed to make room. With a bound of 1 and a runaway holding the first
// database, each other database opens for its call (the set over its
// bound while both run) and is closed when its call ends.
func TestBusyDatabaseStaysOpen(t *testing.T) {
	e := New(Config{MaxOpenDBs: 1})
	dbs := openAll(t, e, smallDBs(t, 4))
	stop := runaway(t, e, dbs[0])
	for i := 1; i < len(dbs); i++ {
		if v, err := valueOf(t, dbs[i]); err != nil || v != int64(i) {
			t.Fatalf("database %d: %v, %v", i, v, err)
		}
		if n := e.OpenDatabases(); n != 1 || !e.holds(dbs[0].(*db)) {
			t.Fatalf("after a call on database %d: %d open, the busy one open: %v; want it alone",
				i, n, e.holds(dbs[0].(*db)))
		}
	}
	stop()
	if n := e.OpenDatabases(); n != 1 {
		t.Errorf("%d databases open after the runaway ended, want 1", n)
	}
}

// runaway starts a statement that never ends on d and returns once it
// holds a connection (the engine's only one in use); stop cancels it and
// waits for it to end.
func runaway(t *testing.T, e *Engine, d env.DB) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := d.Query(ctx, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
			env.Limits{Timeout: time.Minute})
		done <- err
	}()
	waitfor.Until(t, "the runaway to hold a connection", func() bool { return e.PoolStats().InUse == 1 })
	return func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("runaway ended with %v, want context.Canceled", err)
		}
	}
}

// holds reports whether d has its connection pool open.
func (e *Engine) holds(d *db) bool {
	e.open.mu.Lock()
	defer e.open.mu.Unlock()
	return d.pool != nil
}

// TestReopenRefusesAChangedFile: a database closed to make room and whose
// file was replaced since Open is not reopened on the new file, whose
// schema could differ from what was read of the old one.
func TestReopenRefusesAChangedFile(t *testing.T) {
	e := New(Config{MaxOpenDBs: 1})
	paths := smallDBs(t, 3)
	dbs := openAll(t, e, paths[:2]) // opening the second closes the first
	if err := os.Rename(paths[2], paths[0]); err != nil {
		t.Fatal(err)
	}
	_, err := valueOf(t, dbs[0])
	if err == nil || !strings.Contains(err.Error(), "replaced or changed after the server opened it") ||
		!strings.Contains(err.Error(), paths[0]) {
		t.Errorf("query on a replaced file: %v, want a refusal naming the file", err)
	}
	if v, err := valueOf(t, dbs[1]); err != nil || v != 1 {
		t.Errorf("the other database: %v, %v", v, err)
	}
}

// TestClosedDatabaseRefusesCalls: a call after Close fails, whether the
// database still had connections open or not.
func TestClosedDatabaseRefusesCalls(t *testing.T) {
	e := New(Config{MaxOpenDBs: 1})
	dbs := openAll(t, e, smallDBs(t, 2))
	for i, d := range dbs {
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := valueOf(t, d); !errors.Is(err, errDBClosed) {
			t.Errorf("database %d after Close: %v, want %v", i, err, errDBClosed)
		}
		if _, err := d.Tables(context.Background()); !errors.Is(err, errDBClosed) {
			t.Errorf("database %d tables after Close: %v, want %v", i, err, errDBClosed)
		}
	}
}

// TestOpenSetUnderConcurrentCalls: calls on 16 databases from 8
// goroutines through a set of 3 each read their own database, and leave
// the set within its bound with no connection in use. Run under -race.
func TestOpenSetUnderConcurrentCalls(t *testing.T) {
	e := New(Config{MaxOpenDBs: 3})
	dbs := openAll(t, e, smallDBs(t, 16))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for k := range 60 {
				i := (g*7 + k*5) % len(dbs)
				rs, err := dbs[i].Query(context.Background(), "SELECT v FROM t", env.Limits{})
				if err != nil || rs.Rows[0][0] != int64(i) {
					errs <- fmt.Errorf("database %d: %v %v", i, rs, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n, st := e.OpenDatabases(), e.PoolStats(); n > 3 || st.InUse != 0 {
		t.Errorf("%d databases open (bound 3), %d connections in use", n, st.InUse)
	}
}

// TestIdleClosesConnections: Idle closes an idle database's connections,
// and its next call opens new ones; a database a call runs on keeps its
// connections through Idle.
func TestIdleClosesConnections(t *testing.T) {
	e := New(Config{})
	dbs := openAll(t, e, smallDBs(t, 2))
	dbs[0].(env.Idler).Idle()
	if n, st := e.OpenDatabases(), e.PoolStats(); n != 1 || st.Open != 1 {
		t.Fatalf("after Idle: %d databases and %d connections open, want the other database's 1", n, st.Open)
	}
	if v, err := valueOf(t, dbs[0]); err != nil || v != 0 {
		t.Fatalf("after Idle: %v, %v", v, err)
	}
	stop := runaway(t, e, dbs[1])
	dbs[1].(env.Idler).Idle()
	if !e.holds(dbs[1].(*db)) {
		t.Error("Idle closed a database a call runs on")
	}
	stop()
}

// BenchmarkQueryReopening runs a one-row query on MaxOpenDBs + 1 small
// databases in turn, so that every call opens its database and closes
// the connection of the least recently used one, with MaxOpenDBs others
// open: the price of a call on a database outside the open set, at
// several bounds. go-sqlite3's close walks the callback handles of every
// open connection (six a connection), and SQLite's open walks its list
// of open files, so the price grows with the bound.
func BenchmarkQueryReopening(b *testing.B) {
	one := smallDBs(b, 1)[0]
	data, err := os.ReadFile(one)
	if err != nil {
		b.Fatal(err)
	}
	for _, bound := range []int{1, 16, 256, 1024} {
		b.Run(fmt.Sprintf("open-max=%d", bound), func(b *testing.B) {
			dir := b.TempDir()
			paths := make([]string, bound+1)
			for i := range paths {
				paths[i] = filepath.Join(dir, fmt.Sprintf("db%d.sqlite", i))
				if err := os.WriteFile(paths[i], data, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			e := New(Config{MaxOpenDBs: bound})
			dbs := openAll(b, e, paths)
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := dbs[i%len(dbs)].Query(ctx, "SELECT v FROM t", env.Limits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
