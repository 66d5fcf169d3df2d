package baseline

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/examples/demo"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recording is the real SQLite engine, counting the statements run on
// the databases it opens and the limits they ran under.
type recording struct {
	env.Engine
	mu    sync.Mutex
	sql   map[string]int
	limit map[env.Limits]int
}

func (e *recording) Open(ctx context.Context, source string) (env.DB, error) {
	db, err := e.Engine.Open(ctx, source)
	return &recordingDB{DB: db, e: e}, err
}

type recordingDB struct {
	env.DB
	e *recording
}

func (d *recordingDB) Query(ctx context.Context, sql string, lim env.Limits) (*env.ResultSet, error) {
	d.e.mu.Lock()
	d.e.sql[sql]++
	d.e.limit[lim]++
	d.e.mu.Unlock()
	return d.DB.Query(ctx, sql, lim)
}

// ran is how many statements were run.
func (e *recording) ran() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, v := range e.sql {
		n += v
	}
	return n
}

func setup(t *testing.T) (*env.Dataset, *env.Catalog, *recording) {
	t.Helper()
	ds, err := demo.Load(context.Background(), t.TempDir(), sqlite.Build)
	if err != nil {
		t.Fatal(err)
	}
	eng := &recording{Engine: sqlite.New(sqlite.Config{}), sql: map[string]int{}, limit: map[env.Limits]int{}}
	cat := env.NewCatalog(eng)
	t.Cleanup(func() { cat.Close() })
	return ds, cat, eng
}

// TestRunCount runs a count of statements: exactly the golds of the
// episodes the seeds draw, each Repeats times under Exec and once under
// Submit, as the bench's gold script runs them.
func TestRunCount(t *testing.T) {
	ds, cat, eng := setup(t)
	const episodes, repeats, seed = 30, 3, 100
	exec := env.Limits{Timeout: time.Second, MaxRows: 50}
	submit := env.Limits{Timeout: 2 * time.Second, MaxRows: 1000}
	res, err := Run(context.Background(), Config{Dataset: ds, Catalog: cat, Seed: seed, Repeats: repeats,
		Exec: exec, Submit: submit, Workers: 3, Statements: episodes * (repeats + 1)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Statements != episodes*(repeats+1) || res.Errors != 0 || res.Workers != 3 {
		t.Errorf("ran %d statements, %d failed, on %d workers; want %d, 0, 3", res.Statements, res.Errors, res.Workers, episodes*(repeats+1))
	}
	want := map[string]int{}
	for n := range int64(episodes) {
		want[ds.Draw(seed+n).GoldSQL] += repeats + 1
	}
	for sql, n := range want {
		if eng.sql[sql] != n {
			t.Errorf("%q ran %d times, want %d", sql, eng.sql[sql], n)
		}
	}
	if len(eng.sql) != len(want) {
		t.Errorf("%d distinct statements ran, want %d", len(eng.sql), len(want))
	}
	if eng.limit[exec] != episodes*repeats || eng.limit[submit] != episodes {
		t.Errorf("limits used %v; want Exec %d times and Submit %d times", eng.limit, episodes*repeats, episodes)
	}
	if res.PerSecond() <= 0 {
		t.Errorf("rate %v, want above 0", res.PerSecond())
	}
}

// TestRunDuration bounds a run by time alone: it stops by itself.
func TestRunDuration(t *testing.T) {
	ds, cat, _ := setup(t)
	res, err := Run(context.Background(), Config{Dataset: ds, Catalog: cat, Repeats: 4, Workers: 2, Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Statements == 0 || res.Errors != 0 || res.Elapsed < 200*time.Millisecond {
		t.Errorf("ran %d statements (%d failed) in %v; want some, none failed, in at least 200ms", res.Statements, res.Errors, res.Elapsed)
	}
}

// TestRunNoGold stops on a task without gold SQL, saying so.
func TestRunNoGold(t *testing.T) {
	ds, cat, _ := setup(t)
	for i := range ds.Tasks {
		ds.Tasks[i].GoldSQL = ""
	}
	_, err := Run(context.Background(), Config{Dataset: ds, Catalog: cat, Statements: 10})
	if !errors.Is(err, ErrNoGold) {
		t.Errorf("Run on tasks without golds = %v, want ErrNoGold", err)
	}
}

// TestRunCancel returns when its context ends, before its duration.
func TestRunCancel(t *testing.T) {
	ds, cat, eng := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *Result, 1)
	go func() {
		res, _ := Run(ctx, Config{Dataset: ds, Catalog: cat, Workers: 2, Duration: time.Hour})
		done <- res
	}()
	waitfor.Until(t, "a statement to run", func() bool { return eng.ran() > 0 })
	cancel()
	select {
	case res := <-done:
		if res == nil {
			t.Error("a cancelled run returned no result")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the run went on after its context ended")
	}
}
