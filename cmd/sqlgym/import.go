package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/env/postgres"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/app/dbimport"
)

// importFlags are the flags of sqlgym import.
type importFlags struct {
	dataset, dsn, out, role string
	dataDir, testsuiteDir   string
	goldTimeout             time.Duration
	connectTimeout          time.Duration
	maxAnswerRows           int
}

// runImport copies a SQLite dataset into PostgreSQL or MySQL/MariaDB and
// writes it out as a JSONL dataset with golds in the server's dialect
// (docs/engines.md, "Importing a dataset into PostgreSQL" and "Importing
// a dataset into MySQL").
func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("import", stderr)
	var f importFlags
	fs.StringVar(&f.dataset, "dataset", "", "SQLite dataset to import, `[NAME=]FORMAT:PATH` with FORMAT spider, bird or jsonl (required)")
	fs.StringVar(&f.dsn, "engine", "", "server to import into, `postgres://USER@HOST:PORT/DB` (its user creates schemas and a role) or mysql://USER@HOST:PORT/ (its user creates databases and accounts: root) (required; serve then takes --engine NAME=URL)")
	deprecatedAlias(fs, "dsn", "engine")
	fs.StringVar(&f.out, "out", "", "`folder` to write tasks.jsonl and the report to, created when missing (required)")
	fs.StringVar(&f.role, "role", postgres.DefaultRole, "read-only role granted SELECT on the imported schemas (created if missing), which the golds are verified as; serve logs in as "+postgres.DefaultRole+
		"; on MySQL the prefix of each database's account (mysql.Account)")
	fs.DurationVar(&f.goldTimeout, "gold-timeout", dbimport.DefaultGoldTimeout, "time limit of each gold, on SQLite and on the server (PostgreSQL or MySQL/MariaDB)")
	fs.DurationVar(&f.connectTimeout, "connect-timeout", 10*time.Second, "time limit to reach the server (PostgreSQL or MySQL/MariaDB)")
	fs.IntVar(&f.maxAnswerRows, "max-answer-rows", dbimport.DefaultMaxAnswerRows, "rows a task's gold_answer may hold; a gold returning more is left out")
	fs.StringVar(&f.dataDir, "data-dir", defaultDataDir, "the data folder serve uses: the dataset's test suites are read from, and the carried ones written to, DATA-DIR/testsuites")
	fs.StringVar(&f.testsuiteDir, "testsuite-dir", "", "where test suites are kept (empty: DATA-DIR/testsuites); the dataset's current suites there are carried onto the server")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	ds, err := loadDataset(f.dataset, &engineFlags{}, datasets.Load)
	if err != nil {
		return err
	}
	if ds.Dialect != env.SQLite {
		return usageError{fmt.Sprintf("import: --dataset %q is a %s dataset; import reads SQLite datasets", f.dataset, ds.Dialect)}
	}
	prog := dbimport.NewProgressView(stderr, isTerminal(stderr))
	imp, err := f.importInto(ctx, ds, prog, stderr)
	prog.Finish()
	if err != nil {
		return err
	}
	if err := dbimport.WriteDataset(f.out, ds, imp); err != nil {
		return err
	}
	if err := dbimport.WriteSuites(f.suitesRoot(), f.serveName(), ds, imp); err != nil {
		return err
	}
	imp.Report.WriteSummary(stdout)
	f.saySuites(stdout, ds, imp)
	fmt.Fprintf(stdout, "wrote %s/%s and the report (%s, %s); serve it with\n  %s\n",
		f.out, dbimport.TasksFile, dbimport.ReportTextFile, dbimport.ReportFile, f.serveCommand())
	return nil
}

// importInto imports ds into the server f.dsn names, PostgreSQL or
// MySQL by its scheme.
func (f *importFlags) importInto(ctx context.Context, ds *env.Dataset, prog *dbimport.ProgressView, stderr io.Writer) (*dbimport.Imported, error) {
	if f.isMySQL() {
		return importMySQL(ctx, f, ds, prog)
	}
	conn, err := connectPostgres(ctx, f.dsn, f.connectTimeout, stderr)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return dbimport.Import(ctx, dbimport.Config{
		Dataset: ds, SQLite: sqlite.New(sqlite.Config{}), Conn: conn, URL: f.dsn, Role: f.role,
		GoldTimeout: f.goldTimeout, MaxAnswerRows: f.maxAnswerRows, Progress: prog.Update, Suites: f.suites(ds),
	})
}

// isMySQL reports whether --engine names a MySQL or MariaDB server.
func (f *importFlags) isMySQL() bool { return strings.HasPrefix(f.dsn, "mysql://") }

// serveCommand is the command that serves the import: the JSONL dataset
// and, for its name, the server it was imported into (--engine; the
// password left out, as serve logs in as the read-only role).
func (f *importFlags) serveCommand() string {
	name := f.serveName()
	dsn := f.dsn
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if _, hasPassword := u.User.Password(); hasPassword {
			u.User = url.User(u.User.Username())
			dsn = u.String()
		}
	}
	cmd := fmt.Sprintf("sqlgym serve --dataset %s=jsonl:%s --engine %s=%s", name, f.out, name, dsn)
	switch {
	case f.role == postgres.DefaultRole:
	case f.isMySQL():
		cmd += fmt.Sprintf("  (serve reads as the accounts %s.DB_ID; this import made %s.DB_ID)", mysql.DefaultAccount, f.role)
	default:
		cmd += fmt.Sprintf("  (serve reads as the role %s; this import granted %s)", postgres.DefaultRole, f.role)
	}
	return cmd
}

func (f *importFlags) check() error {
	switch {
	case f.dataset == "":
		return usageError{"import: --dataset is required"}
	case f.dsn == "":
		return usageError{"import: --engine is required (postgres://USER@HOST:PORT/DB or mysql://USER@HOST:PORT/)"}
	case !strings.HasPrefix(f.dsn, "postgres://") && !strings.HasPrefix(f.dsn, "postgresql://") && !f.isMySQL():
		return usageError{"import: --engine: want a postgres:// URL (postgres://USER@HOST:PORT/DB) or a mysql:// URL (mysql://USER@HOST:PORT/): the golds are verified through it as the read-only role"}
	case f.out == "":
		return usageError{"import: --out is required"}
	case f.role == "":
		return usageError{"import: --role must not be empty"}
	case f.goldTimeout <= 0 || f.connectTimeout <= 0:
		return usageError{"import: --gold-timeout and --connect-timeout must be positive"}
	case f.maxAnswerRows < 1:
		return usageError{"import: --max-answer-rows must be at least 1"}
	}
	return nil
}

// connectPostgres opens one connection to the server dsn names, creating
// its database where it does not exist and the user may; a DSN that does
// not parse is a usage error, a server that does not answer within
// timeout a plain one.
func connectPostgres(ctx context.Context, dsn string, timeout time.Duration, stderr io.Writer) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, usageError{fmt.Sprintf("import: --engine: %v", err)}
	}
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > timeout {
		cfg.ConnectTimeout = timeout
	}
	conn, err := dbimport.ConnectCreating(ctx, cfg, func() {
		fmt.Fprintf(stderr, "import: created database %s on %s:%d (it did not exist)\n", cfg.Database, cfg.Host, cfg.Port)
	})
	if err != nil {
		return nil, fmt.Errorf("import: connect to PostgreSQL at %s:%d: %w", cfg.Host, cfg.Port, err)
	}
	return conn, nil
}
