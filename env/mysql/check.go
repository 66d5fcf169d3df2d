package mysql

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/env"
)

// leadingKeywords are the words a model's statement may begin with. The
// list is a first line only: the account's privileges and the READ ONLY
// transaction are the real guards.
var leadingKeywords = []string{"SELECT", "WITH", "VALUES", "TABLE", "EXPLAIN"}

// deniedNames are the functions and names a statement may not use, and
// why: each reaches past the statement (a file, a lock that outlives it,
// another server's replication state) or writes.
var deniedNames = map[string]string{
	"load_file":                         "reads a file of the server's",
	"into":                              "writes the result to a file or variable (SELECT ... INTO)",
	"outfile":                           "writes a file on the server",
	"dumpfile":                          "writes a file on the server",
	"get_lock":                          "takes a lock that outlives the statement",
	"release_lock":                      "works on locks that outlive the statement",
	"release_all_locks":                 "works on locks that outlive the statement",
	"is_free_lock":                      "tells of other sessions' locks",
	"is_used_lock":                      "tells of other sessions' locks",
	"master_pos_wait":                   "waits on replication",
	"master_gtid_wait":                  "waits on replication",
	"source_pos_wait":                   "waits on replication",
	"wait_for_executed_gtid_set":        "waits on replication",
	"wait_until_sql_thread_after_gtids": "waits on replication",
	"nextval":                           "writes a sequence",
	"setval":                            "writes a sequence",
	"lastval":                           "reads a session's sequence state",
	"processlist":                       "shows other sessions' statements",
	"performance_schema":                "shows other sessions' statements and the server's state",
	"procedure":                         "runs a procedure",
	"connection":                        "reads another connection's plan (EXPLAIN FOR CONNECTION)",
	"found_rows":                        "reads what the connection kept from its previous statement",
	"row_count":                         "reads what the connection kept from its previous statement",
	"last_insert_id":                    "reads or sets a value the connection keeps for its next statement",
	"service_get_read_locks":            "takes a lock that outlives the statement",
	"service_get_write_locks":           "takes a lock that outlives the statement",
	"service_release_locks":             "works on locks that outlive the statement",
	"binlog_gtid_pos":                   "reads the server's binary log",
	"wsrep_sync_wait_upto_gtid":         "waits on replication",
	"uuid":                              "tells of the server (its node id) and differs on every call",
	"uuid_short":                        "reads a counter every session of the server shares",
	"sys_guid":                          "tells of the server (its node id) and differs on every call",
}

// qualifiedDenied are schema names a statement may not qualify a name
// with ("mysql.user"): the server's own schemas, which tell of accounts
// and sessions.
var qualifiedDenied = map[string]bool{"mysql": true, "sys": true, "performance_schema": true}

// infoSchemaAllowed are the information_schema tables a statement may
// read: those that describe the database's own tables, which the account
// sees alone. The others tell of the server, its sessions or its
// statistics.
var infoSchemaAllowed = map[string]bool{
	"tables": true, "columns": true, "key_column_usage": true, "table_constraints": true,
	"referential_constraints": true, "statistics": true, "views": true, "schemata": true,
	"character_sets": true, "collations": true, "check_constraints": true,
}

// checkStatement refuses what MySQL offers a statement beyond reading
// its database: executable comments and optimizer hints (whose text the
// server runs, and whose SET_VAR changes a setting), user and system
// variables (state that would outlive the statement, or tell of the
// server), locking reads, and the names of deniedNames, qualifiedDenied
// and the information_schema tables not in infoSchemaAllowed. A denied
// name written as a quoted identifier is allowed where own reports it a
// table or column of the database's ("procedure" as a column). Every
// refusal is an env.ErrDenied *env.QueryError. all is the statement's
// tokens, as lex gives them.
func checkStatement(all []token, own func(name string) bool) error {
	for _, t := range all {
		c := t.text
		if t.kind == comment && (strings.HasPrefix(c, "/*!") || strings.HasPrefix(c, "/*M!") || strings.HasPrefix(c, "/*+")) {
			return denied("executable comments (/*! ... */) and optimizer hints (/*+ ... */) are not allowed")
		}
	}
	toks := significant(all)
	for i, t := range toks {
		n := t.name()
		switch {
		case t.kind == punct && t.text == "@":
			return denied("user and system variables (@name, @@name) are not allowed")
		case n == "":
		case deniedNames[n] != "" && !(t.kind == ident && own(n)):
			return denied(fmt.Sprintf("%s is not allowed: it %s", strings.ToUpper(n), deniedNames[n]))
		case followedBy(toks, i, "."):
			if qualifiedDenied[n] {
				return denied(fmt.Sprintf("the server's schema %s may not be read", n))
			}
			if n == "information_schema" && i+2 < len(toks) && !infoSchemaAllowed[toks[i+2].name()] {
				return denied(fmt.Sprintf("information_schema.%s may not be read; information_schema.tables and columns describe the database",
					toks[i+2].name()))
			}
		case n == "for" && (followedBy(toks, i, "update") || followedBy(toks, i, "share")),
			n == "lock" && followedBy(toks, i, "in"):
			return denied("locking reads (FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE) are not allowed")
		}
	}
	return nil
}

// followedBy reports whether the token after toks[i] is w (a word,
// compared without case, or punctuation).
func followedBy(toks []token, i int, w string) bool {
	if i+1 >= len(toks) {
		return false
	}
	next := toks[i+1]
	return next.text == w || next.kind == word && strings.EqualFold(next.text, w)
}

// significant drops space and comments.
func significant(toks []token) []token {
	out := toks[:0:0]
	for _, t := range toks {
		if t.kind != space && t.kind != comment {
			out = append(out, t)
		}
	}
	return out
}

// denied is the error of a refused statement.
func denied(why string) error {
	return env.NewQueryError(env.ErrDenied, "statement denied: "+why)
}
