package postgres

import (
	"context"
	"fmt"
)

// Capacity is one server's connections: how many the engine's pool may
// open, and how many the server lets roles without superuser open
// (max_connections less its reserved slots).
type Capacity struct {
	Server    string // host:port/database
	Pool      int
	Available int
}

// availableQuery is max_connections less the slots kept for superusers
// and, from PostgreSQL 16, for roles of pg_use_reserved_connections.
const availableQuery = `SELECT current_setting('max_connections')::int
  - current_setting('superuser_reserved_connections')::int
  - coalesce(current_setting('reserved_connections', true)::int, 0)`

// Capacity reports each open server's pool size beside what the server
// allows, asking each server once.
func (e *Engine) Capacity(ctx context.Context) ([]Capacity, error) {
	e.mu.Lock()
	servers := make([]*server, 0, len(e.servers))
	for _, s := range e.servers {
		servers = append(servers, s)
	}
	e.mu.Unlock()
	var out []Capacity
	for _, s := range servers {
		var n int
		if err := s.pool.QueryRow(ctx, availableQuery).Scan(&n); err != nil {
			return out, fmt.Errorf("postgres server %s: max_connections: %w", s.name, err)
		}
		out = append(out, Capacity{Server: s.name, Pool: e.cfg.MaxConns, Available: n})
	}
	return out, nil
}
