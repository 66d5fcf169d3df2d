package dbimport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sqlgym/sqlgym/base/atomicfile"
	"github.com/sqlgym/sqlgym/env"
)

// Files an import writes to its output folder.
const (
	TasksFile      = "tasks.jsonl"
	ReportFile     = "report.json"
	ReportTextFile = "report.txt"
)

// record is one line of the imported dataset's tasks.jsonl, in the JSONL
// format datasets.LoadJSONL reads.
type record struct {
	TaskID        string          `json:"task_id"`
	DBID          string          `json:"db_id"`
	Question      string          `json:"question"`
	Evidence      string          `json:"evidence,omitempty"`
	Difficulty    string          `json:"difficulty,omitempty"`
	GoldSQL       string          `json:"gold_sql,omitempty"`
	GoldAnswer    json.RawMessage `json:"gold_answer"`
	GoldSegments  json.RawMessage `json:"gold_segments,omitempty"`
	SQLiteGoldSQL string          `json:"sqlite_gold_sql"`
	Dialect       string          `json:"dialect"`
}

// WriteDataset writes dir/tasks.jsonl (every usable task, in the
// dataset's order, in imp.Dialect: postgres by default) and the report, dir/report.json and
// dir/report.txt. Each file is written whole to a temporary file, synced
// and renamed into place. A task whose answer rows have no JSON form
// becomes Unusable in the report.
func WriteDataset(dir string, ds *env.Dataset, imp *Imported) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write dataset: %w", err)
	}
	err := writeFile(filepath.Join(dir, TasksFile), func(w *bufio.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for i := range ds.Tasks {
			rec, ok := taskRecord(&ds.Tasks[i], imp.Golds[i], imp.Report, i, imp.Dialect)
			if !ok {
				continue
			}
			if err := enc.Encode(rec); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("write dataset: %w", err)
	}
	if err := writeFile(filepath.Join(dir, ReportFile), func(w *bufio.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(imp.Report)
	}); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return writeFile(filepath.Join(dir, ReportTextFile), func(w *bufio.Writer) error {
		imp.Report.WriteText(w)
		return nil
	})
}

// taskRecord is task i's line, or false when it has none.
func taskRecord(t *env.Task, g *Gold, rep *Report, i int, dialect env.Dialect) (*record, bool) {
	if dialect == "" {
		dialect = env.Postgres
	}
	if g.Category == Unusable {
		return nil, false
	}
	answer, err := answerJSON(g.Answer)
	if err != nil {
		rep.unusable(i, "the SQLite gold's rows have no JSON form: "+err.Error())
		return nil, false
	}
	segs, err := segmentsJSON(g.Segments)
	if err != nil {
		rep.unusable(i, "the SQLite gold's tied rows have no JSON form: "+err.Error())
		return nil, false
	}
	return &record{
		TaskID: taskKey(t), DBID: t.DBID, Question: t.Question, Evidence: t.Evidence,
		Difficulty: t.Difficulty, GoldSQL: g.SQL, GoldAnswer: answer, GoldSegments: segs, SQLiteGoldSQL: t.GoldSQL,
		Dialect: string(dialect),
	}, true
}

// unusable moves task i of the report to Unusable, with the reason.
func (r *Report) unusable(i int, reason string) {
	t := &r.Tasks[i]
	r.Counts[t.Category]--
	r.Counts[Unusable]++
	t.Category, t.Reason = Unusable, reason
}

// writeFile writes path through fill, whole or not at all. The file is
// 0644, as shared data is (a temporary file is 0600, which would keep the
// dataset from the user a server runs as).
func writeFile(path string, fill func(*bufio.Writer) error) error {
	return atomicfile.Write(path, atomicfile.Options{Perm: 0o644}, fill)
}
