// Package dbimport carries a SQLite dataset into another engine's
// database, today PostgreSQL: it copies each database into a schema
// named after its db_id (types chosen from the
// values SQLite actually stores, every coercion counted), rewrites each
// SQLite gold into PostgreSQL's dialect, keeps a rewrite only when it
// returns on PostgreSQL the rows the original returns on SQLite, and
// writes the result as a JSONL dataset with a report.
//
// It reads SQLite through env.DB (the engine is the caller's) and writes
// PostgreSQL through pgx; docs/engines.md ("Importing a dataset into
// PostgreSQL") describes the type mapping, the rewrite rules and the
// report.
package dbimport
