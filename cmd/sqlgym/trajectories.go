package main

import (
	"context"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// openTrajectoryWriter opens where the server records episodes, with the
// durability d: the PostgreSQL store for a postgres:// URL, else the log
// under dataDir.
func openTrajectoryWriter(ctx context.Context, trajectories, dataDir string, d durabilityFlags, r replicaFlags, log *zap.Logger) (trajlog.Writer, error) {
	if isPostgresURL(trajectories) {
		return openPostgresWriter(ctx, trajectories, d, r)
	}
	if trajectories != "" {
		return nil, usageError{fmt.Sprintf("--trajectories must be a postgres:// URL or empty (the log under --data-dir), got %q", trajectories)}
	}
	return openFileWriter(dataDir, d, log)
}

func isPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}
