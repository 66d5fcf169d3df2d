package env

import "fmt"

// Dialect names the SQL dialect a dataset's SQL is written in and the
// engine that runs it. Its values are what the wire and the JSON files
// carry ("sqlite", "postgres", "mysql"). A dataset's Dialect is the one answer to
// "which dialect": the Catalog opens its databases with the engine of
// that dialect, and the prompt and inspect_schema follow it.
type Dialect string

// The dialects sqlgym runs.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
	// MySQL is the dialect of MySQL 8 and MariaDB, its drop-in.
	MySQL Dialect = "mysql"
)

// Dialects are every dialect, in the order they are listed to people.
var Dialects = []Dialect{SQLite, Postgres, MySQL}

// ParseDialect reads a dialect's wire name.
func ParseDialect(s string) (Dialect, error) {
	for _, d := range Dialects {
		if string(d) == s {
			return d, nil
		}
	}
	return "", fmt.Errorf("unknown dialect %q (want sqlite, postgres or mysql)", s)
}

// Title is the dialect as people write it: "SQLite", "PostgreSQL",
// "MySQL".
func (d Dialect) Title() string {
	switch d {
	case SQLite:
		return "SQLite"
	case Postgres:
		return "PostgreSQL"
	case MySQL:
		return "MySQL"
	}
	return string(d)
}
