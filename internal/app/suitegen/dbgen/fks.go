package dbgen

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// fkOrigin says where a foreign key comes from.
type fkOrigin uint8

// The origins of a foreign key.
const (
	// fkDeclared is declared by the schema.
	fkDeclared fkOrigin = iota
	// fkInferred is a join of the golds whose parent side is a key.
	fkInferred
	// fkShared is a join of the golds where neither side is a key: the
	// two columns draw from one value pool.
	fkShared
)

// foreignKey ties columns of a child table to columns of a parent. The
// child's values are drawn from the rows generated for the parent.
type foreignKey struct {
	child, parent         int // table indexes
	cols, parentCols      []int
	origin                fkOrigin
	strict                bool // every child value is a parent value: always, for a declared key
	cycle                 bool // in a cycle of keys: drawn from the parent's pool, not its rows
	parentName, unusedWhy string
}

// readForeignKeys reads t's declared foreign keys. A key that names a
// missing table or column, or none of the parent's key when it names no
// columns, is kept aside with why it cannot be used.
func (s *schema) readForeignKeys(ctx context.Context, conn *sql.Conn, t *table) error {
	rows, err := conn.QueryContext(ctx, `SELECT id, "table", "from", coalesce("to", '') FROM pragma_foreign_key_list(?) ORDER BY id, seq`, t.name)
	if err != nil {
		return fmt.Errorf("dbgen: foreign keys of %s: %w", t.name, err)
	}
	defer rows.Close()
	var raw []rawFK
	for rows.Next() {
		var r rawFK
		if err := rows.Scan(&r.id, &r.parent, &r.from, &r.to); err != nil {
			return fmt.Errorf("dbgen: foreign keys of %s: %w", t.name, err)
		}
		raw = append(raw, r)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("dbgen: foreign keys of %s: %w", t.name, err)
	}
	self := s.byName[strings.ToLower(t.name)]
	for _, group := range groupFKs(raw) {
		fk := s.resolveFK(self, group)
		if !slices.ContainsFunc(t.fks, fk.same) {
			t.fks = append(t.fks, fk)
		}
	}
	return nil
}

// rawFK is one row of pragma_foreign_key_list.
type rawFK struct {
	id               int
	parent, from, to string
}

// groupFKs splits the rows of pragma_foreign_key_list by key.
func groupFKs(raw []rawFK) [][]rawFK {
	var out [][]rawFK
	for i, r := range raw {
		if i == 0 || r.id != raw[i-1].id {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], r)
	}
	return out
}

// resolveFK resolves one declared key of table child against the schema.
func (s *schema) resolveFK(child int, rows []rawFK) foreignKey {
	fk := foreignKey{child: child, parent: -1, origin: fkDeclared, strict: true, parentName: rows[0].parent}
	p, ok := s.table(rows[0].parent)
	if !ok {
		fk.unusedWhy = "no table " + rows[0].parent
		return fk
	}
	ct, pt := s.tables[child], s.tables[p]
	for _, r := range rows {
		c, ok := ct.column(r.from)
		if !ok {
			fk.unusedWhy = "no column " + r.from
			return fk
		}
		fk.cols = append(fk.cols, c)
		if r.to == "" {
			continue
		}
		pc, ok := pt.column(r.to)
		if !ok {
			fk.unusedWhy = "no column " + rows[0].parent + "." + r.to
			return fk
		}
		fk.parentCols = append(fk.parentCols, pc)
	}
	if rows[0].to == "" {
		fk.parentCols = primaryKey(pt)
	}
	if len(fk.parentCols) != len(fk.cols) {
		fk.unusedWhy = "its columns do not match the parent's key"
		return fk
	}
	fk.parent = p
	return fk
}

// primaryKey is t's primary key, nil when it declares none: readColumns
// puts it first among the keys, in its declared order.
func primaryKey(t *table) []int {
	if len(t.keys) > 0 && slices.ContainsFunc(t.columns, func(c *column) bool { return c.inPK }) {
		return t.keys[0]
	}
	return nil
}

// same reports whether two keys tie the same columns to the same parent
// columns (dog_kennels declares one twice).
func (fk foreignKey) same(o foreignKey) bool {
	return fk.child == o.child && fk.parent == o.parent && slices.Equal(fk.cols, o.cols) && slices.Equal(fk.parentCols, o.parentCols)
}

// usable reports whether the key can be drawn from.
func (fk foreignKey) usable() bool { return fk.unusedWhy == "" }
