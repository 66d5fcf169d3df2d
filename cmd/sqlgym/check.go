package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/sqlgym/sqlgym/base/progress"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/reward/evaluate"
	"github.com/sqlgym/sqlgym/reward/judge"
)

// checkFlags are the flags of sqlgym check.
type checkFlags struct {
	dataset     string
	goldTimeout time.Duration
	slow        time.Duration
	workers     int
	engine      engineFlags
}

// runCheck runs every gold of a dataset and reports the broken, slow and
// empty ones. It fails (exit status 1) when a gold fails or times out.
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("check", stderr)
	var f checkFlags
	fs.StringVar(&f.dataset, "dataset", "", "dataset to check, `[NAME=]FORMAT:PATH` with FORMAT spider, bird or jsonl (required)")
	fs.DurationVar(&f.goldTimeout, "gold-timeout", judge.DefaultTimeout, "time limit of a gold query")
	fs.DurationVar(&f.slow, "slow", evaluate.DefaultSlow, "report golds that run longer than this")
	fs.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "golds run at once")
	f.engine.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := f.engine.parse(); err != nil {
		return err
	}
	switch {
	case f.dataset == "":
		return usageError{"check: --dataset is required"}
	case f.goldTimeout <= 0 || f.slow <= 0:
		return usageError{"check: --gold-timeout and --slow must be positive"}
	case f.workers < 1:
		return usageError{"check: --workers must be at least 1"}
	}
	ds, err := loadDataset(f.dataset, &f.engine, datasets.LoadKeepingMissing)
	if err != nil {
		return err
	}
	catalog := f.engine.catalog(0)
	defer catalog.Close()
	bar := progress.NewBar(stderr, isTerminal(stderr), "check")
	rep, err := evaluate.Check(ctx, ds, evaluate.CheckConfig{
		Catalog: catalog, GoldTimeout: f.goldTimeout, Slow: f.slow, Workers: f.workers, Progress: bar.Update,
	})
	bar.Finish()
	if err != nil {
		return err
	}
	if err := rep.WriteText(stdout); err != nil {
		return err
	}
	errs, timeouts, bad := len(rep.Errors()), len(rep.Timeouts()), len(rep.BadDatabases())
	switch {
	case bad > 0:
		return fmt.Errorf("check %s: %d of %d golds failed (%d errors, %d timeouts); %d of %d databases would not open",
			ds.Name, errs+timeouts, len(rep.Golds), errs, timeouts, bad, len(ds.DBs))
	case errs+timeouts > 0:
		return fmt.Errorf("check %s: %d of %d golds failed (%d errors, %d timeouts)", ds.Name, errs+timeouts, len(rep.Golds), errs, timeouts)
	}
	return nil
}
