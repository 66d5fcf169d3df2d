package env

import (
	"fmt"
	"math/rand/v2"
)

// Dataset is a named list of tasks over a set of databases of one dialect.
type Dataset struct {
	Name    string
	Dialect Dialect // the dialect of its SQL, which picks the engine
	Tasks   []Task
	// DBs maps each db_id to where its database is: a file path for
	// SQLite, a connection string for PostgreSQL.
	DBs map[string]string
	// Notes are what the dataset says of each database's tables and
	// columns, by db_id (BIRD's database_description, tables.json's human
	// names, a JSONL dataset's descriptions/<db_id>.json); nil or missing
	// for a database without any.
	Notes map[string]*DBNotes

	byID map[string]int
}

// Index builds the task-id index. Loaders call it once the tasks are in;
// it fails on a duplicate task id or on a task whose database is unknown.
func (d *Dataset) Index() error {
	d.byID = make(map[string]int, len(d.Tasks))
	for i := range d.Tasks {
		t := &d.Tasks[i]
		if _, dup := d.byID[t.ID]; dup {
			return fmt.Errorf("dataset %s: duplicate task id %q", d.Name, t.ID)
		}
		if _, ok := d.DBs[t.DBID]; !ok {
			return fmt.Errorf("dataset %s: task %s: unknown db_id %q", d.Name, t.ID, t.DBID)
		}
		d.byID[t.ID] = i
	}
	return nil
}

// Task returns the task with the given id.
func (d *Dataset) Task(id string) (*Task, bool) {
	i, ok := d.byID[id]
	if !ok {
		return nil, false
	}
	return &d.Tasks[i], true
}

// Draw picks a task by seed, deterministically: the same seed always gives
// the same task of the same dataset.
func (d *Dataset) Draw(seed int64) *Task {
	if len(d.Tasks) == 0 {
		return nil
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	return &d.Tasks[r.IntN(len(d.Tasks))]
}

// DBKey names the database db_id of the dataset among every served
// dataset's: "dataset/db_id". The judge caches gold results under it.
func (d *Dataset) DBKey(dbID string) string { return d.Name + "/" + dbID }

// FindTask returns the task taskID of the dataset named name among
// datasets, or false when none of them holds it.
func FindTask(datasets []*Dataset, name, taskID string) (*Dataset, *Task, bool) {
	for _, d := range datasets {
		if d.Name != name {
			continue
		}
		if t, ok := d.Task(taskID); ok {
			return d, t, true
		}
	}
	return nil, nil, false
}
