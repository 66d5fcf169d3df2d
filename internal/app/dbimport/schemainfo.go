package dbimport

import "strings"

// Schema is what the rewriter knows of an imported database: each table's
// columns and their PostgreSQL types, all names in lower case.
type Schema struct {
	Tables map[string]map[string]string // table -> column -> type
	// Reserved are the names (lower case) of tables and columns the
	// target reads as keywords when bare (MySQL's DBCopy.Reserved).
	Reserved map[string]bool
}

// SchemaOf is the schema of a copied database.
func SchemaOf(d *DBCopy) *Schema {
	s := &Schema{Tables: map[string]map[string]string{}, Reserved: map[string]bool{}}
	for _, w := range d.Reserved {
		s.Reserved[w] = true
	}
	for _, t := range d.Tables {
		cols := map[string]string{}
		for _, c := range t.Columns {
			cols[c.Name] = c.Type
			if c.Class != "" {
				cols[c.Name] = c.Class
			}
		}
		s.Tables[t.Name] = cols
	}
	return s
}

// names reports whether name (any case) is a table or a column.
func (s *Schema) names(name string) bool {
	name = strings.ToLower(name)
	if _, ok := s.Tables[name]; ok {
		return true
	}
	for _, cols := range s.Tables {
		if _, ok := cols[name]; ok {
			return true
		}
	}
	return false
}

// columnType is the type of column col of one of tables, "" when no
// table has it or two give it different types.
func (s *Schema) columnType(tables []string, col string) string {
	typ := ""
	for _, t := range tables {
		ct, ok := s.Tables[t][col]
		switch {
		case !ok:
		case typ == "":
			typ = ct
		case typ != ct:
			return ""
		}
	}
	return typ
}

// isNumeric reports whether a column type holds numbers.
func isNumeric(typ string) bool {
	return typ == TypeBigint || typ == TypeDouble || typ == TypeNumber
}
