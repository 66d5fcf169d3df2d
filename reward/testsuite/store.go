package testsuite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward/judge"
)

// Store serves the current suites of the datasets it was opened for. It
// is safe for concurrent use.
type Store struct {
	catalog *env.Catalog
	sets    map[string]*suiteSet // by dataset name; read-only after Open
	status  []Status             // read-only after Open
}

var _ judge.Suites = (*Store)(nil)

// suiteSet is one dataset's current suites.
type suiteSet struct {
	synth *env.Dataset                   // the suite databases, as the catalog opens them
	golds map[string]map[string][]string // by db_id, then gold SQL: the suite's database names
}

// Status is what Open found of one dataset's suites.
type Status struct {
	Dataset string   `json:"dataset"`
	Current []string `json:"current"` // databases with a current suite, by db_id
	Stale   []Stale  `json:"stale"`   // databases whose suites no longer serve
	Missing []string `json:"missing"` // databases with golds and no manifest
	Tasks   int      `json:"tasks"`   // tasks with a gold query
	Covered int      `json:"covered"` // tasks with a suite of one database or more
}

// Stale is a database whose suites no longer serve, and why.
type Stale struct {
	DBID string `json:"db_id"`
	Why  string `json:"why"`
}

// Open reads the suites of each dataset under root, checks their identity
// against the dataset (its source database files and golds, and the
// generator version) and keeps the current ones. Suite databases open
// through catalog, on first use. A manifest that cannot be read, or a
// file it lists that is missing, is an error naming the file; a database
// without a manifest is reported missing, one whose identity changed is
// reported stale, and neither is served.
func Open(ctx context.Context, root string, datasets []*env.Dataset, catalog *env.Catalog) (*Store, error) {
	s := &Store{catalog: catalog, sets: map[string]*suiteSet{}}
	for _, ds := range datasets {
		set, st, err := openDataset(ctx, root, ds)
		if err != nil {
			return nil, err
		}
		s.sets[ds.Name] = set
		s.status = append(s.status, st)
	}
	return s, nil
}

// Status returns what Open found, dataset by dataset.
func (s *Store) Status() []Status { return slices.Clone(s.status) }

// openDataset reads the suites of one dataset.
func openDataset(ctx context.Context, root string, ds *env.Dataset) (*suiteSet, Status, error) {
	set := &suiteSet{
		synth: &env.Dataset{Name: SuiteDataset(ds.Name), Dialect: ds.Dialect, DBs: map[string]string{}},
		golds: map[string]map[string][]string{},
	}
	st := Status{Dataset: ds.Name}
	goldsByDB := Golds(ds)
	for _, dbID := range slices.Sorted(maps.Keys(goldsByDB)) {
		if err := ctx.Err(); err != nil {
			return nil, st, fmt.Errorf("testsuite: open: %w", err)
		}
		m, why, err := readCurrent(root, ds, dbID, goldsByDB[dbID])
		switch {
		case errors.Is(err, fs.ErrNotExist):
			st.Missing = append(st.Missing, dbID)
		case err != nil:
			return nil, st, err
		case why != "":
			st.Stale = append(st.Stale, Stale{DBID: dbID, Why: why})
		default:
			if err := set.add(Dir(root, ds.Name, dbID), m, ds.DBs[dbID]); err != nil {
				return nil, st, err
			}
			st.Current = append(st.Current, dbID)
		}
	}
	st.Tasks, st.Covered = set.coverage(ds)
	return set, st, nil
}

// Current reads the manifest of the database db_id of ds under root and
// says why its suites no longer serve ds, or "" when they do (Open's
// check). A missing manifest is an error satisfying fs.ErrNotExist.
func Current(root string, ds *env.Dataset, dbID string) (*Manifest, string, error) {
	return readCurrent(root, ds, dbID, Golds(ds)[dbID])
}

