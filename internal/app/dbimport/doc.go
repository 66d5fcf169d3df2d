// Package dbimport carries a SQLite dataset into another engine's
// database, PostgreSQL (Import) or MySQL/MariaDB (ImportMySQL, the
// mysql_*.go files): it copies each database into a schema or database
// named after its db_id (types chosen from the
// values SQLite actually stores, every coercion counted), rewrites each
// SQLite gold into the target's dialect, keeps a rewrite only when it
// returns there the rows the original returns on SQLite, and writes the
// result as a JSONL dataset with a report.
//
// It reads SQLite through env.DB (the engine is the caller's) and writes
// PostgreSQL through pgx, MySQL through env/mysql's admin pool;
// docs/engines.md ("Importing a dataset into PostgreSQL", "Importing a
// dataset into MySQL") describes the type mappings, the rewrite rules
// and the report.
package dbimport
