package datasets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/env"
)

// jsonlRecord is one line of a JSONL dataset. Fields outside it are an
// error, so a misspelt "gold_sq1" is caught rather than dropped.
type jsonlRecord struct {
	TaskID     json.RawMessage `json:"task_id"`
	DBID       string          `json:"db_id"`
	Question   string          `json:"question"`
	Evidence   string          `json:"evidence"`
	GoldSQL    *string         `json:"gold_sql"`
	GoldAnswer json.RawMessage `json:"gold_answer"`
	// GoldSegments are every right answer of a gold with ties, as
	// sqlgym import writes them: [{"take": N, "rows": [[...], ...]}, ...];
	// an answer takes N rows of each segment.
	GoldSegments json.RawMessage `json:"gold_segments"`
	Difficulty   string          `json:"difficulty"`
	DBPath       string          `json:"db_path"`
	// Dialect is the dialect of gold_sql and of the databases: "sqlite"
	// (the default) or "postgres", where each db_id is a schema of the
	// server the dataset is served on; every record says the same.
	Dialect string `json:"dialect"`
	// SQLiteGoldSQL is the SQLite gold a task imported into PostgreSQL
	// was made from, kept for reference (sqlgym import writes it).
	SQLiteGoldSQL string `json:"sqlite_gold_sql"`
}

// resolver finds the database of one record.
type resolver func(rec *jsonlRecord) (string, error)

// LoadJSONL reads a JSONL dataset: path is a .jsonl file (or a folder
// holding tasks.jsonl) with one task per line. A task's database is its
// db_path when given (relative to the file's folder), else
// <dir>/database/<db_id>/<db_id>.sqlite, else <dir>/<db_id>.sqlite. Task
// ids are "<name>/<task_id>". A failed load names every database file
// that is missing.
func LoadJSONL(name, path string) (*env.Dataset, error) {
	return strict(loadJSONL(name, path))
}

