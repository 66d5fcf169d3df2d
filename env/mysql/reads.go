package mysql

import (
	"context"
	"slices"
	"strings"
)

// reads returns the tables and the "table.column" pairs stmt reads, in
// lower case, sorted, without repeats. MySQL's plans (EXPLAIN FORMAT=JSON)
// name a table by its alias and list the columns read only in MySQL 8,
// so they are read from the text instead, against the database's own
// names: a table is read when the statement names it; a column when the
// statement names it and one of those tables has it (each such table's,
// as a bare name does not say which); and every column of those tables
// for a * that selects every column (after SELECT, DISTINCT, a comma or
// a qualifier's dot; not count(*)'s, not a product's). A name that is also an alias or a
// function's counts as the table's or column's: the reward compares
// statements read alike on both sides.
func (d *db) reads(ctx context.Context, stmt string) (tables, columns []string) {
	all, err := d.Tables(ctx)
	if err != nil {
		return []string{}, []string{}
	}
	toks := significant(lex(stmt))
	named := map[string]bool{}
	for _, t := range toks {
		if n := t.name(); n != "" {
			named[n] = true
		}
	}
	star := false
	for i, t := range toks {
		star = star || t.kind == punct && t.text == "*" && i > 0 && selectsAll(toks[i-1])
	}
	tables, columns = []string{}, []string{}
	for _, t := range all {
		tn := strings.ToLower(t.Name)
		if !named[tn] {
			continue
		}
		tables = append(tables, tn)
		for _, c := range t.Columns {
			if cn := strings.ToLower(c.Name); star || named[cn] {
				columns = append(columns, tn+"."+cn)
			}
		}
	}
	slices.Sort(tables)
	slices.Sort(columns)
	return slices.Compact(tables), slices.Compact(columns)
}

// selectsAll reports whether a * after prev selects every column.
func selectsAll(prev token) bool {
	switch prev.name() {
	case "select", "distinct", "all":
		return prev.kind == word
	}
	return prev.text == "," || prev.text == "."
}
