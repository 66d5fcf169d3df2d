package dbimport

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/env"
)

// fill copies t's rows into tc's table, a page of rows at a time, each
// value read through the SQLite cast its column's type asks for.
func (c *copier) fill(t *env.Table, tc *TableCopy) error {
	exprs := make([]string, len(t.Columns))
	names := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		exprs[i] = readExpr(quoteSQLite(col.Name), tc.Columns[i].Type)
		names[i] = tc.Columns[i].Name
	}
	base := "SELECT " + strings.Join(exprs, ", ") + " FROM " + quoteSQLite(t.Name)
	for off := 0; ; off += c.cfg.PageRows {
		q := fmt.Sprintf("%s LIMIT %d OFFSET %d", base, c.cfg.PageRows, off)
		rs, err := c.src.Query(c.ctx, q, env.Limits{Timeout: c.cfg.ReadTimeout, MaxRows: c.cfg.PageRows})
		if err != nil {
			return fmt.Errorf("read rows %d-: %w", off, err)
		}
		if len(rs.Rows) == 0 {
			return nil
		}
		for _, row := range rs.Rows {
			repair(row, tc)
		}
		n, err := c.tx.CopyFrom(c.ctx, pgx.Identifier{c.schema, tc.Name}, names, pgx.CopyFromRows(rs.Rows))
		if err != nil {
			return fmt.Errorf("copy rows %d-: %w", off, err)
		}
		if n != int64(len(rs.Rows)) {
			return fmt.Errorf("copy rows %d-: %d of %d copied", off, n, len(rs.Rows))
		}
		if len(rs.Rows) < c.cfg.PageRows {
			return nil
		}
	}
}

// repair makes each text value of row one PostgreSQL's text can hold:
// invalid UTF-8 becomes U+FFFD and NUL bytes are dropped. Each value
// repaired is counted on its column.
func repair(row []any, tc *TableCopy) {
	for i, v := range row {
		s, ok := v.(string)
		if !ok || (utf8.ValidString(s) && !strings.ContainsRune(s, 0)) {
			continue
		}
		row[i] = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
		tc.Columns[i].Repaired++
	}
}
