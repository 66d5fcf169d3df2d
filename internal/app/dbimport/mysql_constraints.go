package dbimport

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/mysql"
)

// keys adds t's NOT NULL columns and primary key to its copy: one the
// data or MySQL refuses (NULLs, duplicate keys, a LONGTEXT key) is left
// out and noted with MySQL's reason.
func (c *myCopier) keys(t *env.Table, tc *TableCopy) {
	table := c.ident(tc.Name)
	for i, col := range t.Columns {
		if col.NotNull {
			cc := tc.Columns[i]
			c.try("NOT NULL "+tc.Name+"."+cc.Name, "ALTER TABLE "+table+" MODIFY "+mysql.QuoteIdent(cc.Name)+" "+cc.Type+" NOT NULL")
		}
	}
	if len(t.PrimaryKey) > 0 {
		c.try("primary key of "+tc.Name, "ALTER TABLE "+table+" ADD PRIMARY KEY ("+myColumnList(t.PrimaryKey)+")")
	}
}

// foreignKeys adds t's foreign keys to its copy, once every primary key
// is there: one the data or MySQL refuses (dangling references, columns
// of different types, a parent without a key on those columns) is left
// out and noted with the reason.
func (c *myCopier) foreignKeys(t *env.Table, tc *TableCopy) {
	for _, fk := range t.ForeignKeys {
		what := fmt.Sprintf("foreign key %s(%s) -> %s(%s)", tc.Name, myName(strings.Join(fk.Columns, ", ")),
			myName(fk.RefTable), myName(strings.Join(fk.RefColumns, ", ")))
		refs := nonEmpty(fk.RefColumns)
		if len(refs) == 0 {
			c.rep.Notes = append(c.rep.Notes, what+" not created: it names no parent column")
			continue
		}
		c.try(what, "ALTER TABLE "+c.ident(tc.Name)+" ADD FOREIGN KEY ("+myColumnList(fk.Columns)+") REFERENCES "+
			c.ident(myName(fk.RefTable))+" ("+myColumnList(refs)+")")
	}
}

// try runs stmt (one ALTER TABLE, which MySQL applies whole or not at
// all); a failure is noted, not returned.
func (c *myCopier) try(what, stmt string) {
	if _, err := c.admin.ExecContext(c.ctx, stmt); err != nil {
		c.rep.Notes = append(c.rep.Notes, fmt.Sprintf("%s not created: %v", what, err))
	}
}

// myColumnList is names as the import names them (myName), quoted and
// joined with commas.
func myColumnList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = mysql.QuoteIdent(myName(n))
	}
	return strings.Join(q, ", ")
}