// loadJSONL is LoadJSONL, returning the databases whose file is missing
// apart.
func loadJSONL(name, path string) (*env.Dataset, []error, error) {
	file, err := findFile(path, "tasks.jsonl")
	if err != nil {
		return nil, nil, fmt.Errorf("jsonl %s: %w", path, err)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, fmt.Errorf("jsonl %s: %w", file, err)
	}
	defer f.Close()
	dir := filepath.Dir(file)
	var dialect env.Dialect
	tasks, dbs, bad, err := readJSONL(name, f, &dialect, func(rec *jsonlRecord) (string, error) {
		return jsonlDBFile(dir, rec)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("jsonl %s: %w", file, err)
	}
	ds, err := newSQLiteDataset(name, tasks, dbs)
	if err != nil {
		return nil, nil, fmt.Errorf("jsonl %s: %w", file, err)
	}
	ds.Dialect = dialect
	if ds.Notes, err = jsonlNotes(dir, ds.DBs); err != nil {
		return nil, nil, fmt.Errorf("jsonl %s: %w", file, err)
	}
	return ds, prefixed("jsonl "+file, bad), nil
}

// jsonlNotes reads descriptions/<db_id>.json beside the tasks file, for
// each database that has one.
func jsonlNotes(dir string, dbs map[string]string) (map[string]*env.DBNotes, error) {
	out := map[string]*env.DBNotes{}
	for id := range dbs {
		n, err := readNotesFile(filepath.Join(dir, "descriptions", id+".json"))
		if err != nil {
			return nil, fmt.Errorf("descriptions: %w", err)
		}
		if !n.Empty() {
			out[id] = n
		}
	}
	return out, nil
}

// jsonlDBFile finds and checks the database file of one record. A file
// that is missing is a *badFileError, with the path it was expected at.
func jsonlDBFile(dir string, rec *jsonlRecord) (string, error) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if rec.DBPath != "" {
		p := rec.DBPath
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return p, statDB(rec.DBID, p)
	}
	tries := []string{
		filepath.Join(dir, "database", rec.DBID, rec.DBID+".sqlite"),
		filepath.Join(dir, rec.DBID+".sqlite"),
	}
	for _, p := range tries {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return tries[0], &badFileError{fmt.Sprintf("database %q: missing file, expected at %s or %s", rec.DBID, tries[0], tries[1])}
}

// ReadJSONL parses JSONL tasks from r: one JSON object per line, blank
// lines allowed, unknown fields an error. Task ids are "<name>/<task_id>".
// dbPath is asked, once per db_id, where the database of a record without
// db_path is; a record's db_path is returned as written. It returns the
// tasks and the database of each db_id. Errors name the line.
func ReadJSONL(name string, r io.Reader, dbPath func(dbID string) (string, error)) ([]env.Task, map[string]string, error) {
	var dialect env.Dialect
	tasks, dbs, bad, err := readJSONL(name, r, &dialect, func(rec *jsonlRecord) (string, error) {
		if rec.DBPath != "" {
			return rec.DBPath, nil
		}
		return dbPath(rec.DBID)
	})
	if err == nil && len(bad) > 0 {
		err = errors.Join(bad...)
	}
	if err != nil {
		return nil, nil, err
	}
	return tasks, dbs, nil
}

// readJSONL reads the tasks and their databases, and sets *dialect to
// the records' dialect; a database whose file is missing (a
// *badFileError of resolve) is kept, and its error returned in bad. A
// PostgreSQL database is its db_id, the schema it lives in.
func readJSONL(name string, r io.Reader, dialect *env.Dialect, resolve resolver) (tasks []env.Task, dbs map[string]string, bad []error, err error) {
	br := bufio.NewReader(r)
	dbs = map[string]string{}
	resolved := map[string]string{} // db_id + NUL + db_path -> database
	seen := map[string]int{}        // task id -> line
	for lineNo := 1; ; lineNo++ {
		line, rerr := br.ReadBytes('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return nil, nil, nil, fmt.Errorf("line %d: %w", lineNo, rerr)
		}
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if len(bytes.TrimSpace(line)) > 0 {
			t, err := jsonlLine(name, line, seen, lineNo)
			if err == nil {
				err = sameDialect(t, dialect, tasks == nil)
			}
			switch {
			case err != nil:
			case *dialect == env.Postgres, *dialect == env.MySQL: // a database on the server, named db_id
				dbs[t.rec.DBID] = t.rec.DBID
			default:
				err = resolveDB(t, resolve, resolved, dbs)
			}
			var bf *badFileError
			if errors.As(err, &bf) {
				bad, err = append(bad, fmt.Errorf("line %d: %w", lineNo, err)), nil
			}
			if err != nil {
				return nil, nil, nil, fmt.Errorf("line %d: %w", lineNo, err)
			}
			tasks = append(tasks, t.task)
		}
		if rerr != nil {
			break
		}
	}
	if len(tasks) == 0 {
		return nil, nil, nil, errors.New("empty dataset: no tasks")
	}
	return tasks, dbs, bad, nil
}

// sameDialect checks that a record's dialect is the first record's, and
// records the first's in *dialect.
func sameDialect(p *parsedLine, dialect *env.Dialect, first bool) error {
	d, err := jsonlDialect(&p.rec)
	switch {
	case err != nil:
		return err
	case first:
		*dialect = d
	case d != *dialect:
		return fmt.Errorf("dialect %s, but the first record's is %s: one dataset has one dialect", d, *dialect)
	}
	return nil
}

// parsedLine is a decoded record and the task made from it.
type parsedLine struct {
	rec  jsonlRecord
	task env.Task
}

// jsonlLine decodes and checks one non-blank line.
func jsonlLine(name string, line []byte, seen map[string]int, lineNo int) (*parsedLine, error) {
	p := &parsedLine{}
	if err := decodeStrict(line, &p.rec); err != nil {
		return nil, err
	}
	t, err := jsonlTask(name, &p.rec)
	if err != nil {
		return nil, err
	}
	if first, dup := seen[t.ID]; dup {
		return nil, fmt.Errorf("duplicate task id %q (first at line %d)", t.ID, first)
	}
	seen[t.ID] = lineNo
	p.task = t
	return p, nil
}

// resolveDB finds the record's database, once per db_id and db_path, and
// checks that one db_id always means one database. A file that is missing
// is kept, and its *badFileError returned the first time.
func resolveDB(p *parsedLine, resolve resolver, resolved, dbs map[string]string) error {
	key := p.rec.DBID + "\x00" + p.rec.DBPath
	path, ok := resolved[key]
	var fileErr error
	if !ok {
		var err error
		path, err = resolve(&p.rec)
		var bf *badFileError
		if err != nil && !errors.As(err, &bf) {
			return err
		}
		resolved[key], fileErr = path, err
	}
	if prev, ok := dbs[p.rec.DBID]; ok && prev != path {
		return fmt.Errorf("db_id %q names two databases: %s and %s", p.rec.DBID, prev, path)
	}
	dbs[p.rec.DBID] = path
	return fileErr
}

// decodeStrict decodes exactly one JSON object with no unknown fields.
func decodeStrict(line []byte, rec *jsonlRecord) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(rec); err != nil {
		return lineJSONError(line, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("malformed JSON: more after the object at column %d", dec.InputOffset()+1)
	}
	return nil
}

// lineJSONError says what is wrong with a line's JSON, and where.
func lineJSONError(line []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		_, col := position(line, syn.Offset-1)
		return fmt.Errorf("malformed JSON at column %d: %w", col, err)
	case errors.As(err, &typ) && typ.Field == "":
		return fmt.Errorf("malformed record: want a JSON object, got %s", typ.Value)
	case errors.As(err, &typ):
		return fmt.Errorf("field %s: want %s, got %s", typ.Field, typ.Type, typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("malformed JSON: unexpected end of line: %w", err)
	}
	return fmt.Errorf("malformed record: %w", err)
}

// jsonlTask checks a record's fields and makes its task.
func jsonlTask(name string, r *jsonlRecord) (env.Task, error) {
	key, err := jsonlKey(r.TaskID)
	if err != nil {
		return env.Task{}, err
	}
	if err := checkDBID(r.DBID); err != nil {
		return env.Task{}, err
	}
	if strings.TrimSpace(r.Question) == "" {
		return env.Task{}, errors.New("missing question")
	}
	t := env.Task{
		ID: name + "/" + key, Dataset: name, DBID: r.DBID, Question: r.Question,
		Evidence: r.Evidence, Difficulty: r.Difficulty,
	}
	hasSQL := r.GoldSQL != nil && strings.TrimSpace(*r.GoldSQL) != ""
	hasRows := len(r.GoldAnswer) > 0 && string(r.GoldAnswer) != "null"
	if !hasSQL && !hasRows {
		return env.Task{}, errors.New("missing gold: want gold_sql, gold_answer or both")
	}
	if hasSQL {
		t.GoldSQL = *r.GoldSQL
	}
	if hasRows {
		if t.GoldRows, err = parseGoldAnswer(r.GoldAnswer); err != nil {
			return env.Task{}, fmt.Errorf("gold_answer: %w", err)
		}
	}
	if len(r.GoldSegments) > 0 && string(r.GoldSegments) != "null" {
		if !hasRows {
			return env.Task{}, errors.New("gold_segments without gold_answer: give one right answer in gold_answer too")
		}
		if t.GoldSegments, err = parseGoldSegments(r.GoldSegments, t.GoldRows); err != nil {
			return env.Task{}, fmt.Errorf("gold_segments: %w", err)
		}
	}
	return t, nil
}

// jsonlDialect reads a record's dialect: "" means sqlite.
func jsonlDialect(r *jsonlRecord) (env.Dialect, error) {
	switch d := env.Dialect(strings.ToLower(strings.TrimSpace(r.Dialect))); d {
	case "", env.SQLite:
		return env.SQLite, nil
	case env.Postgres, env.MySQL:
		if r.DBPath != "" {
			return "", fmt.Errorf("db_path given with dialect %s: a %s database is named after db_id on its server", d, d.Title())
		}
		return d, nil
	}
	return "", fmt.Errorf("dialect %q: want sqlite, postgres or mysql", r.Dialect)
}

// jsonlKey reads task_id, a non-empty string or an integer.
func jsonlKey(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", errors.New("missing task_id")
	}
	key, err := recordKey(raw, 0)
	if err != nil {
		return "", fmt.Errorf("task_id: %w", err)
	}
	return key, nil
}

