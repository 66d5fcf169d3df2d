package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

// The catalog queries. Each runs with the schema first on the search
// path, so each catalog relation and type is named with pg_catalog: a
// served table called pg_class, or name, would be the one read otherwise.
// $1 is a table name, or NULL for every table. Tables are listed in
// creation order (their oids), as SQLite lists them.
const (
	// current_schema() is compared as a name: a cast to regnamespace
	// would read it as an identifier and fold "cre_Doc_Template_Mgt" to
	// lower case.
	isTable      = `c.relnamespace = (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = current_schema()) AND c.relkind IN ('r', 'p', 'f')`
	columnsQuery = `SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE ` + isTable + ` AND ($1::pg_catalog.name IS NULL OR c.relname = $1::pg_catalog.name) ORDER BY c.oid, a.attnum`
	keysQuery = `SELECT c.relname, k.oid, k.contype, a.attname, coalesce(r.relname, ''), coalesce(ra.attname, '')
FROM pg_catalog.pg_constraint k JOIN pg_catalog.pg_class c ON c.oid = k.conrelid
CROSS JOIN LATERAL unnest(k.conkey, coalesce(k.confkey, k.conkey)) WITH ORDINALITY AS u(col, ref, ord)
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = u.col
LEFT JOIN pg_catalog.pg_class r ON r.oid = k.confrelid
LEFT JOIN pg_catalog.pg_attribute ra ON ra.attrelid = k.confrelid AND ra.attnum = u.ref
WHERE ` + isTable + ` AND k.contype IN ('p', 'f') AND ($1::pg_catalog.name IS NULL OR c.relname = $1::pg_catalog.name)
ORDER BY c.oid, k.contype DESC, k.oid, u.ord`
	findQuery = `SELECT c.relname FROM pg_catalog.pg_class c WHERE ` + isTable + `
AND lower(c.relname) = lower($1) ORDER BY c.relname = $1 DESC, c.oid LIMIT 1`
	// schemaQuery runs as the login role: $1 is the schema, $2 its role.
	schemaQuery = `SELECT r.oid IS NOT NULL, r.oid IS NOT NULL AND pg_has_role(r.oid, 'MEMBER'),
  r.oid IS NOT NULL AND has_schema_privilege(r.oid, n.oid, 'USAGE')
FROM pg_namespace n LEFT JOIN pg_roles r ON r.rolname = $2 WHERE n.nspname = $1`
)

// check makes sure the schema is there and its role may use it, as the
// login role: the schema's role may be what is missing.
func (d *db) check(ctx context.Context) error {
	role := SchemaRole(d.eng.cfg.Role, d.schema)
	var rs *env.ResultSet
	err := d.callAs(ctx, "", d.eng.cfg.DefaultTimeout, func(c *conn) error {
		var err error
		rs, err = c.run(schemaQuery, []any{d.schema, role}, d.limits(env.Limits{}))
		return err
	})
	fix := "run sqlgym import again, or postgres.EnsureReader, as a superuser"
	switch {
	case err != nil:
		return err
	case len(rs.Rows) == 0:
		return errors.New("no such schema (sqlgym import creates one per db_id)")
	case rs.Rows[0][0] != true:
		return fmt.Errorf("the schema's role %s is missing: %s", role, fix)
	case rs.Rows[0][1] != true:
		return fmt.Errorf("role %s is not a member of the schema's role %s: %s", d.eng.cfg.Role, role, fix)
	case rs.Rows[0][2] != true:
		return fmt.Errorf("the schema's role %s may not use the schema: %s", role, fix)
	}
	return nil
}

// Tables lists every table with its columns, primary key and foreign keys.
func (d *db) Tables(ctx context.Context) ([]env.Table, error) {
	tables, err := d.describe(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("tables: %w", err)
	}
	return tables, nil
}

// Describe returns one table, found by its exact name or else
// case-insensitively, with up to samples rows (cells cut to
// sandbox.SampleCellBytes).
func (d *db) Describe(ctx context.Context, table string, samples int) (*env.Table, error) {
	rs, err := d.introspect(ctx, findQuery, env.Limits{}, table)
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", table, err)
	}
	if len(rs.Rows) == 0 {
		return nil, env.NewQueryError(env.ErrNoSuchTable, "no such table: "+table)
	}
	name := rs.Rows[0][0].(string)
	tables, err := d.describe(ctx, &name)
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", name, err)
	}
	t, err := sandbox.OneTable(name, tables)
	if err != nil {
		return nil, err
	}
	if samples > 0 {
		q := fmt.Sprintf("SELECT * FROM %s LIMIT %d", pgx.Identifier{d.schema, name}.Sanitize(), samples)
		if t.Samples, err = d.introspect(ctx, q, sandbox.SampleLimits(samples)); err != nil {
			return nil, fmt.Errorf("describe %s: samples: %w", name, err)
		}
	}
	return t, nil
}

// describe returns the named table, or every table when name is nil.
func (d *db) describe(ctx context.Context, name *string) ([]env.Table, error) {
	var params []any
	if name != nil {
		params = []any{*name}
	} else {
		params = []any{nil}
	}
	cols, err := d.introspect(ctx, columnsQuery, env.Limits{}, params...)
	if err != nil {
		return nil, err
	}
	keys, err := d.introspect(ctx, keysQuery, env.Limits{}, params...)
	if err != nil {
		return nil, err
	}
	tables := tablesFromColumns(cols.Rows)
	addKeys(tables, keys.Rows)
	return tables, nil
}

// tablesFromColumns builds tables from rows of (table, column, type,
// notnull), grouped by table in column order.
func tablesFromColumns(rows [][]any) []env.Table {
	var tables []env.Table
	for _, r := range rows {
		name := r[0].(string)
		if len(tables) == 0 || tables[len(tables)-1].Name != name {
			tables = append(tables, env.Table{Name: name})
		}
		t := &tables[len(tables)-1]
		t.Columns = append(t.Columns, env.Column{Name: r[1].(string), Type: r[2].(string), NotNull: r[3] == true})
	}
	return tables
}

// addKeys adds rows of (table, constraint, kind, column, parent, parent
// column), grouped by table and constraint in key order, to tables.
func addKeys(tables []env.Table, rows [][]any) {
	byName := map[string]*env.Table{}
	for i := range tables {
		byName[tables[i].Name] = &tables[i]
	}
	var fk *env.ForeignKey
	var last any
	for _, r := range rows {
		t := byName[r[0].(string)]
		if t == nil {
			continue
		}
		col := r[3].(string)
		if r[2] == "p" {
			t.PrimaryKey = append(t.PrimaryKey, col)
			continue
		}
		if r[1] != last || fk == nil {
			t.ForeignKeys = append(t.ForeignKeys, env.ForeignKey{RefTable: r[4].(string)})
			fk = &t.ForeignKeys[len(t.ForeignKeys)-1]
			last = r[1]
		}
		fk.Columns = append(fk.Columns, col)
		fk.RefColumns = append(fk.RefColumns, r[5].(string))
	}
}

// introspect runs one of the engine's own queries, with params ($1, ...;
// nil is NULL, anything else its text), within lim.
func (d *db) introspect(ctx context.Context, q string, lim env.Limits, params ...any) (*env.ResultSet, error) {
	eff := d.limits(lim)
	var rs *env.ResultSet
	err := d.call(ctx, eff.Timeout, func(c *conn) error {
		var err error
		rs, err = c.run(q, params, eff)
		return err
	})
	return rs, err
}
