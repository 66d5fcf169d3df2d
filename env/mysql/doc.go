// Package mysql is sqlgym's MySQL engine, for MySQL 8 and MariaDB: it
// serves each task's database as a database of one server, named after
// its db_id, and runs a model's statements in a sandbox.
//
// A database's source is "mysql://URL#DATABASE" (see Source). The engine
// logs in to each database as that database's own account (Account),
// which EnsureReader creates with SELECT on that database only and no
// global privilege, whatever user the URL names: a privileged session
// reaches files (LOAD_FILE, INTO OUTFILE), other sessions' statements
// (the process list) and every other database. Each call then:
//
//   - checks the text with env/sandbox (one statement, a length bound,
//     a leading SELECT, WITH, VALUES, TABLE or EXPLAIN) and with MySQL's
//     own lexical rules (check.go): no executable comments or optimizer
//     hints, no user or system variables, no SELECT ... INTO, no locking
//     reads, and none of the functions and catalogs that reach files,
//     locks or other sessions;
//   - takes a connection of the database's pool (a bounded share of the
//     server's connections), opens a READ ONLY transaction, runs the
//     statement alone (the driver's multiStatements is off) under a time
//     limit the server enforces (max_statement_time on MariaDB,
//     max_execution_time on MySQL), and always rolls back;
//   - reads the rows into a sandbox.Collector, each value as values.go
//     says;
//   - on a cancelled context or a passed deadline, kills the statement
//     on the server (KILL QUERY from another connection of the same
//     account) and drops the connection.
//
// Every session runs with fixed settings that bound a statement's memory
// (session.go). docs/engines.md describes the engine in full.
package mysql
