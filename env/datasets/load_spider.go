package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/hardness"
)

// spiderRecord is one entry of Spider's dev.json; its other fields
// (query_toks, sql, ...) are not needed and are ignored.
type spiderRecord struct {
	DBID     string `json:"db_id"`
	Question string `json:"question"`
	Query    string `json:"query"`
}

// LoadSpider reads a Spider split: path is the folder holding dev.json (or
// the JSON file itself), with the databases at database/<db>/<db>.sqlite
// beside it. Task ids are "<name>/<index>", the 0-based position in the
// file. Spider gives no difficulty: a task's is the hardness Spider's
// official evaluator gives its gold (env/hardness), or none where that
// evaluator's parser could not read the gold. A failed load names every
// database file that is missing.
func LoadSpider(name, path string) (*env.Dataset, error) {
	return strict(loadSpider(name, path))
}

// loadSpider is LoadSpider, returning the databases whose file is
// missing apart.
func loadSpider(name, path string) (*env.Dataset, []error, error) {
	file, err := findFile(path, "dev.json")
	if err != nil {
		return nil, nil, fmt.Errorf("spider %s: %w", path, err)
	}
	ds, bad, err := loadSpiderFile(name, file)
	if err != nil {
		return nil, nil, fmt.Errorf("spider %s: %w", file, err)
	}
	return ds, prefixed("spider "+file, bad), nil
}

func loadSpiderFile(name, file string) (*env.Dataset, []error, error) {
	recs, err := readRecords(file)
	if err != nil {
		return nil, nil, err
	}
	dir := filepath.Dir(file)
	dbs := newDBFiles()
	tasks := make([]env.Task, 0, len(recs))
	for i, raw := range recs {
		t, err := spiderTask(name, i, raw)
		if err != nil {
			return nil, nil, fmt.Errorf("record %d: %w", i, err)
		}
		dbs.add(fmt.Sprintf("record %d", i), t.DBID, filepath.Join(dir, "database", t.DBID, t.DBID+".sqlite"))
		tasks = append(tasks, t)
	}
	ds, err := newSQLiteDataset(name, tasks, dbs.paths)
	if err != nil {
		return nil, nil, err
	}
	if ds.Notes, err = spiderNotes(filepath.Join(dir, "tables.json")); err != nil {
		return nil, nil, fmt.Errorf("descriptions: %w", err)
	}
	return ds, dbs.bad, nil
}

func spiderTask(name string, i int, raw json.RawMessage) (env.Task, error) {
	var r spiderRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		return env.Task{}, fmt.Errorf("malformed record: %w", err)
	}
	if err := checkDBID(r.DBID); err != nil {
		return env.Task{}, err
	}
	switch {
	case r.Question == "":
		return env.Task{}, errors.New("missing question")
	case r.Query == "":
		return env.Task{}, errors.New("missing query")
	}
	level, _ := hardness.Spider(r.Query) // unreadable: no difficulty, as the evaluator has none to give
	return env.Task{
		ID: name + "/" + strconv.Itoa(i), Dataset: name, DBID: r.DBID,
		Question: r.Question, GoldSQL: r.Query, Difficulty: level,
	}, nil
}
