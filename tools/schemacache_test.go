package tools

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// countingDB is a real database that counts the catalog reads made of it
// and, when gate is set, holds each one until gate is closed. It reports
// itself immutable when the database it wraps does, unless mutable is set.
type countingDB struct {
	env.DB
	tables, describes atomic.Int64
	gate              chan struct{}
	mutable           bool
}

func (c *countingDB) Immutable() bool {
	im, ok := c.DB.(env.Immutable)
	return !c.mutable && ok && im.Immutable()
}

func (c *countingDB) Tables(ctx context.Context) ([]env.Table, error) {
	c.tables.Add(1)
	if err := c.hold(ctx); err != nil {
		return nil, err
	}
	return c.DB.Tables(ctx)
}

func (c *countingDB) Describe(ctx context.Context, table string, samples int) (*env.Table, error) {
	c.describes.Add(1)
	if err := c.hold(ctx); err != nil {
		return nil, err
	}
	return c.DB.Describe(ctx, table, samples)
}

func (c *countingDB) hold(ctx context.Context) error {
	if c.gate == nil {
		return nil
	}
	select {
	case <-c.gate:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *countingDB) reads() int64 { return c.tables.Load() + c.describes.Load() }

// inspectInputs are the inspect_schema calls compared on a database: the
// table list, every table by its name, in other cases and padded, and a
// name that is no table.
func inspectInputs(t *testing.T, db env.DB) []string {
	t.Helper()
	tables, err := db.Tables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	in := []string{"", "no_such_table"}
	for _, tbl := range tables {
		in = append(in, tbl.Name, strings.ToUpper(tbl.Name), " "+strings.ToLower(tbl.Name)+"\t", tbl.Name+"s")
	}
	return in
}

// sameResult fails t unless got and want show the model the same thing.
func sameResult(t *testing.T, what string, got, want Result, gotErr, wantErr error) {
	t.Helper()
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%s: error %v, want %v", what, gotErr, wantErr)
	}
	if got.Content != want.Content {
		t.Errorf("%s: content differs\n--- cached ---\n%s\n--- uncached ---\n%s", what, got.Content, want.Content)
	}
	if (got.Error == nil) != (want.Error == nil) || got.Error != nil && *got.Error != *want.Error {
		t.Errorf("%s: error %+v, want %+v", what, got.Error, want.Error)
	}
}

// TestSchemaCacheSpiderDev inspects every table of every Spider-dev
// database through a caching runner, twice, and through one that keeps
// nothing: the observations are the same byte for byte, and the second
// round of successes reads no catalog.
func TestSchemaCacheSpiderDev(t *testing.T) {
	dir := spiderdev.Dir(t)
	paths, err := filepath.Glob(filepath.Join(dir, "database", "*", "*.sqlite"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no databases under %s: %v", dir, err)
	}
	ctx := context.Background()
	for _, obs := range []int{DefaultObservationBytes, 600} {
		cached := NewRunner(Config{ObservationBytes: obs})
		uncached := NewRunner(Config{ObservationBytes: obs, SchemaCacheBytes: -1})
		for _, path := range paths {
			db := &countingDB{DB: openFile(t, path)}
			inputs := inspectInputs(t, db.DB)
			for round := 1; round <= 2; round++ {
				before, misses := db.reads(), int64(0)
				for _, in := range inputs {
					what := fmt.Sprintf("%s, %d bytes, round %d, table %q", filepath.Base(path), obs, round, in)
					got, gotErr := cached.Inspect(ctx, db, env.SQLite, &InspectSchemaArgs{Table: in})
					want, wantErr := uncached.Inspect(ctx, db.DB, env.SQLite, &InspectSchemaArgs{Table: in})
					sameResult(t, what, got, want, gotErr, wantErr)
					if want.Error != nil && want.Error.Code == schemas.ErrCodeNoSuchTable {
						misses++
					}
				}
				if n := db.reads() - before; round == 2 && n != misses {
					t.Errorf("%s: round 2 read the catalog %d times, want %d (once per unknown table)", filepath.Base(path), n, misses)
				}
			}
			if n := cached.schema.bytes(db); n <= 0 || n > DefaultSchemaCacheBytes {
				t.Errorf("%s: %d bytes kept, want some and at most %d", filepath.Base(path), n, DefaultSchemaCacheBytes)
			}
		}
	}
}

// TestSchemaCacheUnknownTable: an unknown table is an error as without a
// cache, listing the tables, and it is read again on every call.
func TestSchemaCacheUnknownTable(t *testing.T) {
	db := &countingDB{DB: openScript(t, concertScript)}
	r := NewRunner(Config{})
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		res, err := r.Inspect(ctx, db, env.SQLite, &InspectSchemaArgs{Table: "singers"})
		if err != nil || res.Error == nil || res.Error.Code != schemas.ErrCodeNoSuchTable {
			t.Fatalf("call %d: %v %+v, want no_such_table", i, err, res.Error)
		}
		if want := "Error: no such table: singers\nThe tables are: stadium, singer, concert, numbers"; res.Content != want {
			t.Fatalf("call %d: content %q, want %q", i, res.Content, want)
		}
	}
	if got := db.describes.Load(); got != 3 {
		t.Errorf("Describe called %d times, want 3: an unknown table is never kept", got)
	}
	if got := db.tables.Load(); got != 1 {
		t.Errorf("Tables called %d times, want 1: the names are kept", got)
	}
}

