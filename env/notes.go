package env

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode"
)

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

// setColumn records a column's note, leaving out an empty one and a human
// name that only respells the column's own.
func (n *DBNotes) setColumn(table, column string, c ColumnNote) {
	c = ColumnNote{Name: clean(c.Name), Description: clean(c.Description), Format: clean(c.Format), Values: clean(c.Values)}
	if sameWords(c.Name, column) {
		c.Name = ""
	}
	if sameWords(c.Description, c.Name) || sameWords(c.Description, column) {
		c.Description = ""
	}
	if c.Empty() {
		return
	}
	t := n.table(table)
	t.Columns[strings.ToLower(strings.TrimSpace(column))] = c
}

func (n *DBNotes) table(name string) *TableNotes {
	if n.Tables == nil {
		n.Tables = map[string]*TableNotes{}
	}
	key := strings.ToLower(strings.TrimSpace(name))
	t := n.Tables[key]
	if t == nil {
		t = &TableNotes{Columns: map[string]ColumnNote{}}
		n.Tables[key] = t
	}
	return t
}

// clean trims a note and drops the byte-order marks and line breaks that
// real description files carry.
func clean(s string) string {
	s = strings.ReplaceAll(s, "\ufeff", "")
	return strings.Join(strings.Fields(s), " ")
}

// sameWords reports whether a and b spell the same letters and digits,
// case and punctuation aside ("breed code" and "breed_code").
func sameWords(a, b string) bool {
	key := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return unicode.ToLower(r)
			}
			return -1
		}, s)
	}
	return key(a) == key(b)
}

// notesFile is the description file of a JSONL dataset's database:
// {"tables": {"<table>": {"description": "...", "columns": {"<column>":
// {"name": "...", "description": "...", "format": "...", "values": "..."}}}}}.
type notesFile struct {
	Tables map[string]struct {
		Description string `json:"description"`
		Columns     map[string]struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Format      string `json:"format"`
			Values      string `json:"values"`
		} `json:"columns"`
	} `json:"tables"`
}

// ParseNotes reads a description file in the JSONL datasets' format
// (docs/descriptions.md). Unknown keys are an error, naming the key.
func ParseNotes(raw []byte) (*DBNotes, error) {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(raw, []byte("\ufeff"))))
	dec.DisallowUnknownFields()
	var f notesFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("descriptions: %w", err)
	}
	n := &DBNotes{}
	for table, t := range f.Tables {
		if d := clean(t.Description); d != "" {
			n.table(table).Description = d
		}
		for col, c := range t.Columns {
			n.setColumn(table, col, ColumnNote{Name: c.Name, Description: c.Description, Format: c.Format, Values: c.Values})
		}
	}
	return n, nil
}

// readNotesFile reads a description file when it exists: nil, nil when
// it does not.
func readNotesFile(path string) (*DBNotes, error) {
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	n, err := ParseNotes(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}
