package dbimport

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqltext"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/reward/testsuite"
)

// suiteTarget is what carrying test suites needs of the server imported
// into: PostgreSQL (pgSuites) or MySQL (mySuites).
type suiteTarget interface {
	dialect() env.Dialect
	// check says why name cannot be a database of the target's, nil
	// when it can.
	check(ctx context.Context, name string) error
	// copy copies src's tables into the target's database name with the
	// types of like; a failed copy leaves no database name behind.
	copy(ctx context.Context, src env.DB, tables []env.Table, name string, like *DBCopy) error
	// readers makes the read-only login able to read names.
	readers(ctx context.Context, names []string) error
	// open opens the database name as the engine that serves it does.
	open(ctx context.Context, name string) (env.DB, error)
}

// SuiteName is the target's schema or database holding the test-suite
// database suiteDB (testsuite.DBName) of the database dbID:
// "concert_singer__ts_0007".
func SuiteName(dbID, suiteDB string) string {
	return dbID + "__" + underscore(suiteDB)
}

// underscore is s with each '-' made '_'.
func underscore(s string) string {
	b := []byte(s)
	for i := range b {
		if b[i] == '-' {
			b[i] = '_'
		}
	}
	return string(b)
}

// suiteJob is the carrying of one dataset's test suites onto a target.
type suiteJob struct {
	ds       *env.Dataset
	sqlite   env.Engine
	root     string // the SQLite dataset's test-suite folder
	target   suiteTarget
	copies   map[string]*DBCopy // the databases' own copies, by db_id
	golds    []*Gold            // each task's, in the dataset's order
	lim      env.Limits
	progress func(Progress)
}

// newSuiteJob is the carrying of ds's suites under root onto target,
// after the import rep reports copied ds's databases and verified golds.
func newSuiteJob(root string, ds *env.Dataset, sqlite env.Engine, target suiteTarget, rep *Report, golds []*Gold,
	lim env.Limits, progress func(Progress)) *suiteJob {
	copies := map[string]*DBCopy{}
	for _, d := range rep.Databases {
		copies[d.DBID] = d
	}
	return &suiteJob{ds: ds, sqlite: sqlite, root: root, target: target, copies: copies, golds: golds,
		lim: lim, progress: progress}
}

// carrySuites carries each current test suite of job.ds onto the target:
// every suite database is copied with its source database's types, and
// each gold the target has (Kept, Rewritten) keeps the suite databases on
// which it returns what the SQLite gold returns on the SQLite one. The
// manifests it returns are written by WriteSuites.
func carrySuites(ctx context.Context, job *suiteJob) ([]*testsuite.Manifest, *SuitesReport, error) {
	rep := &SuitesReport{}
	ids := slices.Sorted(maps.Keys(testsuite.Golds(job.ds)))
	var out []*testsuite.Manifest
	for i, id := range ids {
		m, why, err := testsuite.Current(job.root, job.ds, id)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			rep.Missing = append(rep.Missing, id)
			continue
		case err != nil:
			return nil, nil, fmt.Errorf("import: suites: %w", err)
		case why != "":
			rep.Stale = append(rep.Stale, id+": "+why)
			continue
		}
		cm, err := job.carryDB(ctx, m, rep)
		if err != nil {
			return nil, nil, fmt.Errorf("import: suites of %s: %w", id, err)
		}
		out = append(out, cm)
		job.progress(Progress{Stage: "suites", Done: i + 1, Total: len(ids), Item: id})
	}
	return out, rep, nil
}

// carryDB carries the suites of one database, m's.
func (job *suiteJob) carryDB(ctx context.Context, m *testsuite.Manifest, rep *SuitesReport) (*testsuite.Manifest, error) {
	start := time.Now()
	srcs, dsts := map[string]env.DB{}, map[string]env.DB{}
	defer closeAll(srcs)
	defer closeAll(dsts)
	cm := &testsuite.Manifest{Format: testsuite.Format, DBID: m.DBID, Dialect: job.target.dialect(),
		Identity: testsuite.Identity{Generator: m.Identity.Generator, Params: m.Identity.Params}}
	var names []string
	for _, d := range m.Databases {
		name, err := job.copyOne(ctx, m.DBID, d, srcs)
		if err != nil {
			rep.Dropped = append(rep.Dropped, m.DBID+"/"+d.Name+": "+err.Error())
			continue
		}
		names = append(names, name)
		cm.Databases = append(cm.Databases, testsuite.Database{Name: d.Name, Candidate: d.Candidate, Source: name})
	}
	if err := job.target.readers(ctx, names); err != nil {
		return nil, err
	}
	for _, d := range cm.Databases {
		db, err := job.target.open(ctx, d.Source)
		if err != nil {
			return nil, fmt.Errorf("open %s as the reader: %w", d.Source, err)
		}
		dsts[d.Name] = db
	}
	if err := job.verifyGolds(ctx, m, cm, srcs, dsts, rep); err != nil {
		return nil, err
	}
	cm.Build = testsuite.Figures{Seconds: time.Since(start).Seconds(), Candidates: m.Build.Candidates, HeldOut: m.Build.HeldOut, Files: len(cm.Databases)}
	rep.Databases += len(cm.Databases)
	return cm, nil
}

