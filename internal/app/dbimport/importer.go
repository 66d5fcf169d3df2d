package dbimport

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/postgres"
	"github.com/sqlgym/sqlgym/reward/testsuite"
)

// Defaults for the zero fields of Config.
const (
	DefaultGoldTimeout   = 30 * time.Second
	DefaultMaxAnswerRows = 100_000
)

// Config configures Import; every zero field takes its default.
type Config struct {
	// Dataset is the SQLite dataset to import, in its task order.
	Dataset *env.Dataset
	// SQLite opens its databases (read-only).
	SQLite env.Engine
	// Conn is the PostgreSQL connection the import writes through; its
	// user must be able to create schemas and roles.
	Conn *pgx.Conn
	// URL is the server's postgres:// URL, which the golds are verified
	// on through env/postgres, logged in as Role. Default: the connection
	// string Conn was opened with.
	URL string
	// Role is the read-only role: Import makes it read the imported
	// schemas (postgres.EnsureReader) and runs every PostgreSQL gold as
	// it, through the engine that serves the dataset. Default
	// postgres.DefaultRole, the role the engine logs in as.
	Role string
	// Copy configures the copy of each database.
	Copy CopyConfig
	// GoldTimeout bounds each gold's run, on SQLite and on PostgreSQL.
	// Default 30 seconds.
	GoldTimeout time.Duration
	// MaxAnswerRows bounds the rows a task's gold_answer keeps; a gold
	// returning more is Unusable. Default 100,000.
	MaxAnswerRows int
	// Suites is the test-suite folder (reward/testsuite's layout) the
	// dataset's suites are read from: each current suite is carried onto
	// the server (carrySuites) and WriteSuites writes its manifests. ""
	// carries none.
	Suites string
	// Progress, when set, is told of each database copied and each gold
	// verified.
	Progress func(Progress)
}

// Progress is a step of an import.
type Progress struct {
	Stage       string // "copy", "verify" or "suites"
	Done, Total int
	Item        string // the db_id copied, the task id verified
}

func (c Config) withDefaults() Config {
	if c.URL == "" && c.Conn != nil {
		c.URL = c.Conn.Config().ConnString()
	}
	if c.Role == "" {
		c.Role = postgres.DefaultRole
	}
	goldDefaults(&c.GoldTimeout, &c.MaxAnswerRows, &c.Progress)
	return c
}

// goldDefaults sets the zero fields every target's config shares.
func goldDefaults(timeout *time.Duration, maxRows *int, progress *func(Progress)) {
	if *timeout <= 0 {
		*timeout = DefaultGoldTimeout
	}
	if *maxRows <= 0 {
		*maxRows = DefaultMaxAnswerRows
	}
	if *progress == nil {
		*progress = func(Progress) {}
	}
}

// Imported is an import's outcome: the report and each task's gold, in
// the dataset's task order.
type Imported struct {
	Report *Report
	Golds  []*Gold
	// Dialect is the dialect of the golds: env.Postgres when empty.
	Dialect env.Dialect
	// Suites are the test suites carried onto the server, one manifest
	// per database (WriteSuites writes them); none when Config.Suites was
	// empty.
	Suites []*testsuite.Manifest
}

