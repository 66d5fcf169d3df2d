package dbgen

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// schema is the source database's schema as generation needs it.
type schema struct {
	tables []*table
	byName map[string]int // lower-case table name -> index in tables
	// early are the CREATE TABLE and CREATE INDEX statements, in the
	// source's order: run before the rows, so the engine checks each row.
	early []string
	// late are the CREATE VIEW and CREATE TRIGGER statements, in the
	// source's order: run after the rows, so no trigger fires on them.
	late []string
}

// table is one table of the source.
type table struct {
	name    string
	create  string // its CREATE TABLE statement
	columns []*column
	byName  map[string]int // lower-case column name -> index in columns
	// keys are the primary key and every UNIQUE constraint or unique
	// index on plain columns, as column indexes.
	keys [][]int
	fks  []foreignKey // declared, resolved against the schema
	rows int          // in the source
}

// column is one column of a table: what the schema declares and what the
// source's values show.
type column struct {
	name    string
	decl    string // the declared type
	aff     affinity
	notNull bool
	inPK    bool
	checked bool // named by a CHECK constraint: no fresh values
	stats   colStats

	// What Analyze derives for generation.
	pool   int             // the pool it draws from
	values []any           // aligned with its pool's entries: each typed for it, nil where it cannot hold one
	nullP  float64         // the share of its rows that are NULL (the NULL rule)
	lits   []any           // the golds' literals compared with it, typed for it
	seeds  []string        // the texts golds seed it with (literals and their perturbations), its children's too
	gold   map[string]bool // the value keys of its seeds, typed for it
}

// col is the column ref names.
func (s *schema) col(ref colRef) *column { return s.tables[ref.table].columns[ref.col] }

// quoteIdent quotes name as an SQL identifier.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// table finds a table by name, case-insensitively.
func (s *schema) table(name string) (int, bool) {
	i, ok := s.byName[strings.ToLower(name)]
	return i, ok
}

// column finds a column of t by name, case-insensitively.
func (t *table) column(name string) (int, bool) {
	i, ok := t.byName[strings.ToLower(name)]
	return i, ok
}

// readSchema reads the statements of sqlite_master and each table's
// columns, keys and foreign keys.
func readSchema(ctx context.Context, conn *sql.Conn) (*schema, error) {
	s := &schema{byName: map[string]int{}}
	if err := s.readMaster(ctx, conn); err != nil {
		return nil, err
	}
	for _, t := range s.tables {
		if err := t.readColumns(ctx, conn); err != nil {
			return nil, err
		}
		if err := t.readKeys(ctx, conn); err != nil {
			return nil, err
		}
		t.markChecked()
	}
	for _, t := range s.tables {
		if err := s.readForeignKeys(ctx, conn, t); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// readMaster reads the schema's statements, keeping the tables in order.
func (s *schema) readMaster(ctx context.Context, conn *sql.Conn) error {
	rows, err := conn.QueryContext(ctx, "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
	if err != nil {
		return fmt.Errorf("dbgen: schema: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var typ, name, text string
		if err := rows.Scan(&typ, &name, &text); err != nil {
			return fmt.Errorf("dbgen: schema: %w", err)
		}
		if err := s.addStatement(typ, name, text); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("dbgen: schema: %w", err)
	}
	if len(s.tables) == 0 {
		return fmt.Errorf("dbgen: schema: no tables")
	}
	return nil
}

// addStatement files one statement of sqlite_master. SQLite's own tables
// (sqlite_sequence, sqlite_stat1) are made by the engine, not replayed.
func (s *schema) addStatement(typ, name, text string) error {
	if strings.HasPrefix(strings.ToLower(name), "sqlite_") {
		return nil
	}
	switch typ {
	case "table":
		if strings.EqualFold(firstWords(text, 2), "create virtual") {
			return fmt.Errorf("dbgen: schema: virtual table %s: not supported", name)
		}
		s.byName[strings.ToLower(name)] = len(s.tables)
		s.tables = append(s.tables, &table{name: name, create: text, byName: map[string]int{}})
		s.early = append(s.early, text)
	case "index":
		s.early = append(s.early, text)
	case "view", "trigger":
		s.late = append(s.late, text)
	}
	return nil
}

// firstWords returns the first n words of text, separated by one space.
func firstWords(text string, n int) string {
	f := strings.Fields(text)
	return strings.Join(f[:min(n, len(f))], " ")
}

// readColumns reads t's columns (generated columns are not among them:
// table_info leaves them out, and they take no value on insert).
func (t *table) readColumns(ctx context.Context, conn *sql.Conn) error {
	rows, err := conn.QueryContext(ctx, `SELECT name, type, "notnull", pk FROM pragma_table_info(?) ORDER BY cid`, t.name)
	if err != nil {
		return fmt.Errorf("dbgen: columns of %s: %w", t.name, err)
	}
	defer rows.Close()
	pk := map[int]int{} // pk position -> column
	for rows.Next() {
		c := &column{}
		var notNull, pkPos int
		if err := rows.Scan(&c.name, &c.decl, &notNull, &pkPos); err != nil {
			return fmt.Errorf("dbgen: columns of %s: %w", t.name, err)
		}
		c.aff, c.notNull, c.inPK = affinityOf(c.decl), notNull != 0, pkPos > 0
		if pkPos > 0 {
			pk[pkPos] = len(t.columns)
		}
		t.byName[strings.ToLower(c.name)] = len(t.columns)
		t.columns = append(t.columns, c)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("dbgen: columns of %s: %w", t.name, err)
	}
	if len(t.columns) == 0 {
		return fmt.Errorf("dbgen: table %s: no columns", t.name)
	}
	if len(pk) > 0 {
		key := make([]int, len(pk))
		for pos, col := range pk {
			key[pos-1] = col
		}
		t.keys = append(t.keys, key)
	}
	return nil
}
