package env_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
)

// gatedEngine opens real SQLite files, but holds the open of one of them
// until its gate is closed, and counts the opens of that one.
type gatedEngine struct {
	*sqlite.Engine
	held    string
	gate    chan struct{}
	entered chan struct{} // closed when the held open has begun
	once    sync.Once
	mu      sync.Mutex
	opens   int
}

func (e *gatedEngine) Open(ctx context.Context, path string) (env.DB, error) {
	if path == e.held {
		e.mu.Lock()
		e.opens++
		e.mu.Unlock()
		e.once.Do(func() { close(e.entered) })
		<-e.gate
	}
	return e.Engine.Open(ctx, path)
}

// twoDatabases builds a dataset of two real SQLite files, slow and fast.
func twoDatabases(t *testing.T) *env.Dataset {
	t.Helper()
	dir := t.TempDir()
	ds := &env.Dataset{Name: "d", Dialect: "sqlite", DBs: map[string]string{}}
	for _, name := range []string{"slow", "fast"} {
		path := filepath.Join(dir, name+".sqlite")
		if err := sqlite.Build(context.Background(), path, "CREATE TABLE t(x); INSERT INTO t VALUES (1);"); err != nil {
			t.Fatal(err)
		}
		ds.DBs[name] = path
	}
	return ds
}

// TestCatalogOpensWithoutHoldingUpOthers: while one database is slow to
// open, another is handed out, and every call for the slow one shares its
// single open.
func TestCatalogOpensWithoutHoldingUpOthers(t *testing.T) {
	ds := twoDatabases(t)
	eng := &gatedEngine{Engine: sqlite.New(sqlite.Config{}), held: ds.DBs["slow"],
		gate: make(chan struct{}), entered: make(chan struct{})}
	c := env.NewCatalog(eng)
	defer c.Close()
	ctx := context.Background()
	slow := make(chan env.DB, 3)
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			db, err := c.DB(ctx, ds, "slow")
			if err != nil {
				t.Error(err)
			}
			slow <- db
		})
	}
	<-eng.entered
	if _, err := c.DB(ctx, ds, "fast"); err != nil {
		t.Fatalf("another database while one opens: %v", err)
	}
	if len(slow) != 0 {
		t.Fatal("a call for the held database returned before its open was let go")
	}
	close(eng.gate)
	wg.Wait()
	first := <-slow
	if first == nil || <-slow != first || <-slow != first {
		t.Fatal("the calls for one database got different handles")
	}
	if eng.opens != 1 {
		t.Fatalf("%d opens of one database, want 1", eng.opens)
	}
}

// TestCatalogWaitEndsWithItsContext: a call waiting for another's open
// gives up with its own context. It runs on synctest's clock: the
// context's deadline passes once every goroutine of the test waits.
func TestCatalogWaitEndsWithItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ds := twoDatabases(t)
		eng := &gatedEngine{Engine: sqlite.New(sqlite.Config{}), held: ds.DBs["slow"],
			gate: make(chan struct{}), entered: make(chan struct{})}
		c := env.NewCatalog(eng)
		defer c.Close()
		done := make(chan struct{})
		go func() { defer close(done); c.DB(context.Background(), ds, "slow") }()
		<-eng.entered
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := c.DB(ctx, ds, "slow"); err == nil {
			t.Fatal("a wait whose context ended returned a database")
		}
		close(eng.gate)
		<-done
	})
}
