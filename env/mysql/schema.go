package mysql

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

// The catalog queries: the account sees its own database alone in
// information_schema.
const (
	columnsQuery = `SELECT c.TABLE_NAME, c.COLUMN_NAME, c.COLUMN_TYPE, c.IS_NULLABLE = 'NO'
FROM information_schema.COLUMNS c JOIN information_schema.TABLES t
  ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
WHERE c.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE'
ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION`
	keysQuery = `SELECT TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, COALESCE(REFERENCED_TABLE_NAME, ''),
  COALESCE(REFERENCED_COLUMN_NAME, '')
FROM information_schema.KEY_COLUMN_USAGE
WHERE TABLE_SCHEMA = DATABASE() AND (CONSTRAINT_NAME = 'PRIMARY' OR REFERENCED_TABLE_NAME IS NOT NULL)
ORDER BY TABLE_NAME, CONSTRAINT_NAME = 'PRIMARY' DESC, CONSTRAINT_NAME, ORDINAL_POSITION`
)

// Tables lists every table with its columns, primary key and foreign
// keys, in the order of their names. They are read once: the database
// does not change while it is served.
func (d *db) Tables(ctx context.Context) ([]env.Table, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.tables == nil {
		tables, err := d.describe(ctx)
		if err != nil {
			return nil, fmt.Errorf("tables: %w", err)
		}
		d.tables = tables
	}
	out := make([]env.Table, len(d.tables))
	for i, t := range d.tables {
		out[i] = t
		out[i].Columns = slices.Clone(t.Columns)
		out[i].PrimaryKey = slices.Clone(t.PrimaryKey)
		out[i].ForeignKeys = slices.Clone(t.ForeignKeys)
	}
	return out, nil
}

// Describe returns one table, found by its exact name or else
// case-insensitively, with up to samples rows (cells cut to
// sandbox.SampleCellBytes).
func (d *db) Describe(ctx context.Context, table string, samples int) (*env.Table, error) {
	tables, err := d.Tables(ctx)
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", table, err)
	}
	i := slices.IndexFunc(tables, func(t env.Table) bool { return t.Name == table })
	if i < 0 {
		i = slices.IndexFunc(tables, func(t env.Table) bool { return strings.EqualFold(t.Name, table) })
	}
	if i < 0 {
		return nil, env.NewQueryError(env.ErrNoSuchTable, "no such table: "+table)
	}
	t, err := sandbox.OneTable(tables[i].Name, tables[i:i+1])
	if err != nil {
		return nil, err
	}
	if samples > 0 {
		q := fmt.Sprintf("SELECT * FROM %s LIMIT %d", QuoteIdent(t.Name), samples)
		if t.Samples, err = d.introspect(ctx, q, sandbox.SampleLimits(samples)); err != nil {
			return nil, fmt.Errorf("describe %s: samples: %w", t.Name, err)
		}
	}
	return t, nil
}

// describe reads every table of the database.
func (d *db) describe(ctx context.Context) ([]env.Table, error) {
	cols, err := d.introspect(ctx, columnsQuery, env.Limits{})
	if err != nil {
		return nil, err
	}
	keys, err := d.introspect(ctx, keysQuery, env.Limits{})
	if err != nil {
		return nil, err
	}
	var tables []env.Table
	for _, r := range cols.Rows {
		name := r[0].(string)
		if len(tables) == 0 || tables[len(tables)-1].Name != name {
			tables = append(tables, env.Table{Name: name})
		}
		t := &tables[len(tables)-1]
		t.Columns = append(t.Columns, env.Column{Name: r[1].(string), Type: r[2].(string), NotNull: r[3] == int64(1)})
	}
	addKeys(tables, keys.Rows)
	return tables, nil
}

// addKeys adds rows of (table, constraint, column, parent, parent
// column), grouped by table and constraint in key order, to tables.
func addKeys(tables []env.Table, rows [][]any) {
	byName := map[string]*env.Table{}
	for i := range tables {
		byName[tables[i].Name] = &tables[i]
	}
	var fk *env.ForeignKey
	last := ""
	for _, r := range rows {
		t := byName[r[0].(string)]
		if t == nil {
			continue
		}
		constraint, col := r[1].(string), r[2].(string)
		if constraint == "PRIMARY" {
			t.PrimaryKey = append(t.PrimaryKey, col)
			continue
		}
		if key := t.Name + "\x00" + constraint; key != last || fk == nil {
			t.ForeignKeys = append(t.ForeignKeys, env.ForeignKey{RefTable: r[3].(string)})
			fk = &t.ForeignKeys[len(t.ForeignKeys)-1]
			last = key
		}
		fk.Columns = append(fk.Columns, col)
		fk.RefColumns = append(fk.RefColumns, r[4].(string))
	}
}

// introspect runs one of the engine's own queries within lim.
func (d *db) introspect(ctx context.Context, q string, lim env.Limits) (*env.ResultSet, error) {
	eff := d.limits(lim)
	var rs *env.ResultSet
	err := d.call(ctx, eff.Timeout, func(c *conn) error {
		var err error
		rs, err = c.run(q, eff)
		return err
	})
	return rs, err
}