// Import copies every database of cfg.Dataset into PostgreSQL, makes
// cfg.Role able to read the copies, and verifies each task's gold: the
// PostgreSQL side runs through env/postgres, logged in as that role, so
// that a gold is judged exactly as sqlgym serve --engine will judge it.
// Names PostgreSQL would make one (two db_ids, two tables of a database,
// two columns of a table; see names.go) fail the import, both named,
// before anything is written. Writing the result is WriteDataset's job.
func Import(ctx context.Context, cfg Config) (*Imported, error) {
	cfg = cfg.withDefaults()
	ds := cfg.Dataset
	ids := slices.Sorted(maps.Keys(ds.DBs))
	srcs, dsts := map[string]env.DB{}, map[string]env.DB{}
	defer closeAll(srcs)
	defer closeAll(dsts)
	tables, err := checkNames(ctx, cfg, ids, srcs)
	if err != nil {
		return nil, fmt.Errorf("import: %w; nothing was imported", err)
	}
	if err := CheckTargets(ctx, cfg.Conn, ids); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	rep := &Report{Dataset: ds.Name}
	schemas := map[string]*Schema{}
	for i, id := range ids {
		dc, err := copyTables(ctx, srcs[id], tables[id], cfg.Conn, id, cfg.Copy)
		if err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
		rep.Databases = append(rep.Databases, dc)
		schemas[id] = SchemaOf(dc)
		cfg.Progress(Progress{Stage: "copy", Done: i + 1, Total: len(ids), Item: id})
	}
	if err := postgres.EnsureReader(ctx, cfg.Conn, cfg.Role, ids...); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	eng := postgres.New(postgres.Config{Role: cfg.Role, DefaultTimeout: cfg.GoldTimeout})
	for _, id := range ids {
		dst, err := eng.Open(ctx, postgres.Source(cfg.URL, id))
		if err != nil {
			return nil, fmt.Errorf("import: verify as %s: %w", cfg.Role, err)
		}
		dsts[id] = dst
	}
	v := &Verifier{Limits: env.Limits{Timeout: cfg.GoldTimeout, MaxRows: cfg.MaxAnswerRows}}
	golds, err := verifyAll(ctx, ds, v, cfg.Progress, srcs, dsts, schemas, rep)
	if err != nil {
		return nil, err
	}
	imp := &Imported{Report: rep, Golds: golds}
	if cfg.Suites != "" {
		target := &pgSuites{conn: cfg.Conn, url: cfg.URL, role: cfg.Role, copyCfg: cfg.Copy, verifier: eng}
		job := newSuiteJob(cfg.Suites, ds, cfg.SQLite, target, rep, golds, v.Limits, cfg.Progress)
		if imp.Suites, rep.Suites, err = carrySuites(ctx, job); err != nil {
			return nil, err
		}
	}
	return imp, nil
}

// checkNames opens each database of ids into srcs and lists its tables,
// and refuses names PostgreSQL would make one (checkSchemas, checkTables)
// before anything is written.
func checkNames(ctx context.Context, cfg Config, ids []string, srcs map[string]env.DB) (map[string][]env.Table, error) {
	if err := checkSchemas(ctx, cfg.Conn, ids); err != nil {
		return nil, err
	}
	return openSources(ctx, cfg.SQLite, cfg.Dataset, ids, srcs, func(id string, tables []env.Table) error {
		return checkTables(ctx, cfg.Conn, id, tables)
	})
}

// openSources opens each database of ids into srcs, lists its tables and
// hands them to check, which refuses the names the target cannot take.
func openSources(ctx context.Context, sqlite env.Engine, ds *env.Dataset, ids []string, srcs map[string]env.DB,
	check func(id string, tables []env.Table) error) (map[string][]env.Table, error) {
	tables := map[string][]env.Table{}
	for _, id := range ids {
		src, err := sqlite.Open(ctx, ds.DBs[id])
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", id, err)
		}
		srcs[id] = src
		if tables[id], err = src.Tables(ctx); err != nil {
			return nil, fmt.Errorf("list the tables of %s: %w", id, err)
		}
		if err := check(id, tables[id]); err != nil {
			return nil, err
		}
	}
	return tables, nil
}

// verifyAll verifies every task's gold, in order, and records each in
// rep: the SQLite gold on srcs, the target's on dsts, through v.
func verifyAll(ctx context.Context, ds *env.Dataset, v *Verifier, progress func(Progress), srcs, dsts map[string]env.DB, schemas map[string]*Schema, rep *Report) ([]*Gold, error) {
	golds := make([]*Gold, len(ds.Tasks))
	for i := range ds.Tasks {
		t := &ds.Tasks[i]
		g := &Gold{Category: Unusable, Reason: "the task has no SQLite gold SQL"}
		if t.GoldSQL != "" {
			var err error
			if g, err = v.Verify(ctx, srcs[t.DBID], dsts[t.DBID], schemas[t.DBID], t.GoldSQL); err != nil {
				return nil, fmt.Errorf("import: task %s: %w", t.ID, err)
			}
			if g.Category == AnswerOnly {
				if g.Segments, err = answerSegments(ctx, srcs[t.DBID], t.GoldSQL, v.Limits); err != nil {
					return nil, fmt.Errorf("import: task %s: %w", t.ID, err)
				}
			}
		}
		golds[i] = g
		rep.add(t, g)
		progress(Progress{Stage: "verify", Done: i + 1, Total: len(ds.Tasks), Item: t.ID})
	}
	return golds, nil
}

// closeAll closes every database of dbs.
func closeAll(dbs map[string]env.DB) {
	for _, db := range dbs {
		db.Close()
	}
}

// taskKey is a task's id within its dataset (the id without "name/").
func taskKey(t *env.Task) string { return strings.TrimPrefix(t.ID, t.Dataset+"/") }
