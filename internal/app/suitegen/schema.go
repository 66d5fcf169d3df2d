package suitegen

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqltext"
)

// Schema is what the column edits know of a database: its tables, their
// columns and the columns' declared types.
type Schema struct {
	tables map[string]*schemaTable // by lower-case name; read-only once built
}

// schemaTable is one table of a Schema.
type schemaTable struct {
	name  string
	cols  []schemaColumn
	index map[string]int // by lower-case column name
}

// schemaColumn is one column: its name as declared and its declared type
// in lower case, without spaces.
type schemaColumn struct{ name, typ string }

// NewSchema builds a Schema from a database's tables.
func NewSchema(tables []env.Table) *Schema {
	s := &Schema{tables: make(map[string]*schemaTable, len(tables))}
	for _, t := range tables {
		st := &schemaTable{name: t.Name, index: map[string]int{}}
		for _, c := range t.Columns {
			st.index[strings.ToLower(c.Name)] = len(st.cols)
			st.cols = append(st.cols, schemaColumn{name: c.Name, typ: strings.ToLower(strings.Join(strings.Fields(c.Type), ""))})
		}
		s.tables[strings.ToLower(t.Name)] = st
	}
	return s
}

// SchemaOf reads the Schema of db.
func SchemaOf(ctx context.Context, db env.DB) (*Schema, error) {
	tables, err := db.Tables(ctx)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return NewSchema(tables), nil
}

// table returns the table named name (in any case, quoted or not).
func (s *Schema) table(name string) (*schemaTable, bool) {
	t, ok := s.tables[strings.ToLower(unquote(name))]
	return t, ok
}

// column returns the column named name of t.
func (t *schemaTable) column(name string) (schemaColumn, bool) {
	i, ok := t.index[strings.ToLower(unquote(name))]
	if !ok {
		return schemaColumn{}, false
	}
	return t.cols[i], true
}

// sameType returns the other columns of t declared with c's type, in
// declaration order.
func (t *schemaTable) sameType(c schemaColumn) []schemaColumn {
	var out []schemaColumn
	for _, o := range t.cols {
		if o.typ == c.typ && !strings.EqualFold(o.name, c.name) {
			out = append(out, o)
		}
	}
	return out
}

// hasColumn reports whether any of tables has a column named name.
func hasColumn(tables []*schemaTable, name string) bool {
	return slices.ContainsFunc(tables, func(t *schemaTable) bool {
		_, ok := t.column(name)
		return ok
	})
}

// unquote returns an identifier's name without its quotes ("x", `x`,
// [x]); a bare word is returned as it is.
func unquote(name string) string {
	if len(name) < 2 {
		return name
	}
	switch q := name[0]; {
	case (q == '"' || q == '`') && name[len(name)-1] == q:
		return strings.ReplaceAll(name[1:len(name)-1], string(q)+string(q), string(q))
	case q == '[' && name[len(name)-1] == ']':
		return name[1 : len(name)-1]
	}
	return name
}

// ident renders a column's name as a token: bare when it is a plain
// word that is no keyword, double-quoted otherwise.
func ident(name string) tok {
	plain := name != "" && !isKeyword(name) && (name[0] < '0' || name[0] > '9')
	for i := 0; i < len(name) && plain; i++ {
		c := name[i]
		plain = c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	if plain {
		return word(name)
	}
	return tok{kind: sqltext.Ident, text: `"` + strings.ReplaceAll(name, `"`, `""`) + `"`}
}