// TestSchemaCacheMutable: a database that is not immutable is read on
// every call, and nothing of it is kept.
func TestSchemaCacheMutable(t *testing.T) {
	db := &countingDB{DB: openScript(t, concertScript), mutable: true}
	r := NewRunner(Config{})
	for i := 0; i < 2; i++ {
		for _, in := range []string{"", "singer"} {
			if res, err := r.Inspect(context.Background(), db, env.SQLite, &InspectSchemaArgs{Table: in}); err != nil || res.Error != nil {
				t.Fatalf("inspect %q: %v %+v", in, err, res.Error)
			}
		}
	}
	if got := db.reads(); got != 4 {
		t.Errorf("%d catalog reads, want 4", got)
	}
	if n := r.schema.bytes(db); n != 0 {
		t.Errorf("%d bytes kept of a mutable database", n)
	}
}

// TestSchemaCacheBounded: of a database with many tables of large
// values, the runner keeps no more than its bound, and what it does not
// keep is shown all the same, read again on each call.
func TestSchemaCacheBounded(t *testing.T) {
	var script strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&script, "CREATE TABLE t%03d (id INTEGER PRIMARY KEY, body TEXT NOT NULL);\n", i)
		fmt.Fprintf(&script, "INSERT INTO t%03d VALUES (1, printf('%%.*c', 20000, 'x')), (2, 'short');\n", i)
	}
	db := &countingDB{DB: openScript(t, script.String())}
	const bound = 16 << 10
	r := NewRunner(Config{SchemaCacheBytes: bound})
	uncached := NewRunner(Config{SchemaCacheBytes: -1})
	ctx := context.Background()
	for round := 1; round <= 2; round++ {
		for _, in := range []string{"", "t000", "t150", "T199", "t999"} {
			got, gotErr := r.Inspect(ctx, db, env.SQLite, &InspectSchemaArgs{Table: in})
			want, wantErr := uncached.Inspect(ctx, db.DB, env.SQLite, &InspectSchemaArgs{Table: in})
			sameResult(t, fmt.Sprintf("round %d, table %q", round, in), got, want, gotErr, wantErr)
		}
	}
	if n := r.schema.bytes(db); n <= 0 || n > bound {
		t.Errorf("%d bytes kept, want some and at most %d", n, bound)
	}
	for i := 0; i < 200; i++ {
		if _, err := r.Inspect(ctx, db, env.SQLite, &InspectSchemaArgs{Table: fmt.Sprintf("t%03d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.schema.bytes(db); n > bound {
		t.Errorf("%d bytes kept after every table, want at most %d", n, bound)
	}
	before := db.describes.Load()
	r.Inspect(ctx, db, env.SQLite, &InspectSchemaArgs{Table: "t198"}) // first seen in the pass above, when the bound was reached
	if db.describes.Load() != before+1 {
		t.Errorf("a table past the bound was not read again")
	}
}

// waitFor waits until cond holds, failing t after a deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waitfor.Until(t, what, cond)
}

func (c *schemaCache) waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waiting
}

