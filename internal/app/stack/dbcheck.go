package stack

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sync/errgroup"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/env/postgres"
)

// CheckWorkers bounds the databases CheckDatabases opens at once.
const CheckWorkers = 4

// dbRef is one database of one dataset.
type dbRef struct {
	ds   *env.Dataset
	dbID string
}

// CheckDatabases opens every database of dss through catalog, which
// keeps them open for the episodes, and reads its schema, CheckWorkers
// at a time (sqlgym serve's startup check, a Plan's Check). It logs each
// database that failed and fails naming each, with its source (any
// password redacted) and why.
func CheckDatabases(ctx context.Context, catalog *env.Catalog, dss []*env.Dataset, log *zap.Logger) error {
	refs := databases(dss)
	start := time.Now()
	errs := make([]error, len(refs))
	var g errgroup.Group
	g.SetLimit(CheckWorkers)
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
