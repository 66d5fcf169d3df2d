package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/env/postgres"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/app/stack"
)

// engineFlags say which datasets run on a PostgreSQL, MySQL or MariaDB
// server (--engine NAME=postgres://URL, NAME=mysql://URL) and bound
// those servers' connections.
type engineFlags struct {
	values            listFlag
	pgConns           int
	pgSchemaConns     int
	schemaConnsSet    bool // --pg-schema-conns was given
	pgStatementMemory int64
	mysql             mysqlFlags
	servers           map[string]string // dataset name -> server URL; set by parse
	built             *postgres.Engine  // the engine built last (build)
}

func (e *engineFlags) register(fs *flag.FlagSet) {
	fs.Var(&e.values, "engine", "run dataset NAME on a server, `NAME=postgres://URL` or NAME=mysql://URL: each db_id is the schema "+
		"(PostgreSQL, read as the role "+postgres.DefaultRole+") or the database (MySQL and MariaDB, read by the account "+
		mysql.DefaultAccount+".DB_ID) of that name (repeatable)")
	e.mysql.register(fs)
	bytesVar(fs, &e.pgStatementMemory, "pg-statement-memory", postgres.DefaultMaxStatementMemory,
		"private memory of the PostgreSQL server process running one statement, where the server runs on this host: past it the statement "+
			"is cancelled and the model gets too_large (0: no bound)")
	fs.IntVar(&e.pgConns, "pg-conns", postgres.DefaultMaxConns,
		"connections to one PostgreSQL server: statements running on it at once, all its schemas together; waiting counts against the statement's timeout")
	e.pgSchemaConns = postgres.DefaultMaxSchemaConns
	fs.Func("pg-schema-conns", fmt.Sprintf("`N` statements running at once on one PostgreSQL schema, at most --pg-conns "+
		"(default %d, or --pg-conns when that is less); waiting counts against the statement's timeout", postgres.DefaultMaxSchemaConns),
		func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil {
				return errors.New("want a whole number")
			}
			e.pgSchemaConns, e.schemaConnsSet = n, true
			return nil
		})
}

// parse reads the --engine values.
func (e *engineFlags) parse() error {
	if e.pgConns < 1 || e.pgSchemaConns < 1 {
		return usageError{"--pg-conns and --pg-schema-conns must be at least 1"}
	}
	switch {
	case e.pgSchemaConns <= e.pgConns:
	case e.schemaConnsSet:
		return usageError{fmt.Sprintf("--pg-schema-conns %d is more than --pg-conns %d: one schema cannot run more statements than the server has connections",
			e.pgSchemaConns, e.pgConns)}
	default:
		e.pgSchemaConns = e.pgConns // the default, lowered to the server's bound
	}
	if err := e.mysql.check(); err != nil {
		return err
	}
	e.servers = map[string]string{}
	for _, v := range e.values.values {
		name, url, ok := strings.Cut(v, "=")
		switch {
		case !ok || name == "":
			return usageError{fmt.Sprintf("--engine %q: want NAME=postgres://URL or NAME=mysql://URL", v)}
		case stack.ServerDialect(url) == "":
			return usageError{fmt.Sprintf("--engine %s: want a postgres:// or mysql:// URL", name)}
		case stack.ServerDialect(url) == env.MySQL && mysqlURLError(url) != nil:
			return usageError{fmt.Sprintf("--engine %s: %v", name, mysqlURLError(url))}
		case e.servers[name] != "":
			return usageError{fmt.Sprintf("--engine %s given twice", name)}
		}
		e.servers[name] = url
	}
	return nil
}

// mysqlURLError says what is wrong with a mysql:// URL, nil when nothing.
func mysqlURLError(url string) error {
	_, err := mysql.ParseURL(url)
	return err
}

// load loads the dataset src names with load, or, when it runs on a
// server, with datasets.LoadKeepingMissing (its SQLite files are not used)
// and each db_id bound to its schema or database there. A dataset in
// PostgreSQL's or MySQL's dialect must run on a server.
func (e *engineFlags) load(src datasets.Source, load func(datasets.Source) (*env.Dataset, error)) (*env.Dataset, error) {
	url, onServer := e.servers[src.Name]
	if onServer {
		load = datasets.LoadKeepingMissing
	}
	ds, err := load(src)
	if err != nil {
		return nil, err
	}
	if !onServer {
		if ds.Dialect != env.SQLite {
			return nil, usageError{fmt.Sprintf("dataset %s is in %s's dialect: give --engine %s=%s://URL",
				ds.Name, ds.Dialect.Title(), ds.Name, ds.Dialect)}
		}
		return ds, nil
	}
	stack.OnServer(ds, url)
	return ds, nil
}

// checkUsed fails when an --engine names no dataset.
func (e *engineFlags) checkUsed(dss []*env.Dataset) error {
	for name := range e.servers {
		found := false
		for _, ds := range dss {
			found = found || ds.Name == name
		}
		if !found {
			return usageError{fmt.Sprintf("--engine %s: no dataset of that name", name)}
		}
	}
	return nil
}

// catalog is the catalog of SQLite, with its defaults, and the server
// engines within the flags' bounds, with timeout for a call that names
// none: eval's and check's, which run golds and predictions and no tool.
func (e *engineFlags) catalog(timeout time.Duration) *env.Catalog {
	return e.build(e.config(sqlite.Config{}, timeout)).Catalog
}

// config is the engines' config of internal/app/stack: SQLite's sq and the
// server engines within the flags' bounds, their statements' timeout
// when none is given.
func (e *engineFlags) config(sq sqlite.Config, timeout time.Duration) stack.EngineConfig {
	pg, my := e.postgresConfig(timeout), e.mysql.config(timeout)
	return stack.EngineConfig{SQLite: sq, Postgres: &pg, MySQL: &my}
}

// build builds c's engines through internal/app/stack, as every server does,
// and keeps its server engines for warnCapacity.
func (e *engineFlags) build(c stack.EngineConfig) stack.Engines {
	en := stack.NewEngines(c)
	e.built, e.mysql.built = en.Postgres, en.MySQL
	return en
}

// postgresConfig is the PostgreSQL engine's config from the flags, its
// statements' timeout when none is given.
func (e *engineFlags) postgresConfig(timeout time.Duration) postgres.Config {
	return postgres.Config{MaxConns: e.pgConns, MaxSchemaConns: e.pgSchemaConns, DefaultTimeout: timeout,
		MaxStatementMemory: cmp.Or(e.pgStatementMemory, -1)}
}

// warnCapacity logs a warning for each PostgreSQL server whose
// connections for roles without superuser are fewer than --pg-conns:
// past them, statements would fail with "too many clients" instead of
// waiting their turn.
func (e *engineFlags) warnCapacity(ctx context.Context, log *zap.Logger) {
	e.mysql.warnCapacity(ctx, log)
	if e.built == nil {
		return
	}
	caps, err := e.built.Capacity(ctx)
	if err != nil {
		log.Warn("could not read a PostgreSQL server's max_connections", zap.Error(err))
	}
	for _, c := range caps {
		if !c.MemoryWatched && e.pgStatementMemory > 0 {
			log.Warn("--pg-statement-memory is not enforced: the PostgreSQL server's processes are not visible on this host "+
				"(bound each backend's memory on the server's host instead: docs/engines.md)", zap.String("server", c.Server))
		}
		if c.Pool > c.Available {
			log.Warn("--pg-conns is more than the PostgreSQL server allows: lower --pg-conns or raise max_connections",
				zap.String("server", c.Server), zap.Int("pg_conns", c.Pool), zap.Int("server_available", c.Available))
		}
	}
}
