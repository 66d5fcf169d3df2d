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
	"github.com/sqlgym/sqlgym/env/postgres"
)

// engineFlags say which datasets run on a PostgreSQL server
// (--engine NAME=postgres://URL) and bound that server's connections.
type engineFlags struct {
	values            listFlag
	pgConns           int
	pgSchemaConns     int
	schemaConnsSet    bool // --pg-schema-conns was given
	pgStatementMemory int64
	servers           map[string]string // dataset name -> server URL; set by parse
	built             *postgres.Engine  // the engine postgres returned last
}

func (e *engineFlags) register(fs *flag.FlagSet) {
	fs.Var(&e.values, "engine", "run dataset NAME on a PostgreSQL server, `NAME=postgres://URL`: each db_id is the schema of that name "+
		"(sqlgym import creates them), read as the role "+postgres.DefaultRole+" (repeatable)")
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
	e.servers = map[string]string{}
	for _, v := range e.values.values {
		name, url, ok := strings.Cut(v, "=")
		switch {
		case !ok || name == "":
			return usageError{fmt.Sprintf("--engine %q: want NAME=postgres://URL", v)}
		case !strings.HasPrefix(url, "postgres://") && !strings.HasPrefix(url, "postgresql://"):
			return usageError{fmt.Sprintf("--engine %s: want a postgres:// URL", name)}
		case e.servers[name] != "":
			return usageError{fmt.Sprintf("--engine %s given twice", name)}
		}
		e.servers[name] = url
	}
	return nil
}

// load loads the dataset src names with load, or, when it runs on a
// server, with datasets.LoadKeepingMissing (its SQLite files are not used)
// and each db_id bound to its schema there. A dataset in PostgreSQL's
// dialect must run on a server.
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
		if ds.Dialect == env.Postgres {
			return nil, usageError{fmt.Sprintf("dataset %s is in PostgreSQL's dialect: give --engine %s=postgres://URL", ds.Name, ds.Name)}
		}
		return ds, nil
	}
	ds.Dialect = env.Postgres
	for id := range ds.DBs {
		ds.DBs[id] = postgres.Source(url, id)
	}
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

// postgres is the PostgreSQL engine within the flags' bounds, with
// timeout for a call that names none.
func (e *engineFlags) postgres(timeout time.Duration) *postgres.Engine {
	e.built = postgres.New(e.postgresConfig(timeout))
	return e.built
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
