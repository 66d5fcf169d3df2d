package dbimport

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/mysql"
)

// MySQLConfig configures ImportMySQL; every zero field takes its default.
type MySQLConfig struct {
	// Dataset is the SQLite dataset to import, in its task order.
	Dataset *env.Dataset
	// SQLite opens its databases (read-only).
	SQLite env.Engine
	// URL is the server's mysql:// URL (mysql://USER@HOST:PORT/), whose
	// user must be able to create databases and users and grant (root).
	URL string
	// Account is the prefix of the read-only accounts (mysql.Account):
	// ImportMySQL gives each imported database its account
	// (mysql.EnsureReader) and verifies every MySQL gold as it, through
	// the engine that serves the dataset. Default mysql.DefaultAccount,
	// the prefix the engine logs in with.
	Account string
	// Copy configures the copy of each database.
	Copy CopyConfig
	// GoldTimeout bounds each gold's run, on SQLite and on MySQL.
	// Default 30 seconds.
	GoldTimeout time.Duration
	// MaxAnswerRows bounds the rows a task's gold_answer keeps; a gold
	// returning more is Unusable. Default 100,000.
	MaxAnswerRows int
	// Suites is the test-suite folder the dataset's suites are read
	// from, as Config.Suites; "" carries none.
	Suites string
	// Progress, when set, is told of each database copied and each gold
	// verified.
	Progress func(Progress)
}

func (c MySQLConfig) withDefaults() MySQLConfig {
	if c.Account == "" {
		c.Account = mysql.DefaultAccount
	}
	goldDefaults(&c.GoldTimeout, &c.MaxAnswerRows, &c.Progress)
	return c
}

// ImportMySQL copies every database of cfg.Dataset into a database of
// its own on the MySQL or MariaDB server cfg.URL names, gives each its
// read-only account, and verifies each task's gold: the MySQL side runs
// through env/mysql as that account, so that a gold is judged exactly as
// sqlgym serve --engine will judge it. Names MySQL would refuse or make
// one (mysql_names.go) fail the import, both named, before anything is
// written. Writing the result is WriteDataset's job.
func ImportMySQL(ctx context.Context, cfg MySQLConfig) (*Imported, error) {
	cfg = cfg.withDefaults()
	admin, err := mysql.OpenAdmin(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer admin.Close()
	ds := cfg.Dataset
	ids := slices.Sorted(maps.Keys(ds.DBs))
	srcs, dsts := map[string]env.DB{}, map[string]env.DB{}
	defer closeAll(srcs)
	defer closeAll(dsts)
	tables, err := checkMySQLNames(ctx, cfg, admin, ids, srcs)
	if err != nil {
		return nil, fmt.Errorf("import: %w; nothing was imported", err)
	}
	if err := ensureImportList(ctx, admin); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	if err := checkMySQLTargets(ctx, admin, ids); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	collation, err := binaryCollation(ctx, admin)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	rep := &Report{Dataset: ds.Name, Target: "MySQL"}
	schemas := map[string]*Schema{}
	for i, id := range ids {
		dc, err := copyMySQL(ctx, srcs[id], tables[id], admin, id, collation, cfg.Copy)
		if err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
		rep.Databases = append(rep.Databases, dc)
		schemas[id] = SchemaOf(dc)
		cfg.Progress(Progress{Stage: "copy", Done: i + 1, Total: len(ids), Item: id})
	}
	if err := mysql.EnsureReader(ctx, admin, cfg.Account, ids...); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	eng := mysql.New(mysql.Config{Account: cfg.Account, DefaultTimeout: cfg.GoldTimeout})
	for _, id := range ids {
		if dsts[id], err = eng.Open(ctx, mysql.Source(cfg.URL, id)); err != nil {
			return nil, fmt.Errorf("import: verify as %s: %w", mysql.Account(cfg.Account, id), err)
		}
	}
	v := &Verifier{Limits: env.Limits{Timeout: cfg.GoldTimeout, MaxRows: cfg.MaxAnswerRows}, Rewrite: RewriteMySQL, Target: "MySQL"}
	golds, err := verifyAll(ctx, ds, v, cfg.Progress, srcs, dsts, schemas, rep)
	if err != nil {
		return nil, err
	}
	imp := &Imported{Report: rep, Golds: golds, Dialect: env.MySQL}
	if cfg.Suites != "" {
		target := &mySuites{admin: admin, url: cfg.URL, account: cfg.Account, collation: collation, copyCfg: cfg.Copy, verifier: eng}
		job := newSuiteJob(cfg.Suites, ds, cfg.SQLite, target, rep, golds, v.Limits, cfg.Progress)
		if imp.Suites, rep.Suites, err = carrySuites(ctx, job); err != nil {
			return nil, err
		}
	}
	return imp, nil
}

// checkMySQLNames opens each database of ids into srcs and lists its
// tables, and refuses names MySQL would not take or would make one
// (mysql_names.go) before anything is written.
func checkMySQLNames(ctx context.Context, cfg MySQLConfig, admin *sql.DB, ids []string, srcs map[string]env.DB) (map[string][]env.Table, error) {
	var lctn int
	if err := admin.QueryRowContext(ctx, "SELECT @@lower_case_table_names").Scan(&lctn); err != nil {
		return nil, fmt.Errorf("read lower_case_table_names: %w", err)
	}
	if err := checkMySQLDBs(ids, lctn != 0); err != nil {
		return nil, err
	}
	return openSources(ctx, cfg.SQLite, cfg.Dataset, ids, srcs, func(id string, tables []env.Table) error {
		return checkMySQLTables(id, tables)
	})
}
