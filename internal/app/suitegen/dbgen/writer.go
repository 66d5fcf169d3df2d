package dbgen

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mattn/go-sqlite3"
)

// writer writes one new database file: the schema, then rows, in one
// transaction, with no journal and no syncs until it is closed.
type writer struct {
	path string
	conn *sqlite3.SQLiteConn
}

// create makes the file at dst, which must not exist, and starts writing
// it: the transaction opened, the tables and indexes created.
func create(ctx context.Context, dst string, early []string) (*writer, error) {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("dbgen: %w", err)
	}
	f.Close()
	w := &writer{path: dst}
	if err := w.open(ctx, early); err != nil {
		w.abandon()
		return nil, err
	}
	return w, nil
}

// open connects to the new file and runs the statements that precede the rows.
func (w *writer) open(ctx context.Context, early []string) error {
	dsn, err := fileDSN(w.path, "mode=rw")
	if err != nil {
		return fmt.Errorf("dbgen: %w", err)
	}
	dc, err := (&sqlite3.SQLiteDriver{}).Open(dsn)
	if err != nil {
		return fmt.Errorf("dbgen: open %s: %w", w.path, err)
	}
	w.conn = dc.(*sqlite3.SQLiteConn)
	if err := w.exec(ctx, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA foreign_keys = OFF; BEGIN"); err != nil {
		return err
	}
	return w.execAll(ctx, early)
}

// exec runs statements that take no arguments.
func (w *writer) exec(ctx context.Context, sql string) error {
	if _, err := w.conn.ExecContext(ctx, sql, nil); err != nil {
		return fmt.Errorf("dbgen: %s: %w", firstWords(sql, 3), err)
	}
	return nil
}

// execAll runs each of stmts.
func (w *writer) execAll(ctx context.Context, stmts []string) error {
	for _, s := range stmts {
		if err := w.exec(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// inserter prepares the INSERT of a row of t.
func (w *writer) inserter(t *table) (*inserter, error) {
	names := make([]string, len(t.columns))
	for i, c := range t.columns {
		names[i] = quoteIdent(c.name)
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) VALUES (?%s)", quoteIdent(t.name), strings.Join(names, ", "),
		strings.Repeat(", ?", len(t.columns)-1))
	st, err := w.conn.Prepare(q)
	if err != nil {
		return nil, fmt.Errorf("dbgen: insert into %s: %w", t.name, err)
	}
	args := make([]driver.NamedValue, len(t.columns))
	for i := range args {
		args[i].Ordinal = i + 1
	}
	return &inserter{st: st.(driver.StmtExecContext), closer: st, args: args, table: t.name}, nil
}

// inserter inserts rows into one table through one prepared statement.
type inserter struct {
	st     driver.StmtExecContext
	closer driver.Stmt
	args   []driver.NamedValue
	table  string
}

// insert inserts row, and reports false when the engine refused it: a
// constraint it breaks, or a value an INTEGER PRIMARY KEY cannot hold.
// It runs without a context: go-sqlite3 watches a cancellable one with a
// goroutine per statement, so the caller checks its own between rows.
func (in *inserter) insert(row []any) (bool, error) {
	for i, v := range row {
		in.args[i].Value = v
	}
	_, err := in.st.ExecContext(context.Background(), in.args)
	var se sqlite3.Error
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &se) && (se.Code == sqlite3.ErrConstraint || se.Code == sqlite3.ErrMismatch):
		return false, nil
	}
	return false, fmt.Errorf("dbgen: insert into %s: %w", in.table, err)
}

func (in *inserter) close() { in.closer.Close() }

// finish runs the statements that follow the rows, commits and closes
// the file.
func (w *writer) finish(ctx context.Context, late []string) error {
	if err := w.execAll(ctx, late); err != nil {
		return err
	}
	if err := w.exec(ctx, "COMMIT"); err != nil {
		return err
	}
	err := w.conn.Close()
	w.conn = nil
	if err != nil {
		return fmt.Errorf("dbgen: close %s: %w", w.path, err)
	}
	return nil
}

// abandon closes and removes a file that was not finished.
func (w *writer) abandon() {
	if w.conn != nil {
		w.conn.Close()
	}
	os.Remove(w.path)
}

// checkSchema creates the schema in memory, so that one SQLite cannot
// create again fails Analyze rather than every Generate.
func checkSchema(ctx context.Context, s *schema) error {
	dc, err := (&sqlite3.SQLiteDriver{}).Open(":memory:")
	if err != nil {
		return fmt.Errorf("dbgen: schema check: %w", err)
	}
	defer dc.Close()
	conn := dc.(*sqlite3.SQLiteConn)
	for _, stmt := range append(append([]string{}, s.early...), s.late...) {
		if _, err := conn.ExecContext(ctx, stmt, nil); err != nil {
			return fmt.Errorf("dbgen: the schema cannot be created again: %s: %w", firstWords(stmt, 3), err)
		}
	}
	return nil
}
