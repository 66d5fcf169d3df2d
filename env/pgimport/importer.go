package pgimport

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/postgres"
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
	// Reader grants the read-only role its reading rights on the
	// imported schemas. Default: postgres.EnsureReader with
	// postgres.DefaultRole, the role the engine logs in as.
	Reader func(ctx context.Context, conn *pgx.Conn, schemas []string) error
	// Copy configures the copy of each database.
	Copy CopyConfig
	// GoldTimeout bounds each gold's run, on SQLite and on PostgreSQL.
	// Default 30 seconds.
	GoldTimeout time.Duration
	// MaxAnswerRows bounds the rows a task's gold_answer keeps; a gold
	// returning more is Unusable. Default 100,000.
	MaxAnswerRows int
	// Progress, when set, is told of each database copied and each gold
	// verified.
	Progress func(Progress)
}

// Progress is a step of an import.
type Progress struct {
	Stage       string // "copy" or "verify"
	Done, Total int
	Item        string // the db_id copied, the task id verified
}

func (c Config) withDefaults() Config {
	if c.Reader == nil {
		c.Reader = func(ctx context.Context, conn *pgx.Conn, schemas []string) error {
			return postgres.EnsureReader(ctx, conn, postgres.DefaultRole, schemas...)
		}
	}
	if c.GoldTimeout <= 0 {
		c.GoldTimeout = DefaultGoldTimeout
	}
	if c.MaxAnswerRows <= 0 {
		c.MaxAnswerRows = DefaultMaxAnswerRows
	}
	if c.Progress == nil {
		c.Progress = func(Progress) {}
	}
	return c
}

// Imported is an import's outcome: the report and each task's gold, in
// the dataset's task order.
type Imported struct {
	Report *Report
	Golds  []*Gold
}

// Import copies every database of cfg.Dataset into PostgreSQL, grants the
// reader role, and verifies each task's gold. Writing the result is
// WriteDataset's job.
func Import(ctx context.Context, cfg Config) (*Imported, error) {
	cfg = cfg.withDefaults()
	ds := cfg.Dataset
	ids := make([]string, 0, len(ds.DBs))
	for id := range ds.DBs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	rep := &Report{Dataset: ds.Name}
	srcs := map[string]env.DB{}
	defer func() {
		for _, db := range srcs {
			db.Close()
		}
	}()
	schemas := map[string]*Schema{}
	for i, id := range ids {
		src, err := cfg.SQLite.Open(ctx, ds.DBs[id])
		if err != nil {
			return nil, fmt.Errorf("import %s: %w", id, err)
		}
		srcs[id] = src
		dc, err := CopyDB(ctx, src, cfg.Conn, id, cfg.Copy)
		if err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
		rep.Databases = append(rep.Databases, dc)
		schemas[id] = SchemaOf(dc)
		cfg.Progress(Progress{Stage: "copy", Done: i + 1, Total: len(ids), Item: id})
	}
	if err := cfg.Reader(ctx, cfg.Conn, ids); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	golds, err := verifyAll(ctx, cfg, srcs, schemas, rep)
	if err != nil {
		return nil, err
	}
	return &Imported{Report: rep, Golds: golds}, nil
}

// verifyAll verifies every task's gold, in order, and records each in rep.
func verifyAll(ctx context.Context, cfg Config, srcs map[string]env.DB, schemas map[string]*Schema, rep *Report) ([]*Gold, error) {
	ds := cfg.Dataset
	v := &Verifier{Limits: env.Limits{Timeout: cfg.GoldTimeout, MaxRows: cfg.MaxAnswerRows}}
	golds := make([]*Gold, len(ds.Tasks))
	for i := range ds.Tasks {
		t := &ds.Tasks[i]
		dst := &Runner{Conn: cfg.Conn, Schema: t.DBID, Timeout: cfg.GoldTimeout}
		g := &Gold{Category: Unusable, Reason: "the task has no SQLite gold SQL"}
		if t.GoldSQL != "" {
			var err error
			if g, err = v.Verify(ctx, srcs[t.DBID], dst, schemas[t.DBID], t.GoldSQL); err != nil {
				return nil, fmt.Errorf("import: task %s: %w", t.ID, err)
			}
		}
		golds[i] = g
		rep.add(t, g)
		cfg.Progress(Progress{Stage: "verify", Done: i + 1, Total: len(ds.Tasks), Item: t.ID})
	}
	return golds, nil
}

// taskKey is a task's id within its dataset (the id without "name/").
func taskKey(t *env.Task) string { return strings.TrimPrefix(t.ID, t.Dataset+"/") }
