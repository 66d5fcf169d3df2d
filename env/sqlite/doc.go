// Package sqlite is sqlgym's SQLite engine: it opens benchmark database
// files read-only and runs a model's statements in a sandbox. It is the
// only package of sqlgym that needs cgo.
//
// A file is opened as file:PATH?mode=ro&immutable=1 through a driver value
// of the engine's own (no driver name is registered). Each call gets a
// connection of its own and passes, in order:
//
//   - a text check: one statement only (counted by sqltext and by SQLite's
//     own lexical rules), no longer than Config.MaxSQLBytes, leading with
//     SELECT, WITH, VALUES, EXPLAIN or PRAGMA;
//   - an authorizer that allows reading, functions (except
//     load_extension and a few others that reach outside the database),
//     recursive queries and introspection pragmas without a value, and
//     denies everything else; it also records the columns read;
//   - SQLite's read-only verdict on the prepared statement;
//   - run-time limits: the length of any value (SQLITE_LIMIT_LENGTH), no
//     attached databases, a timeout that interrupts the statement, rows
//     and bytes caps on what is read.
//
// A statement that passed the checks and ran to its end stays prepared
// on its connection (stmtcache.go, bounded by Config.StmtCacheBytes):
// the same text run again there skips preparing, and with it the
// authorizer, whose verdict and recorded reads, kept with the statement,
// cannot change for a file opened immutable.
//
// A database keeps connections open only while it is among the engine's
// Config.MaxOpenDBs most recently used (openset.go); the others hold
// none and open them on their next call, so an engine serving tens of
// thousands of files keeps a bounded set open, and opening or closing a
// connection, whose cost in go-sqlite3 and SQLite grows with the
// connections open, stays cheap.
//
// Values come back as Python's sqlite3 module returns them (nil, int64,
// float64, string, []byte): see rawvalues.go for how the driver's DATE,
// DATETIME, TIMESTAMP and BOOLEAN conversions are avoided. docs/engines.md
// describes the sandbox in full.
package sqlite
