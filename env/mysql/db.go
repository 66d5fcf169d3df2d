package mysql

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"database/sql"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

// db is one database of a server. Its fields do not change after Open.
type db struct {
	eng    *Engine
	srv    *server
	name   string
	server string // host:port, for messages
	pool   *sql.DB

	mu     sync.Mutex  // guards tables
	tables []env.Table // every table, once read

	idsMu sync.Mutex
	ids   map[any]int64 // the server's ids of the pool's driver connections (connID)
}

var (
	_ env.DB        = (*db)(nil)
	_ env.Immutable = (*db)(nil)
)

// Immutable reports true: a served database is one an import wrote,
// which nothing changes while it is served (import again, then restart
// the server).
func (d *db) Immutable() bool { return true }

// Close closes the database's pool.
func (d *db) Close() error {
	d.eng.closing(d)
	d.eng.release(d.srv)
	return d.pool.Close()
}

// limits are the bounds of one statement: the caller's, with the zero
// Timeout replaced, and the engine's ceilings.
type limits struct {
	env.Limits
	ceil sandbox.Ceilings
}

// limits fills in the defaults and the engine's ceilings.
func (d *db) limits(lim env.Limits) limits {
	if lim.Timeout <= 0 {
		lim.Timeout = d.eng.cfg.DefaultTimeout
	}
	return limits{Limits: lim, ceil: sandbox.Ceilings{Rows: d.eng.cfg.MaxResultRows, Bytes: d.eng.cfg.MaxResultBytes}}
}

// checked is a model's statement that passed the checks.
type checked struct {
	text   string // the one statement
	regexp bool   // it runs a regular expression (usesRegexp)
}

// check runs the checks of a model's statement and returns the one
// statement of text. It reads the statement's tokens once, before the
// call's time starts: a long statement's lexing is not the server's time.
func (d *db) check(ctx context.Context, text string) (checked, error) {
	rules := sandbox.Rules{Allowed: leadingKeywords, MaxBytes: d.eng.cfg.MaxSQLBytes, Count: countStatements}
	stmt, err := rules.Statement(text)
	if err != nil {
		return checked{}, err
	}
	all := lex(stmt)
	if err := checkStatement(all, func(name string) bool { return d.ownName(ctx, name) }); err != nil {
		return checked{}, err
	}
	return checked{text: stmt, regexp: usesRegexp(all)}, nil
}

// ownName reports whether name (in lower case) is a table or column of
// the database's.
func (d *db) ownName(ctx context.Context, name string) bool {
	tables, err := d.Tables(ctx)
	if err != nil {
		return false
	}
	for _, t := range tables {
		if strings.EqualFold(t.Name, name) || slices.ContainsFunc(t.Columns, func(c env.Column) bool { return strings.EqualFold(c.Name, name) }) {
			return true
		}
	}
	return false
}

// Query runs one read-only statement of the model's within lim. A zero
// lim.Timeout means the engine's default timeout; zero MaxRows,
// MaxCellBytes and MaxResultBytes mean no limit short of the engine's
// ceilings. The timeout covers the wait for a connection too; the
// result's Elapsed is the statement's own time.
func (d *db) Query(ctx context.Context, text string, lim env.Limits) (*env.ResultSet, error) {
	stmt, err := d.check(ctx, text)
	if err != nil {
		return nil, err
	}
	eff := d.limits(lim)
	var rs *env.ResultSet
	err = d.call(ctx, eff.Timeout, func(c *conn) error {
		if err := c.clearWarnings(stmt); err != nil {
			return err
		}
		start := time.Now()
		var err error
		if rs, err = c.run(stmt.text, eff); err != nil {
			return err
		}
		rs.Elapsed = time.Since(start)
		return c.checkRegexp(stmt)
	})
	if err == nil && eff.Reads {
		rs.ReadTables, rs.ReadColumns = d.reads(ctx, stmt.text)
	}
	if err != nil {
		return nil, d.callError(err)
	}
	return rs, nil
}

// callError is what a caller sees of a call's error: the statement's
// *env.QueryError, or the error named by the database and server.
func (d *db) callError(err error) error {
	var qe *env.QueryError
	if errors.As(err, &qe) {
		return qe
	}
	return fmt.Errorf("mysql database %q on %s: %w", d.name, d.server, err)
}
