package datasets

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/sqlgym/sqlgym/env"
)

// spiderSchema is one database of Spider's or KaggleDBQA's tables.json:
// the columns' names as the database spells them beside human names, and
// descriptions where the dataset gives them.
type spiderSchema struct {
	DBID               string   `json:"db_id"`
	TableNamesOriginal []string `json:"table_names_original"`
	ColumnNamesOrig    [][2]any `json:"column_names_original"`
	ColumnNames        [][2]any `json:"column_names"`
	ColumnDescriptions []string `json:"column_descriptions"`
}

// spiderNotes reads tables.json at path: the notes of each database by
// db_id. A missing file gives no notes (nil).
func spiderNotes(path string) (map[string]*env.DBNotes, error) {
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var dbs []spiderSchema
	if err := json.Unmarshal(raw, &dbs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]*env.DBNotes{}
	for _, db := range dbs {
		n := &env.DBNotes{}
		for i, c := range db.ColumnNamesOrig {
			table, col, ok := spiderColumn(db.TableNamesOriginal, c)
			if !ok {
				continue
			}
			var note env.ColumnNote
			if i < len(db.ColumnNames) {
				note.Name, _ = db.ColumnNames[i][1].(string)
			}
			if i < len(db.ColumnDescriptions) {
				note.Description = db.ColumnDescriptions[i]
			}
			setColumn(n, table, col, note)
		}
		if !n.Empty() {
			out[db.DBID] = n
		}
	}
	return out, nil
}

// spiderColumn reads a [table index, column name] pair; the "*" entry
// (index -1) and malformed pairs are skipped.
func spiderColumn(tables []string, pair [2]any) (table, column string, ok bool) {
	idx, isNum := pair[0].(float64)
	column, isStr := pair[1].(string)
	if !isNum || !isStr || idx < 0 || int(idx) >= len(tables) {
		return "", "", false
	}
	return tables[int(idx)], column, true
}
