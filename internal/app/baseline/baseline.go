// Package baseline measures what the engine alone does with the
// statements a bench run's episodes run: the gold queries of the tasks the
// episodes draw, in the same proportions, run in process through the same
// env.DB handles (or an engine configured as the server's), on a few
// goroutines, for a fixed time or count. sqlgym bench --baseline divides
// the server's SQL steps per second by the rate it reports.
package baseline

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlgym/sqlgym/env"
)

// Config says what to run. Episode n of the bench run draws
// Dataset.Draw(Seed+n), as the server draws a seeded reset's task, and
// runs its gold Repeats times under Exec (as execute_sql does), then once
// under Submit (as scoring a submission does).
type Config struct {
	Dataset    *env.Dataset
	Catalog    *env.Catalog // opens the dataset's databases
	Seed       int64
	Repeats    int
	Exec       env.Limits
	Submit     env.Limits
	Workers    int           // goroutines (1 when 0)
	Duration   time.Duration // no statement starts after this long
	Statements int64         // no more statements than this start; with neither bound, Duration is 5s
}

// Result is what a run measured.
type Result struct {
	Statements int64 // run to the end
	Errors     int64 // failed (not counted in Statements)
	Workers    int
	Elapsed    time.Duration
}

// PerSecond is the statements run per second.
func (r *Result) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Statements) / r.Elapsed.Seconds()
}

// ErrNoGold is returned for a drawn task without gold SQL.
var ErrNoGold = errors.New("baseline: a task drawn has no gold SQL")

// Run opens every database of the dataset (outside the timing), then runs
// the statements on cfg.Workers goroutines until a bound is reached or
// ctx ends. A statement that fails is counted, not returned.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg.Workers = max(cfg.Workers, 1)
	if cfg.Duration <= 0 && cfg.Statements <= 0 {
		cfg.Duration = 5 * time.Second
	}
	dbs, err := openAll(ctx, cfg.Catalog, cfg.Dataset)
	if err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, dbs: dbs, start: time.Now()}
	if cfg.Duration > 0 {
		r.deadline = r.start.Add(cfg.Duration)
	}
	var wg sync.WaitGroup
	for range cfg.Workers {
		wg.Go(func() { r.work(ctx) })
	}
	wg.Wait()
	res := &Result{Statements: r.done.Load(), Errors: r.errs.Load(), Workers: cfg.Workers, Elapsed: time.Since(r.start)}
	if err := r.firstErr(); err != nil {
		return res, err
	}
	return res, nil
}

// openAll opens each database of ds through catalog.
func openAll(ctx context.Context, catalog *env.Catalog, ds *env.Dataset) (map[string]env.DB, error) {
	dbs := make(map[string]env.DB, len(ds.DBs))
	for id := range ds.DBs {
		db, err := catalog.DB(ctx, ds, id)
		if err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
		dbs[id] = db
	}
	return dbs, nil
}

// runner is the state of one run, shared by its workers.
type runner struct {
	cfg      Config
	dbs      map[string]env.DB // read-only
	start    time.Time
	deadline time.Time // zero when only the count bounds the run

	claimed, done, errs atomic.Int64 // statements claimed, run, failed
	stopped             atomic.Bool  // set with err

	mu  sync.Mutex
	err error // the first error that stops the run (not a statement's failure)
}

// work runs statements until a bound is reached. Statement j is the
// (j mod Repeats+1)-th of episode j / (Repeats+1): the first N statements
// are those of the first episodes, whole, whatever the workers' order.
func (r *runner) work(ctx context.Context) {
	per := int64(r.cfg.Repeats + 1)
	for ctx.Err() == nil {
		j, ok := r.claim()
		if !ok {
			return
		}
		task := r.cfg.Dataset.Draw(r.cfg.Seed + j/per)
		if task == nil || task.GoldSQL == "" {
			r.stop(ErrNoGold)
			return
		}
		lim := r.cfg.Exec
		if j%per == per-1 {
			lim = r.cfg.Submit
		}
		if _, err := r.dbs[task.DBID].Query(ctx, task.GoldSQL, lim); err != nil {
			r.errs.Add(1)
		} else {
			r.done.Add(1)
		}
	}
}

// claim takes the number of the next statement to run, unless a bound is
// reached or the run was stopped.
func (r *runner) claim() (int64, bool) {
	if !r.deadline.IsZero() && !time.Now().Before(r.deadline) || r.stopped.Load() {
		return 0, false
	}
	j := r.claimed.Add(1) - 1
	return j, r.cfg.Statements <= 0 || j < r.cfg.Statements
}

func (r *runner) stop(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	r.stopped.Store(true)
}

func (r *runner) firstErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}
