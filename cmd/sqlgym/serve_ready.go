package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/episodes/transport"
)

// readyFlags bound GET /readyz's checks.
type readyFlags struct {
	interval time.Duration
	timeout  time.Duration
}

func (r *readyFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&r.interval, "ready-interval", transport.DefaultReadyInterval,
		"how long GET /readyz (and the sqlgym_ready gauge) reuses a round of its checks before running them again")
	fs.DurationVar(&r.timeout, "ready-timeout", transport.DefaultReadyTimeout,
		"how long each of GET /readyz's checks (trajectory store, engine servers, SQLite files) may take before it fails")
}

func (r *readyFlags) check() error {
	if r.interval <= 0 || r.timeout <= 0 {
		return usageError{fmt.Sprintf("--ready-interval and --ready-timeout must be > 0, got %s and %s", r.interval, r.timeout)}
	}
	return nil
}

// pinger is a trajectory store that can tell whether it reaches its
// server (pgstore's).
type pinger interface {
	Ping(context.Context) error
}

// readyChecks are the checks of GET /readyz over st: the trajectory store
// when it is a server's (PostgreSQL), the engine servers a database is
// open on (PostgreSQL, MySQL/MariaDB: one query each) when a dataset is
// in their dialect, and each SQLite dataset's files. engines holds the
// server engines st's catalog was built with.
func readyChecks(st *serveStack, engines *engineFlags, r readyFlags) transport.ReadyConfig {
	cfg := transport.ReadyConfig{Interval: r.interval, Timeout: r.timeout}
	if p, ok := st.Recorder.(pinger); ok {
		cfg.Checks = append(cfg.Checks, transport.Check{Name: "trajectories", Probe: p.Ping})
	}
	dialects := map[env.Dialect]bool{}
	for _, ds := range st.Datasets {
		dialects[ds.Dialect] = true
	}
	if pg := engines.built; pg != nil && dialects[env.Postgres] {
		cfg.Checks = append(cfg.Checks, transport.Check{Name: "engine:postgres",
			Probe: func(ctx context.Context) error { _, err := pg.Capacity(ctx); return err }})
	}
	if my := engines.mysql.built; my != nil && dialects[env.MySQL] {
		cfg.Checks = append(cfg.Checks, transport.Check{Name: "engine:mysql",
			Probe: func(ctx context.Context) error { _, err := my.Capacity(ctx); return err }})
	}
	for _, ds := range st.Datasets {
		if ds.Dialect == env.SQLite {
			cfg.Checks = append(cfg.Checks, transport.Check{Name: "dataset:" + ds.Name, Probe: sqliteFiles(ds)})
		}
	}
	return cfg
}

// sqliteFiles checks that each database file of a SQLite dataset is still
// there (a stat each), naming the first one gone.
func sqliteFiles(ds *env.Dataset) func(context.Context) error {
	ids := make([]string, 0, len(ds.DBs))
	for id := range ds.DBs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return func(ctx context.Context) error {
		for _, id := range ids {
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, err := os.Stat(ds.DBs[id]); err != nil {
				if errors.Is(err, os.ErrNotExist) {
					return fmt.Errorf("database %s: file %s is gone", id, ds.DBs[id])
				}
				return fmt.Errorf("database %s: %w", id, err)
			}
		}
		return nil
	}
}