// readCurrent reads the manifest of db_id and says why it is stale, if it
// is. A missing manifest is an error satisfying fs.ErrNotExist.
func readCurrent(root string, ds *env.Dataset, dbID string, golds []string) (*Manifest, string, error) {
	m, err := ReadManifest(ManifestPath(root, ds.Name, dbID))
	if err != nil {
		return nil, "", err
	}
	if m.Dialect != ds.Dialect {
		return m, fmt.Sprintf("built for %s, the dataset is %s", m.Dialect, ds.Dialect), nil
	}
	cur := Identity{Generator: GeneratorVersion, Golds: HashGolds(golds)}
	cur.Source = m.Identity.Source
	if ds.Dialect == env.SQLite {
		if cur.Source, err = SourceOf(ds.DBs[dbID], m.Identity.Source); err != nil {
			return nil, "", fmt.Errorf("testsuite: %s/%s: %w", ds.Name, dbID, err)
		}
	}
	return m, m.Identity.Stale(cur), nil
}

// add makes the suites of m, read from dir, servable: each database gets
// its name in the synthetic dataset. A file that is not there is an error
// naming it. A database carried onto a server (Database.Source) is the
// schema or database of that name on the server of base, the source of
// the database the suite was built for.
func (set *suiteSet) add(dir string, m *Manifest, base string) error {
	for _, d := range m.Databases {
		source, err := onServer(base, d.Source)
		if err != nil {
			return fmt.Errorf("testsuite: suite database %s of %s: %w", d.Name, filepath.Join(dir, ManifestName), err)
		}
		if d.File != "" {
			source = filepath.Join(dir, d.File)
			if _, err := os.Stat(source); err != nil {
				return fmt.Errorf("testsuite: suite database %s of %s: %w", source, filepath.Join(dir, ManifestName), err)
			}
		}
		set.synth.DBs[m.DBID+"/"+d.Name] = source
	}
	golds := make(map[string][]string, len(m.Golds))
	for _, g := range m.Golds {
		golds[g.SQL] = g.Suite
	}
	set.golds[m.DBID] = golds
	return nil
}

// coverage counts the tasks of ds with a gold query and those with a
// suite of one database or more.
func (set *suiteSet) coverage(ds *env.Dataset) (tasks, covered int) {
	for i := range ds.Tasks {
		t := &ds.Tasks[i]
		if t.GoldSQL == "" {
			continue
		}
		tasks++
		if len(set.golds[t.DBID][t.GoldSQL]) > 0 {
			covered++
		}
	}
	return tasks, covered
}

// Suite returns the databases of task's suite, opened through the
// catalog, in judging order; none when the task has no current suite.
func (s *Store) Suite(ctx context.Context, task *env.Task) ([]judge.SuiteDB, error) {
	set, ok := s.sets[task.Dataset]
	if !ok || task.GoldSQL == "" {
		return nil, nil
	}
	names := set.golds[task.DBID][task.GoldSQL]
	if len(names) == 0 {
		return nil, nil
	}
	out := make([]judge.SuiteDB, 0, len(names))
	for _, n := range names {
		id := task.DBID + "/" + n
		db, err := s.catalog.DB(ctx, set.synth, id)
		if err != nil {
			return nil, fmt.Errorf("testsuite: suite of %s: %w", task.ID, err)
		}
		out = append(out, judge.SuiteDB{Name: id, Key: set.synth.DBKey(id), DB: db})
	}
	return out, nil
}

// onServer is where a carried suite database named name is: base, a
// server source "URL#NAME" (postgres.Source, mysql.Source), with name in
// place of its own. A source holding "://" is taken as it is.
func onServer(base, name string) (string, error) {
	if name == "" || strings.Contains(name, "://") {
		return name, nil
	}
	i := strings.LastIndex(base, "#")
	if !strings.Contains(base, "://") || i < 0 {
		return "", fmt.Errorf("it names %q on a server, and the dataset's database is not on one (%q): serve the dataset with --engine", name, base)
	}
	return base[:i+1] + name, nil
}
