package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

// isUserTable holds for the rows of sqlite_master (as m) that are tables
// of the schema, not SQLite's own (sqlite_sequence, sqlite_stat1, ...).
const isUserTable = `m.type = 'table' AND lower(substr(m.name, 1, 7)) <> 'sqlite_'`

// The introspection queries; %s is an extra condition on m.name.
const (
	tablesQuery  = `SELECT m.name FROM sqlite_master AS m WHERE ` + isUserTable + `%s ORDER BY m.rowid`
	columnsQuery = `SELECT m.name, p.name, p.type, p."notnull", p.pk FROM sqlite_master AS m ` +
		`JOIN pragma_table_info(m.name) AS p WHERE ` + isUserTable + `%s ORDER BY m.rowid, p.cid`
	foreignKeysQuery = `SELECT m.name, f.id, f."table", f."from", f."to" FROM sqlite_master AS m ` +
		`JOIN pragma_foreign_key_list(m.name) AS f WHERE ` + isUserTable + `%s ORDER BY m.rowid, f.id, f.seq`
	primaryKeyQuery = `SELECT name FROM pragma_table_info(%s) WHERE pk > 0 ORDER BY pk`
)

// Tables lists every table with its columns, primary key and foreign keys.
func (d *db) Tables(ctx context.Context) ([]env.Table, error) {
	tables, err := d.describe(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("tables: %w", err)
	}
	return tables, nil
}

// Describe returns one table, found case-insensitively, with up to samples
// rows (cells cut to sandbox.SampleCellBytes).
func (d *db) Describe(ctx context.Context, table string, samples int) (*env.Table, error) {
	rs, err := d.introspect(ctx, fmt.Sprintf(tablesQuery, " AND m.name = "+quoteString(table)+" COLLATE NOCASE"), env.Limits{})
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", table, err)
	}
	if len(rs.Rows) == 0 {
		return nil, env.NewQueryError(env.ErrNoSuchTable, "no such table: "+table)
	}
	name := str(rs.Rows[0][0])
	tables, err := d.describe(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", name, err)
	}
	t, err := sandbox.OneTable(name, tables)
	if err != nil {
		return nil, err
	}
	if samples > 0 {
		q := fmt.Sprintf("SELECT * FROM %s LIMIT %d", quoteIdent(name), samples)
		if t.Samples, err = d.introspect(ctx, q, sandbox.SampleLimits(samples)); err != nil {
			return nil, fmt.Errorf("describe %s: samples: %w", name, err)
		}
	}
	return t, nil
}

// describe returns the named table, or every table when name is "".
func (d *db) describe(ctx context.Context, name string) ([]env.Table, error) {
	cond := ""
	if name != "" {
		cond = " AND m.name = " + quoteString(name)
	}
	cols, err := d.introspect(ctx, fmt.Sprintf(columnsQuery, cond), env.Limits{})
	if err != nil {
		return nil, err
	}
	fks, err := d.introspect(ctx, fmt.Sprintf(foreignKeysQuery, cond), env.Limits{})
	if err != nil {
		return nil, err
	}
	tables := tablesFromColumns(cols.Rows)
	addForeignKeys(tables, fks.Rows)
	if err := d.resolveRefColumns(ctx, tables); err != nil {
		return nil, err
	}
	return tables, nil
}

// tablesFromColumns builds tables from rows of (table, column, type,
// notnull, pk), grouped by table in column order.
func tablesFromColumns(rows [][]any) []env.Table {
	var tables []env.Table
	var keyPos [][]int64 // per table, the pk position of each key column
	for _, r := range rows {
		name := str(r[0])
		if len(tables) == 0 || tables[len(tables)-1].Name != name {
			tables = append(tables, env.Table{Name: name})
			keyPos = append(keyPos, nil)
		}
		t := &tables[len(tables)-1]
		col := env.Column{Name: str(r[1]), Type: str(r[2]), NotNull: r[3] == int64(1)}
		t.Columns = append(t.Columns, col)
		if pk, _ := r[4].(int64); pk > 0 {
			t.PrimaryKey = append(t.PrimaryKey, col.Name)
			keyPos[len(keyPos)-1] = append(keyPos[len(keyPos)-1], pk)
		}
	}
	for i := range tables {
		sortByPos(tables[i].PrimaryKey, keyPos[i])
	}
	return tables
}

// sortByPos sorts names by their positions in pos (insertion sort: keys
// are short).
func sortByPos(names []string, pos []int64) {
	for a := 1; a < len(names); a++ {
		for b := a; b > 0 && pos[b] < pos[b-1]; b-- {
			names[b], names[b-1] = names[b-1], names[b]
			pos[b], pos[b-1] = pos[b-1], pos[b]
		}
	}
}

// addForeignKeys adds rows of (table, id, parent, from, to), grouped by
// table and constraint id in column order, to tables.
func addForeignKeys(tables []env.Table, rows [][]any) {
	byName := map[string]*env.Table{}
	for i := range tables {
		byName[tables[i].Name] = &tables[i]
	}
	var fk *env.ForeignKey
	lastTable, lastID := "", int64(-1)
	for _, r := range rows {
		t := byName[str(r[0])]
		id, _ := r[1].(int64)
		if t == nil {
			continue
		}
		if t.Name != lastTable || id != lastID {
			t.ForeignKeys = append(t.ForeignKeys, env.ForeignKey{RefTable: str(r[2])})
			fk = &t.ForeignKeys[len(t.ForeignKeys)-1]
			lastTable, lastID = t.Name, id
		}
		fk.Columns = append(fk.Columns, str(r[3]))
		fk.RefColumns = append(fk.RefColumns, str(r[4]))
	}
}

// resolveRefColumns fills the parent columns of foreign keys that name
// none with the parent's primary key, as SQLite reads such a constraint.
func (d *db) resolveRefColumns(ctx context.Context, tables []env.Table) error {
	for i := range tables {
		for j := range tables[i].ForeignKeys {
			fk := &tables[i].ForeignKeys[j]
			if fk.RefColumns[0] != "" {
				continue
			}
			rs, err := d.introspect(ctx, fmt.Sprintf(primaryKeyQuery, quoteString(fk.RefTable)), env.Limits{})
			if err != nil {
				return err
			}
			for k := 0; k < len(rs.Rows) && k < len(fk.RefColumns); k++ {
				fk.RefColumns[k] = str(rs.Rows[k][0])
			}
		}
	}
	return nil
}

// introspect runs one of the engine's own queries within lim, under a
// fresh read-only guard that records nothing (never the model's).
func (d *db) introspect(ctx context.Context, q string, lim env.Limits) (*env.ResultSet, error) {
	eff := d.limits(lim)
	var rs *env.ResultSet
	g := newGuard(false)
	err := d.withConn(ctx, eff.Timeout, g, func(stmtCtx context.Context, c *conn) error {
		var err error
		rs, err = run(stmtCtx, c, g, q, eff)
		return err
	})
	return rs, err
}

// str returns v as text: a string as is, NULL as "".
func str(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	return fmt.Sprint(v)
}

// quoteString quotes s as an SQL string literal.
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
