package judge

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestJudgeTables: the tables read give the table overlap, and a
// prediction that reads no table while the gold does is flagged, its EX
// outcome unchanged.
func TestJudgeTables(t *testing.T) {
	db := openDB(t, singers+`CREATE TABLE concert(id INTEGER, singer_id INTEGER);`)
	j := New(Config{})
	tests := []struct {
		name, gold, pred string
		outcome          string
		tables           float64
		noTable          bool
		nonEmpty         bool
	}{
		{"a constant answer", "SELECT count(*) FROM singer", "SELECT 4", schemas.OutcomeCorrect, 0, true, true},
		{"count(*) reads its table", "SELECT count(*) FROM singer", "SELECT count(*) FROM singer", schemas.OutcomeCorrect, 1, false, true},
		{"a catalog is no table", "SELECT count(*) FROM singer", "SELECT 4 FROM sqlite_master LIMIT 1", schemas.OutcomeCorrect, 0, true, true},
		{"half the tables", "SELECT s.name FROM singer s JOIN concert c ON c.singer_id = s.id", "SELECT name FROM singer WHERE 0",
			schemas.OutcomeCorrect, 0.5, false, false},
		{"a gold that reads no table", "SELECT 4", "SELECT 2 + 2", schemas.OutcomeCorrect, 1, false, true},
	}
	for _, tt := range tests {
		task := &env.Task{ID: "t/" + tt.name, GoldSQL: tt.gold}
		v, err := j.Judge(context.Background(), db, "test", task, tt.pred, spec(schemas.MatchBird))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		f := v.Final()
		if v.Outcome != tt.outcome || v.TableJaccard != tt.tables || v.NoTableRead != tt.noTable ||
			f.NoTableRead != tt.noTable || f.TableJaccard != tt.tables || f.NonEmpty != tt.nonEmpty {
			t.Errorf("%s: %s, tables %v, no table read %v, nonempty %v; want %s, %v, %v, %v", tt.name,
				v.Outcome, v.TableJaccard, v.NoTableRead, f.NonEmpty, tt.outcome, tt.tables, tt.noTable, tt.nonEmpty)
		}
	}
	// A task given as rows counts as reading a table.
	rows := &env.Task{ID: "qa/1", GoldRows: [][]any{{int64(4)}}}
	if v, err := j.Judge(context.Background(), db, "test", rows, "SELECT 4", spec(schemas.MatchBird)); err != nil || !v.NoTableRead {
		t.Errorf("rows task: no table read %v, %v; want true", v.NoTableRead, err)
	}
}
