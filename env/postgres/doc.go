// Package postgres is sqlgym's PostgreSQL engine: it serves each task's
// database as a schema of a PostgreSQL server, named after its db_id,
// and runs a model's statements in a sandbox.
//
// A database's source is "postgres://URL#SCHEMA" (see Source). The engine
// keeps one connection pool per server (host, port and database), shared
// by that server's schemas through an admission that keeps a reserve for
// schemas running nothing yet (sandbox.Admission). Every pool logs in as a
// role that reads nothing itself (DefaultRole), whatever user the URL
// names: a superuser's session reaches files and programs through COPY,
// lo_import or dblink. Each call then:
//
//   - checks the text with env/sandbox (one statement, a length bound,
//     a leading SELECT, WITH, VALUES, TABLE or EXPLAIN), and refuses the
//     functions and relations that tell of other sessions or schemas or
//     write past the transaction (functions.go);
//   - opens a READ ONLY transaction as the schema's own role (SET LOCAL
//     ROLE SchemaRole, which EnsureReader creates and which can read that
//     schema only), with a local statement_timeout (the call's timeout)
//     and search_path (the schema), which is always rolled back, and the
//     session reset (DISCARD ALL) after it;
//   - reads the plan (EXPLAIN (VERBOSE, FORMAT JSON)) for the columns
//     the statement reads (env.ResultSet.ReadColumns);
//   - runs the statement alone through the extended protocol (Parse,
//     Bind, Execute: one statement, never a multi-statement simple
//     query), fetching rows in batches that stop at the row cap plus one,
//     each row and value bounded, into a sandbox.Collector;
//   - on a cancelled context or a passed deadline, asks the server to
//     cancel the statement (a CancelRequest) and drops the connection;
//     where the server's process is on this host, cancels a statement
//     whose process passes MaxStatementMemory (memwatch.go).
//
// Values come back as nil, int64, float64, bool, string or []byte: see
// values.go. docs/engines.md describes the engine in full.
package postgres
