package suitegen

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward/testsuite"
)

// database builds, or reuses, the suites of the database db_id.
func (b *builder) database(ctx context.Context, dbID string, golds []string) (DBReport, error) {
	start := time.Now()
	dir := testsuite.Dir(b.root, b.ds.Name, dbID)
	old, err := testsuite.ReadManifest(filepath.Join(dir, testsuite.ManifestName))
	if err != nil {
		old = nil // none, or one that cannot serve: built again
	}
	id, err := b.identity(dbID, golds, old)
	if err != nil {
		return DBReport{}, err
	}
	if current(old, id, dir) {
		return b.report(dbID, old, true), nil
	}
	m, err := b.rebuild(ctx, dbID, golds, id, start)
	if err != nil {
		return DBReport{}, err
	}
	return b.report(dbID, m, false), nil
}

// identity is what the suites of db_id are built from now. The source
// file is hashed only when its size or time differ from old's record.
func (b *builder) identity(dbID string, golds []string, old *testsuite.Manifest) (testsuite.Identity, error) {
	var known testsuite.Source
	if old != nil {
		known = old.Identity.Source
	}
	src, err := testsuite.SourceOf(b.ds.DBs[dbID], known)
	if err != nil {
		return testsuite.Identity{}, err
	}
	return testsuite.Identity{Generator: testsuite.GeneratorVersion, Params: b.cfg.params(), Source: src, Golds: testsuite.HashGolds(golds)}, nil
}

// current reports whether old's suites, in dir, are those a build with
// identity id would make: the same identity, every file there.
func current(old *testsuite.Manifest, id testsuite.Identity, dir string) bool {
	if old == nil || old.Dialect != env.SQLite || old.Identity.Params != id.Params || old.Identity.Stale(id) != "" {
		return false
	}
	return !slices.ContainsFunc(old.Databases, func(d testsuite.Database) bool {
		_, err := os.Stat(filepath.Join(dir, d.File))
		return d.File == "" || err != nil
	})
}

// rebuild distils the suites of db_id in a scratch folder beside the
// store and writes them.
func (b *builder) rebuild(ctx context.Context, dbID string, golds []string, id testsuite.Identity, start time.Time) (*testsuite.Manifest, error) {
	base := filepath.Join(b.root, b.ds.Name)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp(base, ".build-"+dbID+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	src := b.ds.DBs[dbID]
	gen, err := b.cfg.Planner(ctx, src, golds, b.cfg)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	s, err := b.sources(ctx, src, gen, scratch)
	if err != nil {
		return nil, err
	}
	defer s.close()
	cands := newPool(b.eng, gen, scratch, "c", b.cfg.Seed, streamCandidates)
	held := newPool(b.eng, gen, scratch, "h", b.cfg.Seed, streamHeldOut)
	works, err := b.distillAll(ctx, golds, s, cands, held)
	err = errors.Join(err, cands.close(), held.close())
	if err != nil {
		return nil, err
	}
	m := b.manifest(dbID, id, works)
	m.Build = testsuite.Figures{Seconds: time.Since(start).Seconds(), Candidates: cands.made(), HeldOut: held.made()}
	if err := writeSuites(testsuite.Dir(b.root, b.ds.Name, dbID), m, cands.path); err != nil {
		return nil, err
	}
	return m, nil
}

// sources opens the source database, writes and opens its empty copy and
// reads its schema.
func (b *builder) sources(ctx context.Context, src string, gen Generator, scratch string) (sources, error) {
	var s sources
	var err error
	if s.original, err = b.eng.Open(ctx, src); err != nil {
		return s, err
	}
	empty := filepath.Join(scratch, "empty.sqlite")
	if err = gen.Empty(ctx, empty); err != nil {
		s.close()
		return sources{}, fmt.Errorf("empty copy: %w", err)
	}
	if s.empty, err = b.eng.Open(ctx, empty); err != nil {
		s.close()
		return sources{}, err
	}
	if s.schema, err = SchemaOf(ctx, s.original); err != nil {
		s.close()
		return sources{}, err
	}
	return s, nil
}

// close closes the databases s opened.
func (s sources) close() {
	for _, db := range []env.DB{s.original, s.empty} {
		if db != nil {
			db.Close()
		}
	}
}

// distillAll chooses each gold's neighbours, distils its suite from the
// candidates and measures it on the held-out databases, gold by gold.
func (b *builder) distillAll(ctx context.Context, golds []string, s sources, cands, held *pool) ([]*goldWork, error) {
	works := make([]*goldWork, 0, len(golds))
	for _, gold := range golds {
		w, err := b.prepare(ctx, gold, s)
		if err == nil {
			err = b.distill(ctx, w, cands)
		}
		if err == nil {
			err = b.heldOut(ctx, w, held)
		}
		if err != nil {
			return nil, fmt.Errorf("gold %.80q: %w", gold, err)
		}
		works = append(works, w)
	}
	return works, nil
}

// manifest is the manifest of the suites distilled in works.
func (b *builder) manifest(dbID string, id testsuite.Identity, works []*goldWork) *testsuite.Manifest {
	m := &testsuite.Manifest{Format: testsuite.Format, Dataset: b.ds.Name, DBID: dbID, Dialect: env.SQLite, Identity: id}
	var kept []int
	for _, w := range works {
		names := make([]string, 0, len(w.suite))
		for _, i := range w.suite {
			names = append(names, testsuite.DBName(i))
			kept = append(kept, i)
		}
		m.Golds = append(m.Golds, testsuite.Gold{SQL: w.sql, Suite: names, Counts: w.counts})
	}
	slices.Sort(kept)
	for _, i := range slices.Compact(kept) {
		m.Databases = append(m.Databases, testsuite.Database{Name: testsuite.DBName(i), Candidate: i, File: testsuite.FileName(i)})
	}
	return m
}
