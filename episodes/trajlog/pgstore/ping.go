package pgstore

import (
	"context"
	"fmt"
)

// Ping asks the store's server for one round trip, so that a server's
// readiness check sees a store it can no longer reach.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	return nil
}
