package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sync/errgroup"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/env/postgres"
)

// dbCheckWorkers bounds the databases the startup check opens at once.
const dbCheckWorkers = 4

// dbCheckFlags choose whether a command that runs episodes opens every
// database of every dataset before it starts, so that a bad file stops
// it at once instead of failing each reset on it later.
type dbCheckFlags struct {
	skip bool // --skip-db-check
	// run is set by build when the check will run: datasets are then
	// loaded keeping their missing files, for the check to name them all.
	run bool
}

func (d *dbCheckFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&d.skip, "skip-db-check", false, "start without opening every database and reading its schema first (for very large collections); a bad database then fails only the resets on it")
}

// load reads one dataset: keeping missing database files when the check
// will name them, else refusing them as datasets.Load does.
func (d *dbCheckFlags) load(src datasets.Source) (*env.Dataset, error) {
	if d.run {
		return datasets.LoadKeepingMissing(src)
	}
	return datasets.Load(src)
}

// dbRef is one database of one dataset.
type dbRef struct {
	ds   *env.Dataset
	dbID string
}

// verify opens every database of dss through catalog, which keeps them
// open for the episodes, and reads its schema, dbCheckWorkers at a time.
// It fails naming each database that would not open and why.
func (d *dbCheckFlags) verify(ctx context.Context, catalog *env.Catalog, dss []*env.Dataset, log *zap.Logger) error {
	if !d.run {
		return nil
	}
	refs := databases(dss)
	start := time.Now()
	errs := make([]error, len(refs))
	var g errgroup.Group
	g.SetLimit(dbCheckWorkers)
	for i := range refs {
		g.Go(func() error { errs[i] = openAndDescribe(ctx, catalog, refs[i]); return nil })
	}
	g.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("database check: %w", err)
	}
	err := badDatabases(refs, errs, log)
	failed := 0
	for _, e := range errs {
		if e != nil {
			failed++
		}
	}
	log.Info("databases checked", zap.Int("databases", len(refs)), zap.Int("failed", failed),
		zap.Duration("elapsed", time.Since(start)))
	return err
}

// databases lists every database of every dataset, by dataset and db_id.
func databases(dss []*env.Dataset) []dbRef {
	var refs []dbRef
	for _, ds := range dss {
		ids := make([]string, 0, len(ds.DBs))
		for id := range ds.DBs {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			refs = append(refs, dbRef{ds, id})
		}
	}
	return refs
}

// openAndDescribe opens one database and reads every table's columns,
// then lets it go idle (an env.Idler closes its connections until an
// episode needs it): kept open, thousands of databases would cost memory
// and file descriptors, and each later open or close of a SQLite
// connection walks structures as long as the connections open.
func openAndDescribe(ctx context.Context, catalog *env.Catalog, r dbRef) error {
	db, err := catalog.DB(ctx, r.ds, r.dbID)
	if err != nil {
		return err
	}
	if i, ok := db.(env.Idler); ok {
		defer i.Idle()
	}
	if _, err := db.Tables(ctx); err != nil {
		return fmt.Errorf("read schema: %w", err)
	}
	return nil
}

// badDatabases logs each database that failed and returns one error
// naming them all, each with its file and the cause.
func badDatabases(refs []dbRef, errs []error, log *zap.Logger) error {
	var lines []string
	for i, err := range errs {
		if err == nil {
			continue
		}
		r := refs[i]
		source := mysql.Redact(postgres.Redact(r.ds.DBs[r.dbID]))
		log.Error("database failed the startup check", zap.String("dataset", r.ds.Name),
			zap.String("db_id", r.dbID), zap.String("source", source), zap.Error(err))
		lines = append(lines, fmt.Sprintf("  %s/%s: %s: %v", r.ds.Name, r.dbID, source, rootCause(err)))
	}
	if len(lines) == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d databases would not open, or their schema could not be read "+
		"(fix or remove them; --skip-db-check starts without this check):\n%s",
		len(lines), len(refs), strings.Join(lines, "\n"))
}

// rootCause is the innermost error of a chain: what the engine or the
// system said, without the wrapping that repeats the file's path.
func rootCause(err error) error {
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			return err
		}
		err = inner
	}
}