// TestSchemaCacheBurst: a burst of first calls for the same text reads
// the catalog once; every caller sees the same text.
func TestSchemaCacheBurst(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // runs last, after the databases close
	const callers = 16
	for _, in := range []string{"", "singer", "SINGER"} {
		db := &countingDB{DB: openScript(t, concertScript), gate: make(chan struct{})}
		release := sync.OnceFunc(func() { close(db.gate) })
		t.Cleanup(release) // lets the callers go should the test fail early
		r := NewRunner(Config{})
		results := make([]Result, callers)
		var wg sync.WaitGroup
		for i := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], _ = r.Inspect(context.Background(), db, env.SQLite, &InspectSchemaArgs{Table: in})
			}()
		}
		waitFor(t, "callers to wait on the first", func() bool { return r.schema.waiters() == callers-1 })
		release()
		wg.Wait()
		if got := db.reads(); got != 1 {
			t.Errorf("table %q: %d catalog reads for %d callers at once, want 1", in, got, callers)
		}
		want, _ := NewRunner(Config{SchemaCacheBytes: -1}).Inspect(context.Background(), db.DB, env.SQLite, &InspectSchemaArgs{Table: in})
		for i, res := range results {
			if res.Content != want.Content || res.Error != nil {
				t.Errorf("table %q, caller %d: %q %+v, want %q", in, i, res.Content, res.Error, want.Content)
			}
		}
	}
}

// TestSchemaCacheLeaderGivesUp: when the caller reading for the others
// gives up, its error is its own: each waiting caller reads for itself,
// and nothing is kept of the failure.
func TestSchemaCacheLeaderGivesUp(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // runs last, after the databases close
	db := &countingDB{DB: openScript(t, concertScript), gate: make(chan struct{})}
	release := sync.OnceFunc(func() { close(db.gate) })
	t.Cleanup(release) // lets the callers go should the test fail early
	r := NewRunner(Config{})
	lctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var leaderErr error
	leaderDone := make(chan struct{})
	go func() {
		defer close(leaderDone)
		_, leaderErr = r.Inspect(lctx, db, env.SQLite, &InspectSchemaArgs{Table: "concert"})
	}()
	waitFor(t, "the first caller to read", func() bool { return db.reads() == 1 })
	const followers = 4
	results := make([]Result, followers)
	errs := make([]error, followers)
	var wg sync.WaitGroup
	for i := range followers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = r.Inspect(context.Background(), db, env.SQLite, &InspectSchemaArgs{Table: "concert"})
		}()
	}
	waitFor(t, "callers to wait on the first", func() bool { return r.schema.waiters() == followers })
	cancel()
	<-leaderDone
	if !errors.Is(leaderErr, context.Canceled) {
		t.Errorf("first caller: %v, want its context's error", leaderErr)
	}
	release()
	wg.Wait()
	want, _ := NewRunner(Config{SchemaCacheBytes: -1}).Inspect(context.Background(), db.DB, env.SQLite, &InspectSchemaArgs{Table: "concert"})
	for i := range results {
		if errs[i] != nil || results[i].Content != want.Content {
			t.Errorf("caller %d: %v %q, want %q", i, errs[i], results[i].Content, want.Content)
		}
	}
	if got := db.reads(); got != 1+followers {
		t.Errorf("%d catalog reads, want %d: the first caller's and each waiting caller's own", got, 1+followers)
	}
	if n := r.schema.bytes(db); n != 0 {
		t.Errorf("%d bytes kept, want none: the waiting callers read for themselves", n)
	}
}

func TestFoldASCII(t *testing.T) {
	tests := []struct{ in, want string }{
		{"singer", "singer"}, {"Singer_ID", "singer_id"}, {"ÉCOLE Été", "École Été"}, {"A\x00B", "a\x00b"}, {"", ""},
	}
	for _, tt := range tests {
		if got := foldASCII(tt.in); got != tt.want {
			t.Errorf("foldASCII(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
