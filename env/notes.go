package env

import "strings"

// ColumnNote is what a dataset says of a column beyond its name and type:
// BIRD's database_description files, the human column names of Spider's
// and KaggleDBQA's tables.json, a JSONL dataset's description file.
type ColumnNote struct {
	// Name is a human name, kept only when it says more than the column's
	// own name (Spider's "breed code" for breed_code is dropped, "airline
	// id" for uid kept).
	Name        string
	Description string
	Format      string // BIRD's data_format
	Values      string // what the values mean: BIRD's value_description
}

// Empty reports whether the note says nothing.
func (c ColumnNote) Empty() bool { return c == ColumnNote{} }

// TableNotes are a table's description and its columns' notes.
type TableNotes struct {
	Description string
	Columns     map[string]ColumnNote // by column name folded to lower case
}

// DBNotes are what a dataset says of one database's tables and columns.
type DBNotes struct {
	Tables map[string]*TableNotes // by table name folded to lower case
}

// Table returns the notes of a table (its name in any case), nil when
// there are none.
func (n *DBNotes) Table(name string) *TableNotes {
	if n == nil {
		return nil
	}
	return n.Tables[strings.ToLower(name)]
}

// Column returns the note of table.column (names in any case).
func (n *DBNotes) Column(table, column string) (ColumnNote, bool) {
	t := n.Table(table)
	if t == nil {
		return ColumnNote{}, false
	}
	c, ok := t.Columns[strings.ToLower(column)]
	return c, ok
}

// Empty reports whether the notes say nothing.
func (n *DBNotes) Empty() bool { return n == nil || len(n.Tables) == 0 }
