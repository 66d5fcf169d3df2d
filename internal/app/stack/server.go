package stack

import (
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/env/postgres"
)

// ServerDialect is the dialect of the database server url names:
// PostgreSQL for a postgres:// or postgresql:// URL, MySQL for a
// mysql:// one, "" for a URL of no server sqlgym runs on.
func ServerDialect(url string) env.Dialect {
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		return env.Postgres
	case strings.HasPrefix(url, "mysql://"):
		return env.MySQL
	}
	return ""
}

// OnServer places ds on the server url names (sqlgym import put it
// there): its dialect becomes the server's, and each of its databases
// the schema (PostgreSQL) or database (MySQL) of its db_id there.
func OnServer(ds *env.Dataset, url string) {
	ds.Dialect = ServerDialect(url)
	for id := range ds.DBs {
		if ds.Dialect == env.MySQL {
			ds.DBs[id] = mysql.Source(url, id)
		} else {
			ds.DBs[id] = postgres.Source(url, id)
		}
	}
}
