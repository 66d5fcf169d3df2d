package evaluate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/sqlite"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const shopScript = `
CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL);
INSERT INTO item VALUES (1, 'pen', 1.5), (2, 'ink', 3.0), (3, 'pad', 2.0);`

// forever never ends on its own: only a timeout stops it.
const forever = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n`

// slowGold counts to 300,000: some 50ms, well under a second.
const slowGold = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000) SELECT max(i) FROM n`

// testTask is one line of a JSONL dataset.
type testTask struct {
	ID         string `json:"task_id"`
	DBID       string `json:"db_id"`
	Question   string `json:"question"`
	Difficulty string `json:"difficulty,omitempty"`
	GoldSQL    string `json:"gold_sql,omitempty"`
	GoldAnswer any    `json:"gold_answer,omitempty"`
}

// buildDataset writes tasks as a JSONL dataset named "shop" in a temporary
// folder, with the database "shop" built from shopScript and each other
// db_id's file holding garbage, and loads it.
func buildDataset(t *testing.T, tasks ...testTask) *env.Dataset {
	t.Helper()
	dir := t.TempDir()
	var lines []string
	made := map[string]bool{}
	for _, task := range tasks {
		if task.Question == "" {
			task.Question = "question " + task.ID
		}
		b, err := json.Marshal(task)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
		if made[task.DBID] {
			continue
		}
		made[task.DBID] = true
		path := filepath.Join(dir, task.DBID+".sqlite")
		if task.DBID == "shop" {
			err = sqlite.Build(context.Background(), path, shopScript)
		} else {
			err = os.WriteFile(path, []byte(strings.Repeat("not a database ", 100)), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "tasks.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.LoadJSONL("shop", file)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// newCatalog returns a catalog on the SQLite engine, closed at the end of
// the test.
func newCatalog(t *testing.T) *env.Catalog {
	t.Helper()
	c := env.NewCatalog(sqlite.New(sqlite.Config{}))
	t.Cleanup(func() { c.Close() })
	return c
}