// parseGoldAnswer reads gold rows: an array of rows, each an array of
// numbers, strings and nulls, all rows of one width. A number is an int64
// when written as an integer that fits, a float64 otherwise.
// parseGoldSegments reads gold_segments: each segment's rows as
// gold_answer's, as wide as answer's rows, and a take between 0 and their
// count; the takes add up to answer's row count.
func parseGoldSegments(raw json.RawMessage, answer [][]any) ([]env.Segment, error) {
	var segs []struct {
		Take *int            `json:"take"`
		Rows json.RawMessage `json:"rows"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&segs); err != nil {
		return nil, fmt.Errorf("want an array of {\"take\": N, \"rows\": [...]}: %w", err)
	}
	out := make([]env.Segment, len(segs))
	total := 0
	for i, sg := range segs {
		rows, err := parseGoldAnswer(sg.Rows)
		switch {
		case err != nil:
			return nil, fmt.Errorf("segment %d: rows: %w", i, err)
		case sg.Take == nil || *sg.Take < 0 || *sg.Take > len(rows):
			return nil, fmt.Errorf("segment %d: want a take from 0 to its %d rows", i, len(rows))
		case len(rows) > 0 && len(answer) > 0 && len(rows[0]) != len(answer[0]):
			return nil, fmt.Errorf("segment %d: rows of %d values, gold_answer's have %d", i, len(rows[0]), len(answer[0]))
		}
		out[i] = env.Segment{Rows: rows, Take: *sg.Take}
		total += *sg.Take
	}
	if total != len(answer) {
		return nil, fmt.Errorf("the segments take %d rows, gold_answer holds %d", total, len(answer))
	}
	return out, nil
}

func parseGoldAnswer(raw json.RawMessage) ([][]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var rows []any
	if err := dec.Decode(&rows); err != nil {
		return nil, fmt.Errorf("want an array of rows: %w", err)
	}
	out := make([][]any, len(rows))
	for i, row := range rows {
		vals, ok := row.([]any)
		if !ok {
			return nil, fmt.Errorf("row %d: want an array of values", i)
		}
		if len(vals) == 0 {
			return nil, fmt.Errorf("row %d: empty row", i)
		}
		if i > 0 && len(vals) != len(out[0]) {
			return nil, fmt.Errorf("row %d: has %d values, row 0 has %d", i, len(vals), len(out[0]))
		}
		out[i] = make([]any, len(vals))
		for j, v := range vals {
			val, err := goldValue(v)
			if err != nil {
				return nil, fmt.Errorf("row %d, column %d: %w", i, j, err)
			}
			out[i][j] = val
		}
	}
	return out, nil
}

// goldValue converts one decoded JSON value into a result-set value.
func goldValue(v any) (any, error) {
	switch v := v.(type) {
	case nil, string:
		return v, nil
	case json.Number:
		return goldNumber(string(v))
	case bool:
		return nil, errors.New("booleans are not allowed; write 1 or 0")
	case []any:
		return nil, errors.New("want a number, a string or null, got an array")
	}
	return nil, errors.New("want a number, a string or null, got an object")
}

// goldNumber reads a JSON number literal: an int64 when written without a
// fraction or exponent and in range, else a float64.
func goldNumber(s string) (any, error) {
	if !strings.ContainsAny(s, ".eE") {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("number %s out of range", s)
	}
	return f, nil
}
