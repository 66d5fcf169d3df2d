package main

import (
	"flag"
	"runtime"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/app/baseline"
	"github.com/sqlgym/sqlgym/internal/app/bench"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/tools"
)

// baselineFlags are the flags of bench --baseline.
type baselineFlags struct {
	on         bool
	duration   time.Duration
	statements int64
}

func (b *baselineFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&b.on, "baseline", false, "right before the episodes, run their statements (the golds of the tasks they draw) in process through the engine "+
		"on GOMAXPROCS goroutines, and report the ratio of the server's SQL steps/s to that rate (needs --script gold)")
	fs.DurationVar(&b.duration, "baseline-duration", 5*time.Second, "how long the baseline runs (unless --baseline-statements ends it first)")
	fs.Int64Var(&b.statements, "baseline-statements", 0, "statements the baseline runs at most (0: bounded by --baseline-duration only)")
}

func (b *baselineFlags) check(script string) error {
	switch {
	case !b.on:
		return nil
	case script != bench.ScriptGold:
		return usageError{"--baseline runs the gold script's statements: give --script gold"}
	case b.duration <= 0 || b.statements < 0:
		return usageError{"--baseline-duration must be positive and --baseline-statements not negative"}
	}
	return nil
}

// wireTasks gives the run the dataset's tasks with their golds, and the
// baseline when asked: ds's golds run through catalog (the server's own
// in process) under the limits the server's runner and judge run them
// with.
func (f *benchFlags) wireTasks(cfg *bench.Config, ds *env.Dataset, catalog *env.Catalog, runner *tools.Runner, j *judge.Judge) {
	cfg.Tasks = baseline.Tasks(ds)
	if !f.baseline.on {
		return
	}
	cfg.Baseline = baseline.Measure(baseline.Config{
		Dataset: ds, Catalog: catalog, Seed: cfg.Seed, Repeats: cfg.GoldRepeats,
		Exec: runner.Limits(), Submit: j.SubmitLimits(),
		Workers: runtime.GOMAXPROCS(0), Duration: f.baseline.duration, Statements: f.baseline.statements,
	})
}
