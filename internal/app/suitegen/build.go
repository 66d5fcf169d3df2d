package suitegen

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/reward/testsuite"
)

// builder is one Build; read-only while its databases build.
type builder struct {
	ds   *env.Dataset
	root string
	cfg  Config
	eng  env.Engine // opens every database a build reads
	run  runner
}

// Build builds the test suites of every database of ds that has gold
// queries into the store at root (reward/testsuite's layout), reusing
// the suites whose identity has not changed. Databases build on
// cfg.Workers goroutines; the suites are the same for any number of them.
// ds must be a SQLite dataset: suites for another dialect are carried
// there from SQLite ones.
func Build(ctx context.Context, ds *env.Dataset, root string, cfg Config) (*Report, error) {
	if ds.Dialect != env.SQLite {
		return nil, fmt.Errorf("suitegen: dataset %s is %s: suites are built from SQLite databases; "+
			"sqlgym import carries them to %s", ds.Name, ds.Dialect.Title(), ds.Dialect.Title())
	}
	cfg = cfg.withDefaults()
	b := newBuilder(ds, root, cfg)
	golds := testsuite.Golds(ds)
	ids := slices.Sorted(maps.Keys(golds))
	reports := make([]DBReport, len(ids))
	var progress sync.Mutex // one Progress call at a time
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cfg.Workers)
	for i, id := range ids {
		g.Go(func() error {
			r, err := b.database(gctx, id, golds[id])
			if err != nil {
				return fmt.Errorf("suitegen: %s/%s: %w", ds.Name, id, err)
			}
			reports[i] = r
			if cfg.Progress != nil {
				progress.Lock()
				defer progress.Unlock()
				cfg.Progress(ds.Name, r)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	rep := &Report{Dataset: ds.Name, Databases: reports}
	for _, r := range reports {
		rep.Totals.add(r)
	}
	return rep, nil
}

// newBuilder returns the builder of ds's suites under root; cfg has its
// defaults set.
func newBuilder(ds *env.Dataset, root string, cfg Config) *builder {
	return &builder{ds: ds, root: root, cfg: cfg, run: runner{lim: env.Limits{Timeout: cfg.Timeout, MaxRows: cfg.RowCap}},
		eng: sqlite.New(sqlite.Config{DefaultTimeout: cfg.Timeout, MaxOpenDBs: cfg.Workers * (cfg.Candidates + cfg.HeldOut + 2)})}
}

// report is the DBReport of the suites m of db_id.
func (b *builder) report(dbID string, m *testsuite.Manifest, reused bool) DBReport {
	r := DBReport{DBID: dbID, Reused: reused, Figures: m.Build, Golds: len(m.Golds)}
	byGold := map[string]testsuite.Gold{}
	for _, g := range m.Golds {
		byGold[g.SQL] = g
		r.Timeouts += g.Counts.Timeouts
	}
	for i := range b.ds.Tasks {
		t := &b.ds.Tasks[i]
		if g, ok := byGold[t.GoldSQL]; ok && t.DBID == dbID {
			r.Tasks = append(r.Tasks, TaskReport{TaskID: t.ID, Suite: len(g.Suite), Counts: g.Counts})
		}
	}
	return r
}
