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
	// MemoryWatched says whether the server's processes are visible to
	// the memory watch (MaxStatementMemory): false when the server runs
	// on another host or in another PID namespace.
	MemoryWatched bool
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
		c, err := s.capacity(ctx)
		if err != nil {
			return out, err
		}
		c.Pool = e.cfg.MaxConns
		out = append(out, c)
	}
	return out, nil
}

// capacity asks the server for its connections, and looks for its
// process on this host.
func (s *server) capacity(ctx context.Context) (Capacity, error) {
	c := Capacity{Server: s.name}
	pooled, err := s.pool.Acquire(ctx)
	if err != nil {
		return c, fmt.Errorf("postgres server %s: %w", s.name, err)
	}
	defer pooled.Release()
	if err := pooled.QueryRow(ctx, availableQuery).Scan(&c.Available); err != nil {
		return c, fmt.Errorf("postgres server %s: max_connections: %w", s.name, err)
	}
	pc := pooled.Conn().PgConn()
	if f, err := openBackend(pc.PID(), processAddr(pc.Conn().LocalAddr())); err == nil {
		f.Close()
		c.MemoryWatched = true
	}
	return c, nil
}
