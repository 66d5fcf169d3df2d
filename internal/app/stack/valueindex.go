package stack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/valueindex"
)

// PlacementError is a value index folder refused before anything is
// written in it: one inside a dataset's folder, which index files would
// write among the dataset's files, or one that cannot be made or
// written, which would fail every index.
type PlacementError struct {
	Dir string // the folder refused
	Err error  // why
}

// Error names the folder and why it was refused.
func (e *PlacementError) Error() string { return e.Dir + ": " + e.Err.Error() }

// Unwrap is why the folder was refused.
func (e *PlacementError) Unwrap() error { return e.Err }

// OpenValueIndex opens search_values's value index in cfg.Dir
// (dataDir/value-index when empty), logging each database's index as it
// is ready (cfg.Progress, when nil). A folder inside one of datasetDirs
// (datasets.Dirs) or one that cannot be made or written is a
// *PlacementError.
func OpenValueIndex(cfg valueindex.Config, dataDir string, datasetDirs []string, log *zap.Logger) (*valueindex.Store, error) {
	if cfg.Dir == "" {
		cfg.Dir = filepath.Join(dataDir, "value-index")
	}
	if err := valueindex.CheckOutside(cfg.Dir, datasetDirs); err != nil {
		return nil, &PlacementError{cfg.Dir, err}
	}
	if err := writableDir(cfg.Dir); err != nil {
		return nil, &PlacementError{cfg.Dir, err}
	}
	if cfg.Progress == nil {
		cfg.Progress = ValueIndexLog(log)
	}
	return valueindex.New(cfg)
}

// writableDir makes dir if it is missing and checks that a file can be
// made in it.
func writableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot be made: %w", err)
	}
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return fmt.Errorf("cannot be written: %w", err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// ValueIndexLog is the log line of each database's value index: ready,
// failed, or stopped by the store's closing (which resumes on the next
// start: nothing failed).
func ValueIndexLog(log *zap.Logger) func(valueindex.Progress) {
	return func(p valueindex.Progress) {
		fields := []zap.Field{zap.String("dataset", p.Dataset), zap.String("db_id", p.DBID),
			zap.Int64("values", p.Values), zap.Int("partial_columns", p.Partial), zap.Bool("reused", p.Reused), zap.Duration("elapsed", p.Elapsed), zap.String("file", p.Path)}
		switch {
		case errors.Is(p.Err, context.Canceled):
			log.Info("value index build stopped", append(fields, zap.Error(p.Err))...)
			return
		case p.Err != nil:
			log.Error("value index failed", append(fields, zap.Error(p.Err))...)
			return
		}
		log.Info("value index ready", fields...)
	}
}

// WarmValueIndex starts building, in the background, the value index of
// every database of dss, each read through catalog.
func WarmValueIndex(store *valueindex.Store, dss []*env.Dataset, catalog *env.Catalog) {
	store.Warm(dss, func(ctx context.Context, ds *env.Dataset, dbID string) (env.DB, error) {
		return catalog.DB(ctx, ds, dbID)
	})
}
