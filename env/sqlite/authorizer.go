package sqlite

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mattn/go-sqlite3"
)

// actionRecursive is SQLITE_RECURSIVE (a recursive common table
// expression), which the driver does not export.
const actionRecursive = 33

// guard is the authorizer of one call: a whitelist that lets a statement
// read and compute and nothing else. SQLite consults it while preparing a
// statement (and while running the few that compile more SQL as they go,
// such as VACUUM INTO), always on the goroutine that drives the
// statement, so a guard needs no lock as long as one call owns it.
type guard struct {
	reads  map[string]struct{} // "table.column" read; nil: not recorded
	tables map[string]struct{} // tables read, catalogs left out; nil: not recorded
	denied string              // the first denial, as the model sees it

	// The reads of the statement being prepared, captured for the
	// statement cache whether or not the call records its own.
	stmtReads, stmtTables map[string]struct{}
}

// newGuard returns a guard; with record set it collects the columns the
// statement reads.
func newGuard(record bool) *guard {
	g := &guard{}
	if record {
		g.reads = map[string]struct{}{}
		g.tables = map[string]struct{}{}
	}
	return g
}

// authorize is the SQLite authorizer callback: op is the action code, a1
// and a2 its arguments, db the schema name.
func (g *guard) authorize(op int, a1, a2, db string) int {
	switch op {
	case sqlite3.SQLITE_SELECT, actionRecursive:
		return sqlite3.SQLITE_OK
	case sqlite3.SQLITE_READ:
		g.read(a1, a2)
		return sqlite3.SQLITE_OK
	case sqlite3.SQLITE_FUNCTION:
		if deniedFunctions[strings.ToLower(a2)] {
			return g.deny(fmt.Sprintf("function %s() is not allowed", a2))
		}
		return sqlite3.SQLITE_OK
	case sqlite3.SQLITE_PRAGMA:
		if pragmaAllowed(a1, a2) {
			return sqlite3.SQLITE_OK
		}
		return g.deny(pragmaDenial(a1, a2))
	}
	return g.deny(actionName(op, a1, a2) + " is not allowed: the database is read-only")
}

// read records a read of table.column. SQLite reports a table read for
// its rows alone (SELECT count(*) FROM t) with an empty column: a table
// read, no column read. Its own tables (sqlite_master, sqlite_sequence,
// ...) are no table of the database.
func (g *guard) read(table, column string) {
	if g.reads == nil && g.stmtReads == nil {
		return
	}
	t := strings.ToLower(table)
	tc := ""
	if column != "" {
		tc = strings.ToLower(table + "." + column)
	}
	record(g.tables, g.reads, t, tc)
	record(g.stmtTables, g.stmtReads, t, tc)
}

// record adds a read of table t (lower case), and of column tc
// ("table.column", lower case; empty for none) to tables and reads,
// unless they are nil.
func record(tables, reads map[string]struct{}, t, tc string) {
	if tables == nil {
		return
	}
	if !strings.HasPrefix(t, "sqlite_") {
		tables[t] = struct{}{}
	}
	if tc != "" {
		reads[tc] = struct{}{}
	}
}

// capture starts recording the reads of the statement about to be
// prepared, for the statement cache.
func (g *guard) capture() {
	g.stmtReads, g.stmtTables = map[string]struct{}{}, map[string]struct{}{}
}

// captured returns the reads recorded since capture, sorted, and stops
// recording them.
func (g *guard) captured() (reads, tables []string) {
	reads, tables = sortedKeys(g.stmtReads), sortedKeys(g.stmtTables)
	g.stmtReads, g.stmtTables = nil, nil
	return reads, tables
}

// replay records the reads of a statement taken from the statement
// cache, which SQLite does not prepare again and so does not authorize
// again.
func (g *guard) replay(reads, tables []string) {
	if g.reads == nil {
		return
	}
	for _, t := range tables {
		g.tables[t] = struct{}{}
	}
	for _, c := range reads {
		g.reads[c] = struct{}{}
	}
}

func (g *guard) deny(msg string) int {
	if g.denied == "" {
		g.denied = "statement denied: " + msg
	}
	return sqlite3.SQLITE_DENY
}

// readColumns returns the recorded column reads, sorted.
func (g *guard) readColumns() []string { return sortedKeys(g.reads) }

// readTables returns the recorded table reads, sorted.
func (g *guard) readTables() []string { return sortedKeys(g.tables) }

func sortedKeys(m map[string]struct{}) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// deniedFunctions are functions that reach outside the database or the
// process's normal state: extension loading, the FTS3 tokenizer pointer
// interface, the user-authentication stubs, the error log, and the file
// functions some builds add.
var deniedFunctions = map[string]bool{
	"load_extension": true, "fts3_tokenizer": true, "sqlite_log": true,
	"authenticate": true, "auth_enabled": true, "auth_user_add": true,
	"auth_user_change": true, "auth_user_delete": true,
	"readfile": true, "writefile": true, "edit": true, "fsdir": true,
}

