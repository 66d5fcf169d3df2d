package mysql

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym/env"
)

// Capacity is one server's connections: how many the engine may hold
// open on it (twice MaxConns: MaxConns running statements, and idle
// ones while the total is at most MaxConns), and how many the server
// lets accounts without SUPER open (max_connections).
type Capacity struct {
	Server    string // host:port
	Pool      int
	Available int
}

// Capacity reports, for each server a database is open on, what the
// engine may hold beside what the server allows, asking each server once
// through one of its databases.
func (e *Engine) Capacity(ctx context.Context) ([]Capacity, error) {
	e.mu.Lock()
	one := map[*server]*db{}
	for d := range e.open {
		one[d.srv] = d
	}
	e.mu.Unlock()
	var out []Capacity
	for srv, d := range one {
		rs, err := d.introspect(ctx, "SELECT @@max_connections", env.Limits{})
		if err != nil {
			return out, fmt.Errorf("mysql server %s: max_connections: %w", srv.key, err)
		}
		n, _ := rs.Rows[0][0].(int64)
		out = append(out, Capacity{Server: srv.key, Pool: 2 * e.cfg.MaxConns, Available: int(n)})
	}
	return out, nil
}
