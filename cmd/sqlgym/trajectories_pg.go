package main

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/pgstore"
)

// openPostgresWriter opens the PostgreSQL trajectory store at url,
// creating its tables (and the schema a search_path parameter names) if
// missing. The durability sets its synchronous_commit (on for episode,
// off otherwise); PostgreSQL's own WAL writer, not --sync-interval,
// bounds what an asynchronous commit may lose. Under --takeover the store
// is shared by replicas (r's id, its lease).
func openPostgresWriter(ctx context.Context, url string, d durabilityFlags, r replicaFlags) (trajlog.Writer, error) {
	s, err := pgstore.OpenConfig(ctx, pgstore.Config{URL: url, Durability: d.mode, Replica: r.replica(), LeaseTTL: r.leaseTTL})
	if err != nil {
		return nil, fmt.Errorf("--trajectories: %w", err)
	}
	return s, nil
}
