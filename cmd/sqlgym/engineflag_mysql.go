package main

import (
	"flag"
	"time"

	"github.com/sqlgym/sqlgym/env/mysql"
)

// mysqlFlags bound the connections of the MySQL and MariaDB servers that
// --engine names.
type mysqlFlags struct {
	conns         int
	dbConns       int
	sessionMemory int64
}

func (m *mysqlFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&m.conns, "mysql-conns", mysql.DefaultMaxConns,
		"connections to one MySQL or MariaDB server: statements running on it at once, all its databases together; waiting counts against the statement's timeout")
	fs.IntVar(&m.dbConns, "mysql-db-conns", mysql.DefaultMaxDBConns,
		"connections to one MySQL or MariaDB database (at most --mysql-conns): statements running on it at once; waiting counts against the statement's timeout")
	bytesVar(fs, &m.sessionMemory, "mysql-session-memory", mysql.DefaultMaxSessionMemory,
		"memory one MariaDB session may hold (max_session_mem_used): past it the statement fails and the model gets too_large (MySQL has no such bound)")
}

// check refuses bounds that could not work.
func (m *mysqlFlags) check() error {
	if m.conns < 1 || m.dbConns < 1 || m.sessionMemory < 1 {
		return usageError{"--mysql-conns, --mysql-db-conns and --mysql-session-memory must be at least 1"}
	}
	return nil
}

// engine is the MySQL engine within the flags' bounds, with timeout for
// a call that names none.
func (m *mysqlFlags) engine(timeout time.Duration) *mysql.Engine {
	return mysql.New(mysql.Config{MaxConns: m.conns, MaxDBConns: m.dbConns, MaxSessionMemory: m.sessionMemory, DefaultTimeout: timeout})
}
