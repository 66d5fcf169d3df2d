package postgres

import (
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqltext"
)

// deniedFunctions are functions the reader role may call but a model's
// statement may not: they reach past its own transaction, to other
// sessions (those of the same role included: every episode's), to other
// servers, or run SQL given as text, which the checks before the server
// never see; or they write something that outlives the rolled-back
// transaction (WAL, a transaction id's commit record, a sequence), or
// change the session's role or settings. docs/engines.md lists them.
var deniedFunctions = map[string]string{
	"pg_terminate_backend":           "it ends other sessions",
	"pg_cancel_backend":              "it cancels other sessions' statements",
	"pg_notify":                      "it signals other sessions",
	"query_to_xml":                   "it runs SQL given as text",
	"query_to_xmlschema":             "it runs SQL given as text",
	"query_to_xml_and_xmlschema":     "it runs SQL given as text",
	"cursor_to_xml":                  "it reads a cursor",
	"cursor_to_xmlschema":            "it reads a cursor",
	"table_to_xml":                   "it reads a table named as text",
	"table_to_xmlschema":             "it reads a table named as text",
	"table_to_xml_and_xmlschema":     "it reads a table named as text",
	"schema_to_xml":                  "it reads a schema named as text",
	"schema_to_xml_and_xmlschema":    "it reads a schema named as text",
	"schema_to_xmlschema":            "it reads a schema named as text",
	"database_to_xml":                "it reads every schema of the database",
	"database_to_xmlschema":          "it reads every schema of the database",
	"database_to_xml_and_xmlschema":  "it reads every schema of the database",
	"set_config":                     "it changes the session's role or settings",
	"txid_current":                   "it assigns a transaction id, which is written to the WAL",
	"nextval":                        "it advances a sequence, which no rollback undoes",
	"setval":                         "it sets a sequence, which no rollback undoes",
	"pg_switch_wal":                  "it writes to the WAL",
	"pg_create_restore_point":        "it writes to the WAL",
	"pg_reload_conf":                 "it reloads the server's configuration",
	"pg_rotate_logfile":              "it rotates the server's log",
	"pg_promote":                     "it promotes a standby",
	"pg_blocking_pids":               "it tells of other sessions",
	"pg_safe_snapshot_blocking_pids": "it tells of other sessions",
	"pg_backend_pid":                 "it tells of the server's sessions",
	"pg_lock_status":                 "it tells of other sessions' locks",
	"lowrite":                        "it writes a large object",
	"loread":                         "it reads a large object",
	"repeat":                         "one call can build a value of up to 1 GB, past any statement's memory bound",
	"lpad":                           "one call can build a value of up to 1 GB, past any statement's memory bound",
	"rpad":                           "one call can build a value of up to 1 GB, past any statement's memory bound",
	"array_fill":                     "one call can build a value of up to 1 GB, past any statement's memory bound",
}

// deniedFunctionPrefixes deny every function whose name starts with one
// of them, for the same reasons as deniedFunctions.
var deniedFunctionPrefixes = []struct{ prefix, why string }{
	{"dblink", "it connects to a server"},
	{"pg_stat_", "it tells of other sessions' statements or resets statistics"},
	{"pg_logical_", "it writes to the WAL or reads replication slots"},
	{"pg_replication_", "it changes replication state"},
	{"pg_create_", "it creates replication slots or restore points"},
	{"pg_drop_replication", "it changes replication state"},
	{"pg_current_", "it assigns a transaction id or tells of the WAL"},
	{"pg_wal", "it tells of or changes the WAL"},
	{"pg_advisory", "it takes locks that other sessions wait on"},
	{"pg_try_advisory", "it takes locks that other sessions wait on"},
	{"lo_", "it reads or writes large objects"},
	{"pg_ls_", "it lists the server's files"},
	{"pg_read_", "it reads the server's files"},
	{"pg_file_", "it writes the server's files"},
	{"pg_get_", "it reads the definitions of objects of other schemas"},
	{"pg_log_", "it writes to the server's log"},
}

