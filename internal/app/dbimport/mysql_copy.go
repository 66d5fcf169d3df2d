package dbimport

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	driver "github.com/go-sql-driver/mysql"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/mysql"
)

// maxInsertBytes bounds the values of one INSERT the copy sends (the
// server's max_allowed_packet is 16 MiB by default on MariaDB, 64 MiB on
// MySQL 8).
const maxInsertBytes = 4 << 20

// maxPlaceholders bounds the values of one INSERT: MySQL's limit on a
// prepared statement's parameters, should the driver prepare it.
const maxPlaceholders = 65_535

// myCopier holds one database's copy into MySQL in progress.
type myCopier struct {
	ctx   context.Context
	src   env.DB
	admin *sql.DB
	db    string
	cfg   CopyConfig
	rep   *DBCopy
}

// copyMySQL copies tables, src's tables, whose names checkMySQLTables
// accepted, into the MySQL database dbID, whose text takes collation,
// replacing the database of an
// earlier import (see checkMySQLTargets). MySQL commits each CREATE
// TABLE by itself, so a failed copy leaves the database part-made; the
// next import replaces it. Each table's rows are filled in one
// transaction and counted against SQLite's. Primary keys, NOT NULL and
// foreign keys are added where the data and MySQL allow, and each one
// that is not is noted with the reason.
func copyMySQL(ctx context.Context, src env.DB, tables []env.Table, admin *sql.DB, dbID, collation string, cfg CopyConfig) (*DBCopy, error) {
	c := &myCopier{ctx: ctx, src: src, admin: admin, db: dbID, cfg: cfg.withDefaults(), rep: &DBCopy{DBID: dbID, Schema: dbID}}
	if err := replaceDatabase(ctx, admin, dbID, collation); err != nil {
		return nil, err
	}
	for i := range tables {
		tc, err := c.table(&tables[i])
		if err != nil {
			return nil, fmt.Errorf("copy %s: table %s: %w", dbID, tables[i].Name, err)
		}
		c.rep.Tables = append(c.rep.Tables, *tc)
		if err := c.reserved(tc); err != nil {
			return nil, fmt.Errorf("copy %s: table %s: %w", dbID, tables[i].Name, err)
		}
	}
	for i := range tables {
		c.keys(&tables[i], &c.rep.Tables[i])
	}
	for i := range tables {
		c.foreignKeys(&tables[i], &c.rep.Tables[i])
	}
	return c.rep, ctx.Err()
}

// reserved adds to the report the names of tc, its own and its
// columns', that the server reads as a keyword when bare: it asks the
// server whether SELECT name FROM (SELECT 1 AS `name`) AS x parses, the
// way tools/keywords_mysql.go's list was found.
func (c *myCopier) reserved(tc *TableCopy) error {
	names := []string{tc.Name}
	for _, col := range tc.Columns {
		names = append(names, col.Name)
	}
	for _, n := range names {
		if slices.Contains(c.rep.Reserved, n) || !bareWord(n) {
			continue
		}
		_, err := c.admin.ExecContext(c.ctx, "SELECT "+n+" FROM (SELECT 1 AS "+mysql.QuoteIdent(n)+") AS x")
		var me *driver.MySQLError
		switch {
		case errors.As(err, &me) && me.Number == erSyntax:
			c.rep.Reserved = append(c.rep.Reserved, n)
		case err != nil:
			return fmt.Errorf("ask whether %q is a keyword: %w", n, err)
		}
	}
	return nil
}

// erSyntax is MySQL's error number of a statement that does not parse.
const erSyntax = 1064

// bareWord reports whether name can be written without quotes at all.
func bareWord(name string) bool {
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' && i > 0) {
			return false
		}
	}
	return name != ""
}

// ident is the quoted, database-qualified name of a table.
func (c *myCopier) ident(table string) string {
	return mysql.QuoteIdent(c.db) + "." + mysql.QuoteIdent(table)
}

// table creates one table, fills it and checks its row count.
func (c *myCopier) table(t *env.Table) (*TableCopy, error) {
	tc, srcRows, maxLen, err := scanClasses(c.ctx, c.src, t, c.cfg.ReadTimeout, myName)
	if err != nil {
		return nil, err
	}
	conform(tc, c.cfg.Like)
	for i := range tc.Columns {
		col := &tc.Columns[i]
		col.Class, col.Type = col.Type, mysqlType(col.Type, maxLen[i])
	}
	if _, err := c.admin.ExecContext(c.ctx, c.createTable(tc)); err != nil {
		return nil, fmt.Errorf("create: %w", err)
	}
	if err := c.fill(t, tc); err != nil {
		return nil, err
	}
	var got int64
	if err := c.admin.QueryRowContext(c.ctx, "SELECT count(*) FROM "+c.ident(tc.Name)).Scan(&got); err != nil {
		return nil, fmt.Errorf("count rows: %w", err)
	}
	if got != srcRows {
		return nil, fmt.Errorf("%d rows in MySQL, %d in SQLite", got, srcRows)
	}
	tc.Rows = got
	return tc, nil
}

// createTable is the CREATE TABLE statement of tc, without constraints.
func (c *myCopier) createTable(tc *TableCopy) string {
	cols := make([]string, len(tc.Columns))
	for i, col := range tc.Columns {
		cols[i] = mysql.QuoteIdent(col.Name) + " " + col.Type
	}
	return "CREATE TABLE " + c.ident(tc.Name) + " (" + strings.Join(cols, ", ") + ") ENGINE=InnoDB"
}

// fill copies t's rows into tc's table, a page at a time from SQLite,
// each value read through the SQLite cast its column's class asks for,
// in INSERTs of at most maxInsertBytes of values, in one transaction.
func (c *myCopier) fill(t *env.Table, tc *TableCopy) error {
	exprs := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		exprs[i] = readExpr(quoteSQLite(col.Name), tc.Columns[i].Class)
	}
	tx, err := c.admin.BeginTx(c.ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	base := "SELECT " + strings.Join(exprs, ", ") + " FROM " + quoteSQLite(t.Name)
	err = readPages(c.ctx, c.src, base, c.cfg, func(off int, rows [][]any) error {
		for _, row := range rows {
			repair(row, tc)
		}
		if err := c.insert(tx, tc, rows); err != nil {
			return fmt.Errorf("insert rows %d-: %w", off, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tx.Commit()
}

// insert writes rows into tc's table, in INSERTs of at most
// maxInsertBytes of values each.
func (c *myCopier) insert(tx *sql.Tx, tc *TableCopy, rows [][]any) error {
	cols := make([]string, len(tc.Columns))
	for i, col := range tc.Columns {
		cols[i] = mysql.QuoteIdent(col.Name)
	}
	head := "INSERT INTO " + c.ident(tc.Name) + " (" + strings.Join(cols, ", ") + ") VALUES "
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	for len(rows) > 0 {
		n, size := 0, 0
		var args []any
		for n < len(rows) && (n == 0 || size < maxInsertBytes && (n+1)*len(cols) <= maxPlaceholders) {
			for _, v := range rows[n] {
				size += valueSize(v)
			}
			args = append(args, rows[n]...)
			n++
		}
		q := head + strings.TrimSuffix(strings.Repeat(one+", ", n), ", ")
		if _, err := tx.ExecContext(c.ctx, q, args...); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// valueSize is about how many bytes v takes in an INSERT.
func valueSize(v any) int {
	switch v := v.(type) {
	case string:
		return len(v) + 3
	case []byte:
		return 2*len(v) + 10
	}
	return 24
}
