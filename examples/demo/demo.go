// Package demo is the dataset sqlgym serves when no --dataset is given:
// four small SQLite databases of different shapes (a library, a clinic, a
// flight network and an online shop), each written as a SQL script, and
// tasks over them in the JSONL dataset format, graded easy, medium and hard.
//
// The scripts and tasks are embedded in the binary; Load turns the scripts
// into database files on first use and reuses them afterwards.
package demo

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
)

// Name is the demo dataset's name, the prefix of its task ids.
const Name = "demo"

// sources holds one <db_id>.sql script per database, tasks.jsonl, and
// descriptions/<db_id>.json for the databases described in the JSONL
// datasets' description format.
//
//go:embed *.sql tasks.jsonl descriptions/*.json
var sources embed.FS

// BuildFunc creates the SQLite file at path from a SQL script, whole or not
// at all; env/sqlite.Build is one.
type BuildFunc func(ctx context.Context, path, script string) error

// Load materializes the demo databases into dir (creating dir if needed)
// with build and returns the dataset "demo". Each file is named by its
// db_id and a short hash of its script, <db_id>-<hash8>.sqlite, so a file
// already there is reused and a changed script makes a new one.
func Load(ctx context.Context, dir string, build func(ctx context.Context, path, script string) error) (*env.Dataset, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	dbs, err := materialize(ctx, dir, build)
	if err != nil {
		return nil, err
	}
	tasks, err := readTasks(dbs)
	if err != nil {
		return nil, err
	}
	notes, err := readNotes()
	if err != nil {
		return nil, err
	}
	ds := &env.Dataset{Name: Name, Dialect: env.SQLite, Tasks: tasks, DBs: dbs, Notes: notes}
	if err := ds.Index(); err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	return ds, nil
}

// readNotes parses the embedded descriptions, by db_id.
func readNotes() (map[string]*env.DBNotes, error) {
	names, err := fs.Glob(sources, "descriptions/*.json")
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	out := map[string]*env.DBNotes{}
	for _, name := range names {
		raw, err := sources.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
		if out[strings.TrimSuffix(filepath.Base(name), ".json")], err = datasets.ParseNotes(raw); err != nil {
			return nil, fmt.Errorf("demo %s: %w", name, err)
		}
	}
	return out, nil
}

// Scripts returns each database's SQL script by db_id.
func Scripts() (map[string]string, error) {
	names, err := fs.Glob(sources, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	scripts := make(map[string]string, len(names))
	for _, name := range names {
		b, err := sources.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
		scripts[strings.TrimSuffix(name, ".sql")] = string(b)
	}
	return scripts, nil
}

// FileName is the database file name for a db_id and its script.
func FileName(dbID, script string) string {
	sum := sha256.Sum256([]byte(script))
	return dbID + "-" + hex.EncodeToString(sum[:])[:8] + ".sqlite"
}

// materialize builds each database that is not in dir yet and returns the
// file of every db_id.
func materialize(ctx context.Context, dir string, build BuildFunc) (map[string]string, error) {
	scripts, err := Scripts()
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(scripts))
	for id := range scripts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	dbs := make(map[string]string, len(ids))
	for _, id := range ids {
		path := filepath.Join(dir, FileName(id, scripts[id]))
		if err := ensure(ctx, path, scripts[id], build); err != nil {
			return nil, fmt.Errorf("demo: database %s: %w", id, err)
		}
		dbs[id] = path
	}
	return dbs, nil
}

// ensure builds path from script unless a file is already there. Builds
// are atomic, so a file that exists is whole.
func ensure(ctx context.Context, path, script string, build BuildFunc) error {
	fi, err := os.Stat(path)
	if err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return build(ctx, path, script)
}

// readTasks parses the embedded tasks.jsonl against the built databases.
func readTasks(dbs map[string]string) ([]env.Task, error) {
	f, err := sources.Open("tasks.jsonl")
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	defer f.Close()
	tasks, _, err := datasets.ReadJSONL(Name, f, func(dbID string) (string, error) {
		path, ok := dbs[dbID]
		if !ok {
			return "", fmt.Errorf("unknown db_id %q: there is no %s.sql", dbID, dbID)
		}
		return path, nil
	})
	if err != nil {
		return nil, fmt.Errorf("demo tasks.jsonl: %w", err)
	}
	return tasks, nil
}
