package dbimport

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/env"
)

// keys adds t's NOT NULL columns and primary key to its copy, each in a
// savepoint: one the data breaks (NULLs, duplicate keys) is left out and
// noted with PostgreSQL's reason.
func (c *copier) keys(t *env.Table, tc *TableCopy) error {
	table := c.ident(tc.Name)
	for i, col := range t.Columns {
		if col.NotNull {
			c.try("NOT NULL "+tc.Name+"."+tc.Columns[i].Name,
				"ALTER TABLE "+table+" ALTER COLUMN "+quotePG(tc.Columns[i].Name)+" SET NOT NULL")
		}
	}
	if len(t.PrimaryKey) > 0 {
		c.try("primary key of "+tc.Name, "ALTER TABLE "+table+" ADD PRIMARY KEY ("+columnList(t.PrimaryKey)+")")
	}
	return c.ctx.Err()
}

// foreignKeys adds t's foreign keys to its copy, once every primary key
// is there, each in a savepoint: one the data breaks (dangling
// references, a reference between columns of different types, a parent
// column that is not unique) is left out and noted with the reason.
func (c *copier) foreignKeys(t *env.Table, tc *TableCopy) error {
	table := c.ident(tc.Name)
	for _, fk := range t.ForeignKeys {
		what := fmt.Sprintf("foreign key %s(%s) -> %s(%s)", tc.Name, pgName(strings.Join(fk.Columns, ", ")),
			pgName(fk.RefTable), pgName(strings.Join(fk.RefColumns, ", ")))
		stmt := "ALTER TABLE " + table + " ADD FOREIGN KEY (" + columnList(fk.Columns) + ") REFERENCES " +
			c.ident(pgName(fk.RefTable))
		if refs := nonEmpty(fk.RefColumns); len(refs) > 0 {
			stmt += " (" + columnList(refs) + ")"
		}
		c.try(what, stmt)
	}
	return c.ctx.Err()
}

// try runs stmt in a savepoint; a failure is noted, not returned.
func (c *copier) try(what, stmt string) {
	sp, err := c.tx.Begin(c.ctx)
	if err == nil {
		if _, err = sp.Exec(c.ctx, stmt); err == nil {
			err = sp.Commit(c.ctx)
		} else {
			sp.Rollback(c.ctx)
		}
	}
	if err != nil {
		c.rep.Notes = append(c.rep.Notes, fmt.Sprintf("%s not created: %v", what, err))
	}
}

// columnList is names as the import names them (pgName), quoted and
// joined with commas.
func columnList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quotePG(pgName(n))
	}
	return strings.Join(q, ", ")
}

// quotePG quotes an identifier for PostgreSQL.
func quotePG(name string) string { return pgx.Identifier{name}.Sanitize() }

// nonEmpty drops the empty names (a foreign key that names no parent
// column refers to the parent's primary key).
func nonEmpty(names []string) []string {
	var out []string
	for _, n := range names {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}
