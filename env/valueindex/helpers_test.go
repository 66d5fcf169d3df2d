package valueindex

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/examples/demo"
)

// demoDataset materializes the demo dataset under a test directory and
// returns it with a catalog that opens its databases.
func demoDataset(t *testing.T) (*env.Dataset, *env.Catalog) {
	t.Helper()
	ds, err := demo.Load(context.Background(), filepath.Join(t.TempDir(), "demo"), sqlite.Build)
	if err != nil {
		t.Fatal(err)
	}
	cat := env.NewCatalog(sqlite.New(sqlite.Config{}))
	t.Cleanup(func() { cat.Close() })
	return ds, cat
}

// progressLog collects a Store's progress reports.
type progressLog struct {
	mu   sync.Mutex
	seen []Progress
}

func (p *progressLog) add(pr Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, pr)
}

func (p *progressLog) all() []Progress {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Progress(nil), p.seen...)
}

// newStore returns a Store over dir, closed with the test.
func newStore(t *testing.T, dir string, log *progressLog) *Store {
	t.Helper()
	cfg := Config{Dir: dir}
	if log != nil {
		cfg.Progress = log.add
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// search runs one query over database dbID of ds.
func search(t *testing.T, s *Store, ds *env.Dataset, cat *env.Catalog, dbID string, q env.ValueQuery) *env.ValueMatches {
	t.Helper()
	ctx := context.Background()
	db, err := cat.DB(ctx, ds, dbID)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.SearchValues(ctx, ds, dbID, db, q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	return m
}
