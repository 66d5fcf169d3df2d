package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqlgym/sqlgym/env"
)

// Dataset formats a Source can name.
const (
	FormatSpider = "spider"
	FormatBird   = "bird"
	FormatJSONL  = "jsonl"
)

// Source is one --dataset flag value: [NAME=]FORMAT:PATH.
type Source struct {
	Name   string // dataset name; the prefix of its task ids
	Format string // spider, bird or jsonl
	Path   string // the dataset's folder or file
}

// ParseSource parses [NAME=]FORMAT:PATH. NAME defaults to the base name of
// PATH's folder: PATH itself when it is a folder, the folder holding it when
// it is a file (an existing file, or a path ending in .json or .jsonl).
func ParseSource(s string) (Source, error) {
	spec, path, ok := strings.Cut(s, ":")
	if !ok {
		return Source{}, fmt.Errorf("dataset %q: want [NAME=]FORMAT:PATH", s)
	}
	name, format, named := strings.Cut(spec, "=")
	if !named {
		name, format = "", spec
	}
	src := Source{Name: name, Format: strings.ToLower(strings.TrimSpace(format)), Path: path}
	switch src.Format {
	case FormatSpider, FormatBird, FormatJSONL:
	default:
		return Source{}, fmt.Errorf("dataset %q: unknown format %q (want spider, bird or jsonl)", s, format)
	}
	if path == "" {
		return Source{}, fmt.Errorf("dataset %q: empty path", s)
	}
	if !named {
		src.Name = defaultName(path)
	}
	if err := checkName(src.Name); err != nil {
		return Source{}, fmt.Errorf("dataset %q: %w", s, err)
	}
	return src, nil
}

func defaultName(path string) string {
	dir := path
	if isFilePath(path) {
		dir = filepath.Dir(path)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return filepath.Base(dir)
}

func isFilePath(path string) bool {
	if fi, err := os.Stat(path); err == nil {
		return fi.Mode().IsRegular()
	}
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".json" || ext == ".jsonl"
}

func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("empty dataset name")
	case strings.ContainsAny(name, "/\\ \t\n"):
		return fmt.Errorf("dataset name %q holds a slash or a space", name)
	}
	return nil
}

// Load reads the dataset src names, in its format. The databases are
// SQLite files; each is checked to exist, not opened, and a failed load
// names every one that is missing.
func Load(src Source) (*env.Dataset, error) {
	return strict(load(src))
}

// LoadKeepingMissing reads the dataset src names as Load does, but keeps
// the databases whose file is missing (or is not a file): opening one
// fails, naming the file. It is for callers that open every database and
// report each one that fails, such as serve's startup check and check.
func LoadKeepingMissing(src Source) (*env.Dataset, error) {
	ds, _, err := load(src)
	return ds, err
}

// load reads the dataset, returning the databases whose file is missing
// apart.
func load(src Source) (*env.Dataset, []error, error) {
	if err := checkName(src.Name); err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", src.Path, err)
	}
	switch src.Format {
	case FormatSpider:
		return loadSpider(src.Name, src.Path)
	case FormatBird:
		return loadBird(src.Name, src.Path)
	case FormatJSONL:
		return loadJSONL(src.Name, src.Path)
	}
	return nil, nil, fmt.Errorf("load %s: unknown format %q (want spider, bird or jsonl)", src.Path, src.Format)
}

// strict fails a load that found missing database files, naming each.
func strict(ds *env.Dataset, bad []error, err error) (*env.Dataset, error) {
	switch {
	case err != nil:
		return nil, err
	case len(bad) > 0:
		return nil, errors.Join(bad...)
	}
	return ds, nil
}

// prefixed puts prefix before each error.
func prefixed(prefix string, errs []error) []error {
	for i, err := range errs {
		errs[i] = fmt.Errorf("%s: %w", prefix, err)
	}
	return errs
}

// newSQLiteDataset wraps tasks and databases into an indexed dataset.
func newSQLiteDataset(name string, tasks []env.Task, dbs map[string]string) (*env.Dataset, error) {
	return newDataset(name, env.SQLite, tasks, dbs)
}

// newDataset wraps tasks and databases of a dialect into an indexed
// dataset.
func newDataset(name string, dialect env.Dialect, tasks []env.Task, dbs map[string]string) (*env.Dataset, error) {
	if len(tasks) == 0 {
		return nil, errors.New("empty dataset: no tasks")
	}
	ds := &env.Dataset{Name: name, Dialect: dialect, Tasks: tasks, DBs: dbs}
	if err := ds.Index(); err != nil {
		return nil, err
	}
	return ds, nil
}

// findFile returns path when it is a file, or else the first of names
// present in the folder path.
func findFile(path string, names ...string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return path, nil
	}
	for _, n := range names {
		p := filepath.Join(path, n)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("folder %s holds none of %s", path, strings.Join(names, ", "))
}

// readRecords reads a file holding one JSON array of objects. A syntax
// error is reported with its line and column.
func readRecords(file string) ([]json.RawMessage, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var recs []json.RawMessage
	if err := json.Unmarshal(data, &recs); err != nil {
		return nil, jsonPosError(data, err)
	}
	return recs, nil
}

// jsonPosError adds the line and column to a JSON decoding error that
// carries a byte offset.
func jsonPosError(data []byte, err error) error {
	var off int64
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	default:
		return fmt.Errorf("malformed JSON: %w", err)
	}
	line, col := position(data, off-1)
	return fmt.Errorf("malformed JSON at line %d, column %d (byte %d): %w", line, col, off, err)
}

// position gives the 1-based line and column of the byte at index off. A
// decoder's error offset counts the bytes read, so the culprit is at
// offset-1.
func position(data []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(data))))
	prefix := data[:off]
	line = 1 + strings.Count(string(prefix), "\n")
	col = int(off) - strings.LastIndexByte(string(prefix), '\n')
	return line, col
}

// dbFiles resolves and checks each database once, keeping what is wrong
// with each file, under the first record that used it.
type dbFiles struct {
	paths map[string]string // db_id -> absolute file path
	bad   []error           // "record N: database ...: missing file ..."
}

func newDBFiles() *dbFiles { return &dbFiles{paths: map[string]string{}} }

// add records db_id's file, checking it exists the first time; where
// names the record for an error.
func (f *dbFiles) add(where, dbID, path string) {
	if _, ok := f.paths[dbID]; ok {
		return
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if err := statDB(dbID, path); err != nil {
		f.bad = append(f.bad, fmt.Errorf("%s: %w", where, err))
	}
	f.paths[dbID] = path
}

// badFileError is a database file that is missing or is not a file. A
// load goes on past it, and fails at the end unless it keeps such files.
type badFileError struct{ msg string }

func (e *badFileError) Error() string { return e.msg }

// statDB checks that the database file of dbID is there; what is wrong is
// a *badFileError.
func statDB(dbID, path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return &badFileError{fmt.Sprintf("database %q: missing file, expected at %s", dbID, path)}
	case err != nil:
		return &badFileError{fmt.Sprintf("database %q: %v", dbID, err)}
	case fi.IsDir():
		return &badFileError{fmt.Sprintf("database %q: %s is a folder, want a SQLite file", dbID, path)}
	}
	return nil
}

// checkDBID rejects a db_id that is empty or would step out of its folder.
func checkDBID(dbID string) error {
	if dbID == "" {
		return errors.New("missing db_id")
	}
	if strings.ContainsAny(dbID, "/\\") || dbID == "." || dbID == ".." {
		return fmt.Errorf("db_id %q is not a plain name", dbID)
	}
	return nil
}
