package mysql

import (
	"fmt"
	"time"
)

// sqlMode is every session's sql_mode. It is pinned, whatever the
// server's default, so that both kinds of server read a statement alike
// and as check.go lexes it: "..." quotes a name (ANSI_QUOTES), as in
// standard SQL, PostgreSQL and SQLite, so that the names the tools show
// and the statements they build in double quotes run as they do on the
// other engines (a string takes single quotes); a backslash escapes in
// a string (no NO_BACKSLASH_ESCAPES); || is OR (no PIPES_AS_CONCAT). ONLY_FULL_GROUP_BY is left out: MariaDB's check of it
// does not see functional dependence, so a statement MySQL 8 accepts
// would fail on MariaDB (docs/engines.md).
const sqlMode = "ANSI_QUOTES,STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

// Session bounds that are not Config fields.
const (
	tmpTableBytes  = 16 << 20 // in-memory temporary tables, before they go to disk
	groupConcatMax = 1 << 20  // GROUP_CONCAT's result (MariaDB's default; MySQL's is 1024)
	recursionDepth = 1000     // rows of a recursive CTE (MySQL's default depth)
	// divDecimals are the decimals a quotient (and AVG) carries past its
	// dividend's: the most the server allows, so that 1 / 3 reads as the
	// float64 SQLite's 1.0 / 3 gives, not 0.3333 (the default 4).
	divDecimals = 30
)

// sessionParams are the settings every connection starts with, set once
// as it logs in (a statement cannot change them: SET and hints are
// refused). They bound a statement's memory: in-memory temporary tables
// (tmp_table_size, max_heap_table_size), GROUP_CONCAT's result, a
// recursive CTE's iterations, and on MariaDB the session's whole memory
// (max_session_mem_used) and each on-disk temporary table
// (tmp_disk_table_size); and fix how values are written (sql_mode,
// UTC time zone, the decimals of a quotient).
func sessionParams(maria bool, cfg Config) map[string]string {
	p := map[string]string{
		"sql_mode":                "'" + sqlMode + "'",
		"time_zone":               "'+00:00'",
		"tmp_table_size":          fmt.Sprint(tmpTableBytes),
		"max_heap_table_size":     fmt.Sprint(tmpTableBytes),
		"group_concat_max_len":    fmt.Sprint(groupConcatMax),
		"div_precision_increment": fmt.Sprint(divDecimals),
	}
	if maria {
		p["max_recursive_iterations"] = fmt.Sprint(recursionDepth)
		p["max_session_mem_used"] = fmt.Sprint(cfg.MaxSessionMemory)
		p["tmp_disk_table_size"] = fmt.Sprint(cfg.MaxTempDiskBytes)
	} else {
		p["cte_max_recursion_depth"] = fmt.Sprint(recursionDepth)
	}
	return p
}

// timeLimit is the assignment of the server's time limit of a
// statement, d: max_statement_time in seconds on MariaDB,
// max_execution_time in milliseconds on MySQL (which applies it to
// SELECT statements only, the only ones that run).
func timeLimit(maria bool, d time.Duration) string {
	ms := max(d.Milliseconds(), 1)
	if maria {
		return fmt.Sprintf("max_statement_time = %d.%03d", ms/1000, ms%1000)
	}
	return fmt.Sprintf("max_execution_time = %d", ms)
}
