package dbimport

import "slices"

// DBCopy is what copying one database did.
type DBCopy struct {
	DBID   string      `json:"db_id"`
	Schema string      `json:"schema"`
	Tables []TableCopy `json:"tables"`
	// Notes are the constraints that could not be carried over, each with
	// the reason (the data is kept all the same).
	Notes []string `json:"notes,omitempty"`
	// Reserved are the table and column names the target reads as
	// keywords when bare (MySQL only): the golds quote them.
	Reserved []string `json:"reserved_names,omitempty"`
}

// Rows is the number of rows copied, over every table.
func (d *DBCopy) Rows() int64 {
	var n int64
	for _, t := range d.Tables {
		n += t.Rows
	}
	return n
}

// Coercions lists every column whose values changed class on the way.
func (d *DBCopy) Coercions() []Coercion {
	var out []Coercion
	for _, t := range d.Tables {
		for _, c := range t.Columns {
			if c.Coerced > 0 || c.Repaired > 0 {
				out = append(out, Coercion{Table: t.Name, Column: c})
			}
		}
	}
	return out
}

// TableCopy is one copied table: its name in PostgreSQL (lower case) and
// the rows copied, which equal the rows in SQLite (the copy fails
// otherwise).
type TableCopy struct {
	Name    string       `json:"name"`
	Source  string       `json:"source"`
	Rows    int64        `json:"rows"`
	Columns []ColumnCopy `json:"columns"`
}

// ColumnCopy is one column: its SQLite declaration, the storage classes
// of its values, and the PostgreSQL type it got.
type ColumnCopy struct {
	Name     string  `json:"name"`
	Declared string  `json:"declared"`
	Type     string  `json:"type"`
	Classes  Classes `json:"classes"`
	// Coerced counts the values whose storage class changed (How says
	// to what); Repaired counts the text values whose NUL bytes or
	// invalid UTF-8, which PostgreSQL's text cannot hold, were replaced.
	Coerced  int64  `json:"coerced,omitempty"`
	How      string `json:"how,omitempty"`
	Repaired int64  `json:"repaired,omitempty"`
	// Class is the type class (TypeBigint, TypeText, ...) behind Type,
	// where the target spells types otherwise (MySQL); "" when Type is it.
	Class string `json:"class,omitempty"`
}

// Coercion is a column of a table whose values changed on the way.
type Coercion struct {
	Table  string
	Column ColumnCopy
}

// conform gives each column of tc the type class of its namesake in
// like (CopyConfig.Like), where like has the table and the column; with
// like nil, tc is left as it is.
func conform(tc *TableCopy, like *DBCopy) {
	if like == nil {
		return
	}
	i := slices.IndexFunc(like.Tables, func(t TableCopy) bool { return t.Name == tc.Name })
	if i < 0 {
		return
	}
	for j := range tc.Columns {
		col := &tc.Columns[j]
		k := slices.IndexFunc(like.Tables[i].Columns, func(c ColumnCopy) bool { return c.Name == col.Name })
		if k < 0 {
			continue
		}
		col.Type, col.Coerced, col.How = like.Tables[i].Columns[k].TypeClass(), 0, ""
	}
}

// TypeClass is the type class of the column (TypeBigint, TypeText, ...):
// Class where the target spells types otherwise, else Type.
func (c ColumnCopy) TypeClass() string {
	if c.Class != "" {
		return c.Class
	}
	return c.Type
}
