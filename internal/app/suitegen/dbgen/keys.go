package dbgen

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// readKeys adds t's unique indexes (UNIQUE constraints, column or
// table-level, and CREATE UNIQUE INDEX) to the primary key readColumns
// found. A key on an expression is left to the engine, which refuses the
// rows that break it.
func (t *table) readKeys(ctx context.Context, conn *sql.Conn) error {
	names, err := uniqueIndexes(ctx, conn, t.name)
	if err != nil {
		return err
	}
	for _, name := range names {
		key, err := t.indexColumns(ctx, conn, name)
		if err != nil {
			return err
		}
		if key != nil && !t.hasKey(key) {
			t.keys = append(t.keys, key)
		}
	}
	return nil
}

// uniqueIndexes names the unique indexes of a table.
func uniqueIndexes(ctx context.Context, conn *sql.Conn, tableName string) ([]string, error) {
	rows, err := conn.QueryContext(ctx, `SELECT name FROM pragma_index_list(?) WHERE "unique" ORDER BY seq`, tableName)
	if err != nil {
		return nil, fmt.Errorf("dbgen: indexes of %s: %w", tableName, err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("dbgen: indexes of %s: %w", tableName, err)
		}
		names = append(names, name)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("dbgen: indexes of %s: %w", tableName, err)
	}
	return names, nil
}

// indexColumns returns the columns of index name, nil when it indexes an
// expression.
func (t *table) indexColumns(ctx context.Context, conn *sql.Conn, name string) ([]int, error) {
	rows, err := conn.QueryContext(ctx, `SELECT cid FROM pragma_index_info(?) ORDER BY seqno`, name)
	if err != nil {
		return nil, fmt.Errorf("dbgen: index %s: %w", name, err)
	}
	defer rows.Close()
	var key []int
	expr := false
	for rows.Next() {
		var cid int
		if err := rows.Scan(&cid); err != nil {
			return nil, fmt.Errorf("dbgen: index %s: %w", name, err)
		}
		expr = expr || cid < 0 || cid >= len(t.columns)
		key = append(key, cid)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("dbgen: index %s: %w", name, err)
	}
	if expr || len(key) == 0 {
		return nil, nil
	}
	return key, nil
}

// hasKey reports whether t has a key on the same columns as key.
func (t *table) hasKey(key []int) bool {
	want := slices.Sorted(slices.Values(key))
	for _, k := range t.keys {
		if slices.Equal(slices.Sorted(slices.Values(k)), want) {
			return true
		}
	}
	return false
}

// inKey reports whether column i belongs to any key of t.
func (t *table) inKey(i int) bool {
	for _, k := range t.keys {
		if slices.Contains(k, i) {
			return true
		}
	}
	return false
}

// markChecked marks the columns a CHECK constraint of t names: the words
// inside the parentheses after each CHECK keyword of its CREATE TABLE.
func (t *table) markChecked() {
	toks := significant(t.create)
	for i := 0; i < len(toks); i++ {
		if !isWord(toks[i], "check") || i+1 >= len(toks) || toks[i+1].Text != "(" {
			continue
		}
		depth := 0
		for j := i + 1; j < len(toks); j++ {
			depth += parenStep(toks[j])
			if c, ok := t.column(identText(toks[j])); ok && (toks[j].Kind == sqltext.Word || toks[j].Kind == sqltext.Ident) {
				t.columns[c].checked = true
			}
			if depth == 0 {
				i = j
				break
			}
		}
	}
}

// significant returns sql's tokens other than white space and comments.
func significant(sql string) []sqltext.Token {
	var out []sqltext.Token
	for tok := range sqltext.All(sql) {
		if tok.Kind != sqltext.Space && tok.Kind != sqltext.Comment {
			out = append(out, tok)
		}
	}
	return out
}

// isWord reports whether tok is the keyword or bare word w, any case.
func isWord(tok sqltext.Token, w string) bool {
	return tok.Kind == sqltext.Word && strings.EqualFold(tok.Text, w)
}

// parenStep is +1 for an opening parenthesis, -1 for a closing one.
func parenStep(tok sqltext.Token) int {
	switch tok.Text {
	case "(":
		return 1
	case ")":
		return -1
	}
	return 0
}

// identText is the name a Word or quoted identifier token spells: the
// quotes removed, doubled quotes undone.
func identText(tok sqltext.Token) string {
	s := tok.Text
	if tok.Kind != sqltext.Ident || len(s) < 2 {
		return s
	}
	open, end := s[0], s[len(s)-1]
	if open == '[' {
		return s[1 : len(s)-1]
	}
	if end != open {
		return s[1:]
	}
	return strings.ReplaceAll(s[1:len(s)-1], string(open)+string(open), string(open))
}
