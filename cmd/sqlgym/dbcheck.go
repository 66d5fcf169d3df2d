package main

import (
	"context"
	"flag"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/internal/app/stack"
)

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

// verify is stack.CheckDatabases when the check runs, else nothing.
func (d *dbCheckFlags) verify(ctx context.Context, catalog *env.Catalog, dss []*env.Dataset, log *zap.Logger) error {
	if !d.run {
		return nil
	}
	return stack.CheckDatabases(ctx, catalog, dss, log)
}