// namePragmas take a table or index name as their argument, never a
// setting; valuePragmas report a setting and are allowed only without an
// argument, which would change it.
var (
	namePragmas = map[string]bool{
		"table_info": true, "table_xinfo": true, "table_list": true,
		"index_list": true, "index_info": true, "index_xinfo": true,
		"foreign_key_list": true,
	}
	valuePragmas = map[string]bool{
		"collation_list": true, "function_list": true,
		"module_list": true, "pragma_list": true, "compile_options": true,
		"encoding": true, "user_version": true, "schema_version": true,
		"application_id": true, "page_count": true, "page_size": true,
		"freelist_count": true, "data_version": true, "foreign_keys": true,
	}
)

func pragmaAllowed(name, arg string) bool {
	name = strings.ToLower(name)
	return namePragmas[name] || (valuePragmas[name] && arg == "")
}

func pragmaDenial(name, arg string) string {
	if arg != "" {
		return fmt.Sprintf("PRAGMA %s = %s is not allowed: only read-only introspection pragmas (table_info, index_list, foreign_key_list, ...) may run, and none may change a setting", name, arg)
	}
	return fmt.Sprintf("PRAGMA %s is not allowed: only read-only introspection pragmas (table_info, index_list, foreign_key_list, ...) may run", name)
}

// actionName names a denied authorizer action for the model.
func actionName(op int, a1, a2 string) string {
	if isSchemaTable(a1) && (op == sqlite3.SQLITE_INSERT || op == sqlite3.SQLITE_UPDATE || op == sqlite3.SQLITE_DELETE) {
		// CREATE, DROP and ALTER ask to write the schema table first.
		return "changing the schema (a write to " + a1 + ")"
	}
	switch op {
	case sqlite3.SQLITE_INSERT:
		return "INSERT into " + a1
	case sqlite3.SQLITE_UPDATE:
		return "UPDATE of " + a1
	case sqlite3.SQLITE_DELETE:
		return "DELETE from " + a1
	case sqlite3.SQLITE_TRANSACTION:
		return a1 + " (a transaction)"
	case sqlite3.SQLITE_SAVEPOINT:
		return "SAVEPOINT " + a2
	case sqlite3.SQLITE_ATTACH:
		return "ATTACH"
	case sqlite3.SQLITE_DETACH:
		return "DETACH"
	case sqlite3.SQLITE_ALTER_TABLE:
		return "ALTER TABLE " + a2
	case sqlite3.SQLITE_REINDEX:
		return "REINDEX"
	case sqlite3.SQLITE_ANALYZE:
		return "ANALYZE"
	}
	if name, ok := ddlActions[op]; ok {
		return name + " " + a1
	}
	return fmt.Sprintf("action %d", op)
}

// isSchemaTable reports whether name is SQLite's schema table, under any
// of its names.
func isSchemaTable(name string) bool {
	switch strings.ToLower(name) {
	case "sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema":
		return true
	}
	return false
}

// ddlActions are the CREATE and DROP actions, named as the statements.
var ddlActions = map[int]string{
	sqlite3.SQLITE_CREATE_INDEX: "CREATE INDEX", sqlite3.SQLITE_CREATE_TABLE: "CREATE TABLE",
	sqlite3.SQLITE_CREATE_TEMP_INDEX: "CREATE TEMP INDEX", sqlite3.SQLITE_CREATE_TEMP_TABLE: "CREATE TEMP TABLE",
	sqlite3.SQLITE_CREATE_TEMP_TRIGGER: "CREATE TEMP TRIGGER", sqlite3.SQLITE_CREATE_TEMP_VIEW: "CREATE TEMP VIEW",
	sqlite3.SQLITE_CREATE_TRIGGER: "CREATE TRIGGER", sqlite3.SQLITE_CREATE_VIEW: "CREATE VIEW",
	sqlite3.SQLITE_CREATE_VTABLE: "CREATE VIRTUAL TABLE", sqlite3.SQLITE_DROP_INDEX: "DROP INDEX",
	sqlite3.SQLITE_DROP_TABLE: "DROP TABLE", sqlite3.SQLITE_DROP_TEMP_INDEX: "DROP TEMP INDEX",
	sqlite3.SQLITE_DROP_TEMP_TABLE: "DROP TEMP TABLE", sqlite3.SQLITE_DROP_TEMP_TRIGGER: "DROP TEMP TRIGGER",
	sqlite3.SQLITE_DROP_TEMP_VIEW: "DROP TEMP VIEW", sqlite3.SQLITE_DROP_TRIGGER: "DROP TRIGGER",
	sqlite3.SQLITE_DROP_VIEW: "DROP VIEW", sqlite3.SQLITE_DROP_VTABLE: "DROP VIRTUAL TABLE",
}
