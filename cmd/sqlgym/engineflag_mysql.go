package main

import (
	"context"
	"flag"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/env/mysql"
)

// mysqlFlags bound the connections of the MySQL and MariaDB servers that
// --engine names.
type mysqlFlags struct {
	conns         int
	dbConns       int
	sessionMemory int64
	tempDisk      int64
	built         *mysql.Engine // the engine built last (engineFlags.build)
}

func (m *mysqlFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&m.conns, "mysql-conns", mysql.DefaultMaxConns,
		"connections to one MySQL or MariaDB server: statements running on it at once, all its databases together; waiting counts against the statement's timeout")
	fs.IntVar(&m.dbConns, "mysql-db-conns", mysql.DefaultMaxDBConns,
		"connections to one MySQL or MariaDB database (at most --mysql-conns): statements running on it at once; waiting counts against the statement's timeout")
	bytesVar(fs, &m.sessionMemory, "mysql-session-memory", mysql.DefaultMaxSessionMemory,
		"memory one MariaDB session may hold (max_session_mem_used): past it the statement fails and the model gets too_large (MySQL has no such bound)")
	bytesVar(fs, &m.tempDisk, "mysql-temp-disk", mysql.DefaultMaxTempDiskBytes,
		"bytes one on-disk temporary table of a MariaDB statement may take (tmp_disk_table_size): past it the statement fails and the model gets too_large (MySQL has no such bound)")
}

// check refuses bounds that could not work.
func (m *mysqlFlags) check() error {
	if m.conns < 1 || m.dbConns < 1 || m.sessionMemory < 1 || m.tempDisk < 1 {
		return usageError{"--mysql-conns, --mysql-db-conns, --mysql-session-memory and --mysql-temp-disk must be at least 1"}
	}
	return nil
}

// config is the MySQL engine's config from the flags, its statements'
// timeout when none is given.
func (m *mysqlFlags) config(timeout time.Duration) mysql.Config {
	return mysql.Config{MaxConns: m.conns, MaxDBConns: m.dbConns, MaxSessionMemory: m.sessionMemory, MaxTempDiskBytes: m.tempDisk, DefaultTimeout: timeout}
}

// warnCapacity logs a warning for each MySQL or MariaDB server whose
// max_connections is less than the engine may hold open there (twice
// --mysql-conns): past it, statements would fail with "too many
// connections" instead of waiting their turn.
func (m *mysqlFlags) warnCapacity(ctx context.Context, log *zap.Logger) {
	if m.built == nil {
		return
	}
	caps, err := m.built.Capacity(ctx)
	if err != nil {
		log.Warn("could not read a MySQL server's max_connections", zap.Error(err))
	}
	for _, c := range caps {
		if c.Pool > c.Available {
			log.Warn("--mysql-conns is more than half the MySQL server's max_connections: lower --mysql-conns or raise max_connections",
				zap.String("server", c.Server), zap.Int("open_at_most", c.Pool), zap.Int("max_connections", c.Available))
		}
	}
}
