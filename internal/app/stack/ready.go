package stack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/episodes/transport"
)

// pinger is a trajectory store that can tell whether it reaches its
// server (pgstore's).
type pinger interface {
	Ping(context.Context) error
}

// ReadyChecks are the checks of GET /readyz over the stack: the
// trajectory store when it is a server's (PostgreSQL), the engine
// servers a database is open on (PostgreSQL, MySQL/MariaDB: one query
// each) when a dataset is in their dialect, and each SQLite dataset's
// files.
func (st *Stack) ReadyChecks() []transport.Check {
	var checks []transport.Check
	if p, ok := st.Recorder.(pinger); ok {
		checks = append(checks, transport.Check{Name: "trajectories", Probe: p.Ping})
	}
	dialects := map[env.Dialect]bool{}
	for _, ds := range st.Datasets {
		dialects[ds.Dialect] = true
	}
	if pg := st.Postgres; pg != nil && dialects[env.Postgres] {
		checks = append(checks, transport.Check{Name: "engine:postgres",
			Probe: func(ctx context.Context) error { _, err := pg.Capacity(ctx); return err }})
	}
	if my := st.MySQL; my != nil && dialects[env.MySQL] {
		checks = append(checks, transport.Check{Name: "engine:mysql",
			Probe: func(ctx context.Context) error { _, err := my.Capacity(ctx); return err }})
	}
	for _, ds := range st.Datasets {
		if ds.Dialect == env.SQLite {
			checks = append(checks, transport.Check{Name: "dataset:" + ds.Name, Probe: sqliteFiles(ds)})
		}
	}
	return checks
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