// copyOne opens the SQLite suite database d of dbID into srcs and copies
// it onto the target, returning its name there.
func (job *suiteJob) copyOne(ctx context.Context, dbID string, d testsuite.Database, srcs map[string]env.DB) (string, error) {
	name := SuiteName(dbID, d.Name)
	if err := job.target.check(ctx, name); err != nil {
		return "", err
	}
	src, err := job.sqlite.Open(ctx, filepath.Join(testsuite.Dir(job.root, job.ds.Name, dbID), d.File))
	if err != nil {
		return "", err
	}
	srcs[d.Name] = src
	tables, err := src.Tables(ctx)
	if err != nil {
		return "", fmt.Errorf("list its tables: %w", err)
	}
	if err := job.target.copy(ctx, src, tables, name, job.copies[dbID]); err != nil {
		return "", err
	}
	return name, nil
}

// verifyGolds gives cm the suite of each target gold of m's database:
// the databases of its SQLite gold's suite on which it returns the SQLite
// gold's rows. A gold kept on the task's database but not on a suite
// database (another engine's rounding, or ties the target breaks its own
// way) is judged without that database, never against a wrong answer.
func (job *suiteJob) verifyGolds(ctx context.Context, m *testsuite.Manifest, cm *testsuite.Manifest, srcs, dsts map[string]env.DB, rep *SuitesReport) error {
	suites := map[string]testsuite.Gold{}
	for _, g := range m.Golds {
		suites[g.SQL] = g
	}
	seen := map[string]bool{}
	for i := range job.ds.Tasks {
		t, g := &job.ds.Tasks[i], job.golds[i]
		if t.DBID != m.DBID || g.SQL == "" || seen[g.SQL] {
			continue
		}
		seen[g.SQL] = true
		src := suites[t.GoldSQL]
		tg := testsuite.Gold{SQL: g.SQL, Suite: []string{}, Counts: src.Counts}
		for _, n := range src.Suite {
			if dsts[n] == nil {
				continue
			}
			why, err := job.sameOn(ctx, srcs[n], dsts[n], t.GoldSQL, g.SQL)
			if err != nil {
				return fmt.Errorf("task %s on %s: %w", t.ID, n, err)
			}
			if why != "" {
				rep.GoldsWithout = append(rep.GoldsWithout, t.ID+" on "+n+": "+why)
				continue
			}
			tg.Suite = append(tg.Suite, n)
		}
		rep.Golds++
		cm.Golds = append(cm.Golds, tg)
	}
	return nil
}

// sameOn says how the target gold's rows on dst differ from the SQLite
// gold's on src, "" when they do not. An error is the server's, not a
// statement's.
func (job *suiteJob) sameOn(ctx context.Context, src, dst env.DB, sqliteGold, gold string) (string, error) {
	want, err := src.Query(ctx, sqliteGold, job.lim)
	var qe *env.QueryError
	switch {
	case errors.As(err, &qe):
		return "the SQLite gold fails: " + qe.Message, nil
	case err != nil:
		return "", err
	case want.Truncated:
		return fmt.Sprintf("the SQLite gold returns more than %d rows", job.lim.MaxRows), nil
	}
	got, err := dst.Query(ctx, gold, job.lim)
	switch {
	case errors.As(err, &qe):
		return "the gold fails: " + qe.Message, nil
	case err != nil:
		return "", err
	case got.Truncated || !reward.MatchTolerant(got.Rows, want.Rows, sqltext.HasOrderBy(sqliteGold), VerifyTolerance):
		return mismatchReason(got.Rows, want.Rows), nil
	}
	return "", nil
}
