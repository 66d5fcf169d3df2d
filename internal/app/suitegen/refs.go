package suitegen

import (
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// refs is what a statement names of its schema: the tables it reads, the
// names bound to them, its column references and its double-quoted
// strings (SQLite reads "x" as a string when no column is named x).
type refs struct {
	tables  []*schemaTable            // every table named, in order of first mention
	names   map[string][]*schemaTable // by lower-case alias or table name: every binding (golds reuse T1 in subqueries)
	binding map[int]bool              // tokens that name a table or bind an alias
	columns []colRef
	strs    []int // tokens that are double-quoted strings
}

// colRef is a column reference: token at, naming col of one of tables.
type colRef struct {
	at     int
	tables []*schemaTable
	col    schemaColumn
}

// readRefs finds the tables, aliases and column references of s.
func readRefs(l *layout, sc *Schema) *refs {
	r := &refs{names: map[string][]*schemaTable{}, binding: map[int]bool{}}
	for i := range l.s {
		if l.tableAt(i) {
			r.bind(l.s, i, sc)
		}
	}
	for i, t := range l.s {
		if (t.kind != sqltext.Word && t.kind != sqltext.Ident) || r.binding[i] {
			continue
		}
		if ref, ok := r.columnAt(l.s, i); ok {
			r.columns = append(r.columns, ref)
		} else if t.kind == sqltext.Ident && t.text[0] == '"' {
			r.strs = append(r.strs, i)
		}
	}
	return r
}

// tableAt reports whether token i stands where a table is named: after
// FROM or JOIN, or after a comma of a FROM clause's list.
func (l *layout) tableAt(i int) bool {
	if i == 0 || (l.s[i].kind != sqltext.Word && l.s[i].kind != sqltext.Ident) {
		return false
	}
	if l.s.is(i-1, "from") || l.s.is(i-1, "join") {
		return true
	}
	if !l.s.punct(i-1, ",") {
		return false
	}
	return slices.ContainsFunc(l.clauses, func(c clause) bool {
		return c.kw == "from" && c.body <= i && i < c.end && l.depth[i] == c.depth
	})
}

// bind records the table named at token i, if the schema has it, and the
// alias that follows it.
func (r *refs) bind(s stmt, i int, sc *Schema) {
	t, ok := sc.table(s[i].text)
	if !ok {
		return
	}
	if !slices.Contains(r.tables, t) {
		r.tables = append(r.tables, t)
	}
	r.binding[i] = true
	r.add(strings.ToLower(unquote(s[i].text)), t)
	j := i + 1
	if s.is(j, "as") {
		j++
	}
	if j < len(s) && (s[j].kind == sqltext.Ident || s[j].kind == sqltext.Word && !isKeyword(s[j].text)) {
		r.binding[j] = true
		r.add(strings.ToLower(unquote(s[j].text)), t)
	}
}

// add binds name to t, once.
func (r *refs) add(name string, t *schemaTable) {
	if !slices.Contains(r.names[name], t) {
		r.names[name] = append(r.names[name], t)
	}
}

// columnAt reads token i as a column reference: qualified (T1.name) by
// the tables bound to its qualifier, bare by every table of the
// statement that has such a column.
func (r *refs) columnAt(s stmt, i int) (colRef, bool) {
	if s.punct(i+1, ".") || s.punct(i+1, "(") || s.is(i-1, "as") || s[i].kind == sqltext.Word && isKeyword(s[i].text) {
		return colRef{}, false
	}
	candidates := r.tables
	if s.punct(i-1, ".") && i >= 2 {
		candidates = r.names[strings.ToLower(unquote(s[i-2].text))]
	}
	ref := colRef{at: i}
	for _, t := range candidates {
		if c, ok := t.column(s[i].text); ok {
			ref.tables = append(ref.tables, t)
			ref.col = c
		}
	}
	return ref, len(ref.tables) > 0
}
