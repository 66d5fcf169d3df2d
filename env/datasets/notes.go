package datasets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode"

	"github.com/sqlgym/sqlgym/env"
)

// setColumn records a column's note, leaving out an empty one and a human
// name that only respells the column's own.
func setColumn(n *env.DBNotes, table, column string, c env.ColumnNote) {
	c = env.ColumnNote{Name: clean(c.Name), Description: clean(c.Description), Format: clean(c.Format), Values: clean(c.Values)}
	if sameWords(c.Name, column) {
		c.Name = ""
	}
	if sameWords(c.Description, c.Name) || sameWords(c.Description, column) {
		c.Description = ""
	}
	if c.Empty() {
		return
	}
	t := noteTable(n, table)
	t.Columns[strings.ToLower(strings.TrimSpace(column))] = c
}

// noteTable returns the notes of a table, made when there are none yet.
func noteTable(n *env.DBNotes, name string) *env.TableNotes {
	if n.Tables == nil {
		n.Tables = map[string]*env.TableNotes{}
	}
	key := strings.ToLower(strings.TrimSpace(name))
	t := n.Tables[key]
	if t == nil {
		t = &env.TableNotes{Columns: map[string]env.ColumnNote{}}
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
func ParseNotes(raw []byte) (*env.DBNotes, error) {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(raw, []byte("\ufeff"))))
	dec.DisallowUnknownFields()
	var f notesFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("descriptions: %w", err)
	}
	n := &env.DBNotes{}
	for table, t := range f.Tables {
		if d := clean(t.Description); d != "" {
			noteTable(n, table).Description = d
		}
		for col, c := range t.Columns {
			setColumn(n, table, col, env.ColumnNote{Name: c.Name, Description: c.Description, Format: c.Format, Values: c.Values})
		}
	}
	return n, nil
}

// readNotesFile reads a description file when it exists: nil, nil when
// it does not.
func readNotesFile(path string) (*env.DBNotes, error) {
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
