package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/sqlgym/sqlgym/env"
)

// birdRecord is one entry of BIRD's dev.json or mini_dev_sqlite.json.
type birdRecord struct {
	QuestionID json.RawMessage `json:"question_id"`
	DBID       string          `json:"db_id"`
	Question   string          `json:"question"`
	Evidence   string          `json:"evidence"`
	SQL        string          `json:"SQL"`
	Difficulty string          `json:"difficulty"`
}

// LoadBird reads a BIRD split: path is the folder holding dev.json,
// mini_dev_sqlite.json or mini_dev_postgresql.json (or the JSON file
// itself), with the databases at dev_databases/<db>/<db>.sqlite beside
// it. A file named mini_dev_postgresql.json holds golds in PostgreSQL's
// dialect: its dataset is of dialect Postgres, each database is the
// schema named after its db_id (the source is the bare db_id until
// serving binds it to a server), and no file is looked for. Task ids are
// "<name>/<question_id>", or "<name>/<index>" for records without one.
// A failed load names every database file that is missing.
func LoadBird(name, path string) (*env.Dataset, error) {
	return strict(loadBird(name, path))
}

// loadBird is LoadBird, returning the databases whose file is missing
// apart.
func loadBird(name, path string) (*env.Dataset, []error, error) {
	file, err := findFile(path, "dev.json", "mini_dev_sqlite.json", birdPostgresFile)
	if err != nil {
		return nil, nil, fmt.Errorf("bird %s: %w", path, err)
	}
	ds, bad, err := loadBirdFile(name, file)
	if err != nil {
		return nil, nil, fmt.Errorf("bird %s: %w", file, err)
	}
	return ds, prefixed("bird "+file, bad), nil
}

func loadBirdFile(name, file string) (*env.Dataset, []error, error) {
	recs, err := readRecords(file)
	if err != nil {
		return nil, nil, err
	}
	dir := filepath.Dir(file)
	dbs := newDBFiles()
	seen := map[string]int{}
	tasks := make([]env.Task, 0, len(recs))
	for i, raw := range recs {
		t, err := birdTask(name, i, raw)
		if err != nil {
			return nil, nil, fmt.Errorf("record %d: %w", i, err)
		}
		if first, dup := seen[t.ID]; dup {
			return nil, nil, fmt.Errorf("record %d: duplicate task id %q (first at record %d)", i, t.ID, first)
		}
		seen[t.ID] = i
		dbs.add(fmt.Sprintf("record %d", i), t.DBID, filepath.Join(dir, "dev_databases", t.DBID, t.DBID+".sqlite"))
		tasks = append(tasks, t)
	}
	notes, err := birdDatasetNotes(dir, dbs.paths)
	if err != nil {
		return nil, nil, err
	}
	if filepath.Base(file) == birdPostgresFile {
		schemas := map[string]string{}
		for id := range dbs.paths {
			schemas[id] = id
		}
		ds, err := newDataset(name, env.Postgres, tasks, schemas)
		if ds != nil {
			ds.Notes = notes
		}
		return ds, nil, err
	}
	ds, err := newSQLiteDataset(name, tasks, dbs.paths)
	if ds != nil {
		ds.Notes = notes
	}
	return ds, dbs.bad, err
}

// birdDatasetNotes reads the database_description folder of each
// database, at dev_databases/<db>/database_description beside the tasks.
func birdDatasetNotes(dir string, dbs map[string]string) (map[string]*env.DBNotes, error) {
	out := map[string]*env.DBNotes{}
	for id := range dbs {
		n, err := birdNotes(filepath.Join(dir, "dev_databases", id))
		if err != nil {
			return nil, fmt.Errorf("descriptions of %s: %w", id, err)
		}
		if !n.Empty() {
			out[id] = n
		}
	}
	return out, nil
}

// birdPostgresFile is BIRD Mini-Dev's task file with PostgreSQL golds.
const birdPostgresFile = "mini_dev_postgresql.json"

func birdTask(name string, i int, raw json.RawMessage) (env.Task, error) {
	var r birdRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		return env.Task{}, fmt.Errorf("malformed record: %w", err)
	}
	key, err := recordKey(r.QuestionID, i)
	if err != nil {
		return env.Task{}, fmt.Errorf("question_id: %w", err)
	}
	if err := checkDBID(r.DBID); err != nil {
		return env.Task{}, err
	}
	switch {
	case r.Question == "":
		return env.Task{}, errors.New("missing question")
	case r.SQL == "":
		return env.Task{}, errors.New("missing SQL")
	}
	return env.Task{
		ID: name + "/" + key, Dataset: name, DBID: r.DBID, Question: r.Question,
		Evidence: r.Evidence, Difficulty: r.Difficulty, GoldSQL: r.SQL,
	}, nil
}

// recordKey turns an id field (a string or an integer) into a task key,
// or the record's index when the field is absent or null.
func recordKey(raw json.RawMessage, index int) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return strconv.Itoa(index), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if s == "" {
			return "", errors.New("empty string")
		}
		return s, nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return "", fmt.Errorf("want a string or an integer, got %s", raw)
	}
	return strconv.FormatInt(n, 10), nil
}
