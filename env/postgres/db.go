package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

// leadingKeywords are the words a model's statement may begin with. The
// list is a first line only: the reader role and the READ ONLY
// transaction are the real guards.
var leadingKeywords = []string{"SELECT", "WITH", "VALUES", "TABLE", "EXPLAIN"}

// db is one schema of a server. Its fields do not change after Open.
type db struct {
	eng    *Engine
	srv    *server
	schema string
	quoted string // schema as an identifier
	role   string // its role (SchemaRole), as an identifier

	namesOnce sync.Once
	names     map[string]bool // the schema's table and column names, once read
}

var (
	_ env.DB        = (*db)(nil)
	_ env.Immutable = (*db)(nil)
)

// ownName reports whether name is a table or a column of the schema's:
// such a name is the schema's own even when a catalog relation shares it.
// The names are read once when the schema is immutable, else every time.
func (d *db) ownName(ctx context.Context, name string) bool {
	if !d.Immutable() {
		return readNames(ctx, d)[name]
	}
	d.namesOnce.Do(func() { d.names = readNames(ctx, d) })
	return d.names[name]
}

// readNames reads the schema's table and column names; none when they
// cannot be read.
func readNames(ctx context.Context, d *db) map[string]bool {
	tables, err := d.describe(ctx, nil)
	if err != nil {
		return nil
	}
	names := map[string]bool{}
	for _, t := range tables {
		names[t.Name] = true
		for _, c := range t.Columns {
			names[c.Name] = true
		}
	}
	return names
}

// Immutable reports true unless the engine's Config.Mutable is set: a
// served schema is one sqlgym import wrote, which nothing changes while
// it is served (import again, then restart the server).
func (d *db) Immutable() bool { return !d.eng.cfg.Mutable }

// Close gives back the database's share of its server's pool.
func (d *db) Close() error {
	d.eng.release(d.srv)
	return nil
}

// limits fills in the defaults and the engine's ceilings.
func (d *db) limits(lim env.Limits) limits {
	if lim.Timeout <= 0 {
		lim.Timeout = d.eng.cfg.DefaultTimeout
	}
	return limits{Limits: lim, ceil: sandbox.Ceilings{Rows: d.eng.cfg.MaxResultRows, Bytes: d.eng.cfg.MaxResultBytes}}
}

// Query runs one read-only statement of the model's within lim. A zero
// lim.Timeout means the engine's default timeout; zero MaxRows,
// MaxCellBytes and MaxResultBytes mean no limit short of the engine's
// ceilings. The timeout covers the wait for a connection too; the
// result's Elapsed is the statement's own time.
func (d *db) Query(ctx context.Context, text string, lim env.Limits) (*env.ResultSet, error) {
	rules := sandbox.Rules{Allowed: leadingKeywords, MaxBytes: d.eng.cfg.MaxSQLBytes}
	stmt, err := rules.Statement(text)
	if err != nil {
		return nil, err
	}
	if err := checkFunctions(stmt, func(name string) bool { return d.ownName(ctx, name) }); err != nil {
		return nil, err
	}
	eff := d.limits(lim)
	var rs *env.ResultSet
	err = d.call(ctx, eff.Timeout, func(c *conn) error {
		var cols, tables []string
		if eff.Reads {
			var err error
			if cols, tables, err = c.readColumns(stmt, eff); err != nil {
				return err
			}
		}
		start := time.Now()
		if rs, err = c.run(stmt, nil, eff); err != nil {
			return err
		}
		rs.Elapsed, rs.ReadColumns, rs.ReadTables = time.Since(start), cols, tables
		return nil
	})
	var qe *env.QueryError
	if errors.As(err, &qe) {
		return nil, qe
	}
	if err != nil {
		return nil, fmt.Errorf("postgres schema %q on %s: %w", d.schema, d.srv.name, err)
	}
	return rs, nil
}
