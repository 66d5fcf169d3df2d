package env

import "fmt"

// Dialect names the SQL dialect a dataset's SQL is written in and the
// engine that runs it. Its values are what the wire and the JSON files
// carry ("sqlite", "postgres"). A dataset's Dialect is the one answer to
// "which dialect": the Catalog opens its databases with the engine of
// that dialect, and the prompt and inspect_schema follow it.
type Dialect string

// The dialects sqlgym runs.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Dialects are every dialect, in the order they are listed to people.
var Dialects = []Dialect{SQLite, Postgres}

// ParseDialect reads a dialect's wire name.
func ParseDialect(s string) (Dialect, error) {
	for _, d := range Dialects {
		if string(d) == s {
			return d, nil
		}
	}
	return "", fmt.Errorf("unknown dialect %q (want sqlite or postgres)", s)
}

// Title is the dialect as people write it: "SQLite", "PostgreSQL".
func (d Dialect) Title() string {
	switch d {
	case SQLite:
		return "SQLite"
	case Postgres:
		return "PostgreSQL"
	}
	return string(d)
}
