package dbimport

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/env"
)

// Defaults for the zero fields of CopyConfig.
const (
	DefaultPageRows    = 50_000
	DefaultReadTimeout = 5 * time.Minute
)

// CopyConfig configures CopyDB; every zero field takes its default.
type CopyConfig struct {
	// PageRows is how many rows are read from SQLite at a time. Default
	// 50,000.
	PageRows int
	// ReadTimeout bounds each read from SQLite. Default 5 minutes.
	ReadTimeout time.Duration
	// Like, when set, is a copy whose column types the copy takes,
	// column by namesake column, in place of those its own values would
	// choose: a test-suite database is copied with the types of the
	// database it was generated from, so that a query means the same on
	// both. A value the type cannot hold fails the copy.
	Like *DBCopy
}

func (c CopyConfig) withDefaults() CopyConfig {
	if c.PageRows <= 0 {
		c.PageRows = DefaultPageRows
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = DefaultReadTimeout
	}
	return c
}

// CopyDB copies every table of src into the PostgreSQL schema named dbID,
// replacing the schema and everything in it (only a schema an earlier
// import made, marked with ImportMark; see CheckTargets), in one transaction: either
// the whole database is there afterwards, with as many rows in each table
// as in SQLite, or the schema is as it was. Table and column names are
// lower-cased (pgName); primary keys, NOT NULL and foreign keys are added where
// the data allows, and each one that is not is noted with the reason.
//
// Two tables whose names would be one in PostgreSQL (lower-cased, then cut
// to the server's max_identifier_length bytes), or two such columns of a
// table, are refused, both named, before anything is written.
func CopyDB(ctx context.Context, src env.DB, conn *pgx.Conn, dbID string, cfg CopyConfig) (*DBCopy, error) {
	tables, err := src.Tables(ctx)
	if err != nil {
		return nil, fmt.Errorf("copy %s: %w", dbID, err)
	}
	if err := checkTables(ctx, conn, dbID, tables); err != nil {
		return nil, err
	}
	return copyTables(ctx, src, tables, conn, dbID, cfg)
}

// copyTables is CopyDB of tables, src's tables, whose names checkTables
// accepted.
func copyTables(ctx context.Context, src env.DB, tables []env.Table, conn *pgx.Conn, dbID string, cfg CopyConfig) (*DBCopy, error) {
	cfg = cfg.withDefaults()
	rep := &DBCopy{DBID: dbID, Schema: dbID}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("copy %s: %w", dbID, err)
	}
	defer tx.Rollback(ctx)
	c := &copier{ctx: ctx, src: src, tx: tx, schema: dbID, cfg: cfg, rep: rep}
	if err := c.run(tables); err != nil {
		return nil, fmt.Errorf("copy %s: %w", dbID, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("copy %s: commit: %w", dbID, err)
	}
	return rep, nil
}

// copier holds one database's copy in progress.
type copier struct {
	ctx    context.Context
	src    env.DB
	tx     pgx.Tx
	schema string
	cfg    CopyConfig
	rep    *DBCopy
}

func (c *copier) run(tables []env.Table) error {
	if err := c.replaceSchema(); err != nil {
		return err
	}
	for i := range tables {
		tc, err := c.table(&tables[i])
		if err != nil {
			return fmt.Errorf("table %s: %w", tables[i].Name, err)
		}
		c.rep.Tables = append(c.rep.Tables, *tc)
	}
	for _, add := range []func(*env.Table, *TableCopy) error{c.keys, c.foreignKeys} {
		for i := range tables {
			if err := add(&tables[i], &c.rep.Tables[i]); err != nil {
				return fmt.Errorf("table %s: %w", tables[i].Name, err)
			}
		}
	}
	return nil
}

// replaceSchema drops the schema of an earlier import, if there is one,
// and creates it anew with ImportMark; a schema the import did not make is
// an error (see checkTarget).
func (c *copier) replaceSchema() error {
	if err := checkTarget(c.ctx, c.tx, c.schema); err != nil {
		return err
	}
	q := pgx.Identifier{c.schema}.Sanitize()
	if _, err := c.tx.Exec(c.ctx, "DROP SCHEMA IF EXISTS "+q+" CASCADE"); err != nil {
		return fmt.Errorf("drop schema: %w", err)
	}
	if _, err := c.tx.Exec(c.ctx, "CREATE SCHEMA "+q); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	if _, err := c.tx.Exec(c.ctx, "COMMENT ON SCHEMA "+q+" IS '"+ImportMark+"'"); err != nil {
		return fmt.Errorf("mark schema: %w", err)
	}
	return nil
}

// table creates one table, fills it and checks its row count.
func (c *copier) table(t *env.Table) (*TableCopy, error) {
	tc, srcRows, err := c.classify(t)
	if err != nil {
		return nil, err
	}
	conform(tc, c.cfg.Like)
	if _, err := c.tx.Exec(c.ctx, createTable(c.schema, tc)); err != nil {
		return nil, fmt.Errorf("create: %w", err)
	}
	if err := c.fill(t, tc); err != nil {
		return nil, err
	}
	var got int64
	if err := c.tx.QueryRow(c.ctx, "SELECT count(*) FROM "+c.ident(tc.Name)).Scan(&got); err != nil {
		return nil, fmt.Errorf("count rows: %w", err)
	}
	if got != srcRows {
		return nil, fmt.Errorf("%d rows in PostgreSQL, %d in SQLite", got, srcRows)
	}
	tc.Rows = got
	return tc, nil
}

// ident is the quoted, schema-qualified name of a table.
func (c *copier) ident(table string) string {
	return pgx.Identifier{c.schema, table}.Sanitize()
}

// createTable is the CREATE TABLE statement of tc, without constraints
// but NOT NULL on the columns that hold no NULL.
func createTable(schema string, tc *TableCopy) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + pgx.Identifier{schema, tc.Name}.Sanitize() + " (")
	for i, col := range tc.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pgx.Identifier{col.Name}.Sanitize() + " " + col.Type)
	}
	b.WriteString(")")
	return b.String()
}

// quoteSQLite quotes an identifier for SQLite.
func quoteSQLite(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
