package dbimport

import (
	"context"
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
	return readPages(c.ctx, c.src, base, c.cfg, func(off int, rows [][]any) error {
		for _, row := range rows {
			repair(row, tc)
		}
		n, err := c.tx.CopyFrom(c.ctx, pgx.Identifier{c.schema, tc.Name}, names, pgx.CopyFromRows(rows))
		if err != nil {
			return fmt.Errorf("copy rows %d-: %w", off, err)
		}
		if n != int64(len(rows)) {
			return fmt.Errorf("copy rows %d-: %d of %d copied", off, n, len(rows))
		}
		return nil
	})
}

// readPages runs base (a SELECT of SQLite) a page of cfg.PageRows rows
// at a time and hands each non-empty page to put, with its first row's
// offset.
func readPages(ctx context.Context, src env.DB, base string, cfg CopyConfig, put func(off int, rows [][]any) error) error {
	for off := 0; ; off += cfg.PageRows {
		q := fmt.Sprintf("%s LIMIT %d OFFSET %d", base, cfg.PageRows, off)
		rs, err := src.Query(ctx, q, env.Limits{Timeout: cfg.ReadTimeout, MaxRows: cfg.PageRows})
		if err != nil {
			return fmt.Errorf("read rows %d-: %w", off, err)
		}
		if len(rs.Rows) > 0 {
			if err := put(off, rs.Rows); err != nil {
				return err
			}
		}
		if len(rs.Rows) < cfg.PageRows {
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