// deniedRelations are catalog relations a model's statement may not name
// (anywhere: FROM, a subquery, a qualified name), because they tell of
// other sessions (their statements, locks, prepared statements) or of
// other tasks' schemas (their tables, columns, statistics). A column of
// the task's own schema with one of these names stays usable where it is
// qualified (t.pg_locks); unqualified, the name is the catalog's, which
// PostgreSQL searches first (sqlgym import refuses tables named so).
var deniedRelations = map[string]string{
	"pg_catalog":                 "the system catalog tells of other schemas and sessions",
	"pg_locks":                   "it tells of other sessions' locks",
	"pg_prepared_statements":     "it tells of prepared statements",
	"pg_prepared_xacts":          "it tells of other sessions' transactions",
	"pg_cursors":                 "it tells of open cursors",
	"pg_settings":                "it tells of the server's configuration",
	"pg_file_settings":           "it tells of the server's configuration files",
	"pg_hba_file_rules":          "it tells of the server's authentication",
	"pg_roles":                   "it tells of other roles",
	"pg_user":                    "it tells of other roles",
	"pg_authid":                  "it tells of other roles",
	"pg_auth_members":            "it tells of other roles",
	"pg_database":                "it tells of other databases",
	"pg_namespace":               "it lists other tasks' schemas",
	"pg_class":                   "it lists other tasks' tables",
	"pg_attribute":               "it lists other tasks' columns",
	"pg_tables":                  "it lists other tasks' tables",
	"pg_views":                   "it lists other tasks' views",
	"pg_matviews":                "it lists other tasks' views",
	"pg_indexes":                 "it lists other tasks' indexes",
	"pg_sequences":               "it lists other tasks' sequences",
	"pg_constraint":              "it lists other tasks' keys",
	"pg_description":             "it lists other tasks' comments",
	"pg_attrdef":                 "it lists other tasks' defaults",
	"pg_index":                   "it lists other tasks' indexes",
	"pg_depend":                  "it lists other tasks' objects",
	"pg_stats":                   "it holds other tasks' column statistics",
	"pg_stats_ext":               "it holds other tasks' column statistics",
	"pg_stats_ext_exprs":         "it holds other tasks' column statistics",
	"pg_statistic":               "it holds other tasks' column statistics",
	"pg_backend_memory_contexts": "it tells of the server's memory",
	"pg_shmem_allocations":       "it tells of the server's memory",
}

// deniedRelationPrefixes deny every relation whose name starts with one
// of them: the statistics views (pg_stat_activity, pg_stat_statements,
// pg_statio_*, ...), which tell of other sessions and their statements.
var deniedRelationPrefixes = []string{"pg_stat_", "pg_statio_", "pg_replication_"}

// denial is why a statement may not run: the name it uses and the reason;
// relation is true when the name was denied as a relation, which a
// qualified name of the task's own schema of that name excuses.
type denial struct {
	name, why string
	relation  bool
}

// checkFunctions denies a statement that calls a denied function or names
// a denied relation, however it is spelled (any case, quoted, or
// qualified with its schema). own reports whether a name is a table or
// column of the task's own schema; it is asked only about denied
// relation names written after a dot (t.name), which unqualified never
// reach the schema's own objects.
func checkFunctions(stmt string, own func(string) bool) error {
	toks := sqltext.Tokens(stmt)
	for i, t := range toks {
		name, ok := nameOf(t)
		if !ok {
			continue
		}
		d, denied := deniedName(name, calls(toks[i+1:]))
		if denied && d.relation && own != nil && qualified(toks[:i]) && own(name) {
			continue
		}
		if denied {
			return env.NewQueryError(env.ErrDenied, "statement denied: "+d.name+" may not be used: "+d.why)
		}
	}
	return nil
}

// nameOf is a word's or a quoted identifier's name as PostgreSQL reads it.
func nameOf(t sqltext.Token) (string, bool) {
	switch t.Kind {
	case sqltext.Word:
		return strings.ToLower(t.Text), true
	case sqltext.Ident:
		return strings.ReplaceAll(strings.Trim(t.Text, `"`), `""`, `"`), true
	}
	return "", false
}

// deniedName reports whether name, called (followed by its arguments) or
// not, is denied, and why.
func deniedName(name string, called bool) (denial, bool) {
	if called {
		if why, ok := deniedFunctions[name]; ok {
			return denial{name: name + "()", why: why}, true
		}
		for _, p := range deniedFunctionPrefixes {
			if strings.HasPrefix(name, p.prefix) {
				return denial{name: name + "()", why: p.why}, true
			}
		}
	}
	if why, ok := deniedRelations[name]; ok {
		return denial{name: name, why: why, relation: true}, true
	}
	for _, p := range deniedRelationPrefixes {
		if strings.HasPrefix(name, p) {
			return denial{name: name, why: "it tells of other sessions and their statements", relation: true}, true
		}
	}
	return denial{}, false
}

// qualified reports whether the tokens before a name end with a dot.
func qualified(before []sqltext.Token) bool {
	for i := len(before) - 1; i >= 0; i-- {
		switch t := before[i]; t.Kind {
		case sqltext.Space, sqltext.Comment:
			continue
		default:
			return t.Text == "."
		}
	}
	return false
}

// calls reports whether the tokens after a name open its arguments.
func calls(rest []sqltext.Token) bool {
	for _, t := range rest {
		if t.Kind == sqltext.Space || t.Kind == sqltext.Comment {
			continue
		}
		return t.Text == "("
	}
	return false
}
