package baseline

import (
	"context"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/app/bench"
)

// Tasks are ds's tasks as a bench run's gold script plays them: each
// task's id and gold SQL, in the dataset's order.
func Tasks(ds *env.Dataset) []bench.Task {
	out := make([]bench.Task, len(ds.Tasks))
	for i, t := range ds.Tasks {
		out[i] = bench.Task{ID: t.ID, GoldSQL: t.GoldSQL}
	}
	return out
}

// Measure is a bench run's baseline (bench.Config.Baseline): Run under
// cfg, its result in the shape the bench reports.
func Measure(cfg Config) func(context.Context) (*bench.Baseline, error) {
	return func(ctx context.Context) (*bench.Baseline, error) {
		res, err := Run(ctx, cfg)
		if err != nil {
			return nil, err
		}
		return &bench.Baseline{Statements: res.Statements, Errors: res.Errors, Workers: res.Workers,
			Elapsed: res.Elapsed.Seconds(), PerS: res.PerSecond()}, nil
	}
}
