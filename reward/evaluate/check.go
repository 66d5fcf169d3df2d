package evaluate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward/judge"
)

// DefaultSlow is CheckConfig.Slow's default.
const DefaultSlow = time.Second

// CheckConfig configures Check.
type CheckConfig struct {
	// Catalog opens the dataset's databases. Required.
	Catalog *env.Catalog
	// GoldTimeout bounds each gold; judge.DefaultTimeout when zero.
	GoldTimeout time.Duration
	// Slow is the run time over which a gold is reported slow; DefaultSlow
	// when zero.
	Slow time.Duration
	// Workers is how many golds run at once; GOMAXPROCS when zero or less.
	Workers int
	// Progress, when not nil, is told after each gold how many are done,
	// one call at a time.
	Progress func(done, total int)
}

// Statuses of a GoldCheck.
const (
	GoldOK      = "ok"      // the gold ran
	GoldError   = "error"   // it failed, or its database would not open
	GoldTimeout = "timeout" // it ran past CheckConfig.GoldTimeout
)

// GoldCheck is how one task's gold ran.
type GoldCheck struct {
	TaskID, DBID string
	Status       string // GoldOK, GoldError or GoldTimeout
	// Error is the engine's message for a GoldError.
	Error string
	// DBFailed is set on a GoldError whose database would not open (or
	// broke under the gold): Error says why.
	DBFailed bool
	// AsRows is set for a task whose gold is given as answer rows: there
	// is nothing to run.
	AsRows bool
	// Rows is the gold's row count; Empty is Rows == 0 for a gold that ran.
	Rows  int
	Empty bool
	// Slow is set when an ok gold ran longer than CheckConfig.Slow.
	Slow    bool
	Elapsed time.Duration
}

// CheckReport is what Check found, task by task in dataset order.
type CheckReport struct {
	Dataset     string
	GoldTimeout time.Duration
	Slow        time.Duration
	Golds       []GoldCheck
}

// Check runs every task's gold as written (no DISTINCT removal), under the
// same row and byte bounds as the judge, and reports how each ran. A gold
// that fails, times out or whose database will not open (is missing, is
// not a database, is damaged) is a finding, not an error; the error is
// kept for a fault of the run (a cancelled context).
func Check(ctx context.Context, ds *env.Dataset, cfg CheckConfig) (*CheckReport, error) {
	if cfg.Catalog == nil {
		return nil, errors.New("check: CheckConfig.Catalog is required")
	}
	if cfg.GoldTimeout <= 0 {
		cfg.GoldTimeout = judge.DefaultTimeout
	}
	if cfg.Slow <= 0 {
		cfg.Slow = DefaultSlow
	}
	rep := &CheckReport{Dataset: ds.Name, GoldTimeout: cfg.GoldTimeout, Slow: cfg.Slow, Golds: make([]GoldCheck, len(ds.Tasks))}
	err := forEach(ctx, len(ds.Tasks), cfg.Workers, cfg.Progress, func(ctx context.Context, i int) error {
		gc, err := checkGold(ctx, ds, &ds.Tasks[i], cfg)
		rep.Golds[i] = gc
		return err
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// checkGold runs one task's gold.
func checkGold(ctx context.Context, ds *env.Dataset, t *env.Task, cfg CheckConfig) (GoldCheck, error) {
	gc := GoldCheck{TaskID: t.ID, DBID: t.DBID, Status: GoldOK}
	if t.GoldSQL == "" {
		gc.AsRows, gc.Rows, gc.Empty = true, len(t.GoldRows), len(t.GoldRows) == 0
		return gc, nil
	}
	db, err := cfg.Catalog.DB(ctx, ds, t.DBID)
	if err != nil {
		if ctx.Err() != nil {
			return gc, fmt.Errorf("check %s: %w", t.ID, err)
		}
		gc.Status, gc.Error, gc.DBFailed = GoldError, oneLine(err.Error()), true
		return gc, nil
	}
	lim := env.Limits{Timeout: cfg.GoldTimeout, MaxRows: judge.DefaultMaxRows, MaxResultBytes: judge.DefaultMaxResultBytes}
	rs, err := db.Query(ctx, t.GoldSQL, lim)
	var qe *env.QueryError
	switch {
	case err == nil && rs.Truncated:
		gc.Status, gc.Elapsed = GoldError, rs.Elapsed
		gc.Error = fmt.Sprintf("%v: over %d rows or %d bytes", judge.ErrGoldTooLarge, lim.MaxRows, lim.MaxResultBytes)
	case err == nil:
		gc.Rows, gc.Empty, gc.Elapsed = len(rs.Rows), len(rs.Rows) == 0, rs.Elapsed
		gc.Slow = rs.Elapsed > cfg.Slow
	case errors.As(err, &qe) && ctx.Err() == nil && errors.Is(qe, env.ErrTimeout):
		gc.Status, gc.Elapsed = GoldTimeout, cfg.GoldTimeout
	case errors.As(err, &qe) && ctx.Err() == nil:
		gc.Status, gc.Error = GoldError, oneLine(qe.Message)
	case ctx.Err() == nil: // the engine's own failure: a damaged file
		gc.Status, gc.Error, gc.DBFailed = GoldError, oneLine(err.Error()), true
	default:
		return gc, fmt.Errorf("check %s: %w", t.ID, err)
	}
	return gc, nil
}

// oneLine folds a message onto one line for a table cell.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
