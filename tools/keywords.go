package tools

import "strings"

// The words a shown name must not be written bare as, per dialect: a table
// or column called one of them is shown in double quotes (quoteIdent).

// pgReserved are PostgreSQL's keywords that cannot name a table or column
// unquoted: the rows of pg_get_keywords() with catcode 'R' (reserved) or
// 'T' (reserved, but may name a type or function), generated on
// PostgreSQL 15 with
//
//	SELECT word FROM pg_get_keywords() WHERE catcode IN ('R', 'T') ORDER BY word
//
// plus system_user, reserved since PostgreSQL 16 (src/include/parser/kwlist.h).
// The other categories, 'U' and 'C' (unreserved, and usable as a column
// name), name tables and columns as they are; TestPostgresKeywords checks
// the list against the server the tests run on.
var pgReserved = wordSet(`
	all analyse analyze and any array as asc asymmetric authorization binary both case cast
	check collate collation column concurrently constraint create cross current_catalog
	current_date current_role current_schema current_time current_timestamp current_user
	default deferrable desc distinct do else end except false fetch for foreign freeze from
	full grant group having ilike in initially inner intersect into is isnull join lateral
	leading left like limit localtime localtimestamp natural not notnull null offset on only
	or order outer overlaps placing primary references returning right select session_user
	similar some symmetric system_user table tablesample then to trailing true union unique
	user using variadic verbose when where window with
`)

// sqliteKeywords are every keyword of SQLite 3.54.1 (the version
// mattn/go-sqlite3 v1.14.53 bundles), generated with
// sqlite3_keyword_count() and sqlite3_keyword_name(). SQLite lets many of
// them name a table unquoted where its parser can tell, but its manual
// asks that a keyword used as a name be quoted
// (https://www.sqlite.org/lang_keywords.html), and the ones it cannot tell
// (select, order, index, values, ...) fail bare.
var sqliteKeywords = wordSet(`
	abort action add after all alter always analyze and as asc attach autoincrement before
	begin between by cascade case cast check collate column commit conflict constraint create
	cross current current_date current_time current_timestamp database default deferrable
	deferred delete desc detach distinct do drop each else end escape except exclude
	exclusive exists explain fail filter first following for foreign from full generated glob
	group groups having if ignore immediate in index indexed initially inner insert instead
	intersect into is isnull join key last left like limit match materialized natural no not
	nothing notnull null nulls of offset on or order others outer over partition plan pragma
	preceding primary query raise range recursive references regexp reindex release rename
	replace restrict returning right rollback row rows savepoint select set table temp
	temporary then ties to transaction trigger unbounded union unique update using vacuum
	values view virtual when where window with without
`)

// wordSet is the set of the space-separated words of s.
func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(s) {
		set[w] = true
	}
	return set
}
