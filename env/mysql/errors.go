package mysql

import (
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlgym/sqlgym/env"
)

// Server error numbers the engine tells apart. Sources: MariaDB's
// include/my_base.h and sql/share/errmsg-utf8.txt, MySQL's
// mysqld_errmsg.h.
const (
	erQueryInterrupted  = 1317 // KILL QUERY
	erStatementTimeout  = 1969 // MariaDB: max_statement_time exceeded
	erExecutionTimeout  = 3024 // MySQL: max_execution_time exceeded
	erOutOfMemory       = 1041 // out of memory
	erOptionPrevents    = 1290 // e.g. max_session_mem_used, --read-only
	erReadOnlyTx        = 1792 // cannot execute statement in a READ ONLY transaction
	erTableAccessDenied = 1142
	erColumnDenied      = 1143
	erDBAccessDenied    = 1044
	erSpecificAccess    = 1227 // needs SUPER, PROCESS, ...
	erAccessDenied      = 1045
	erKillDenied        = 1095 // KILL of another account's session
	erProcAccessDenied  = 1370 // EXECUTE of a routine
	erRecordFileFull    = 1114 // a temporary table is full
	erNetPacketTooLarge = 1153
	erRecursionLimit    = 3636 // MySQL: cte_max_recursion_depth
	erWarnAllowedPacket = 1301 // a string function's result past max_allowed_packet
	erDerivedTooLarge   = 1104 // too many rows examined (SQL_BIG_SELECTS)
	erTooBigSelect      = 1137
	erLockWait          = 1205
	erMemSessionLimit   = 4036 // MariaDB: max_session_mem_used (some versions)
)

// classify turns the error of one call into what the caller sees: a
// *env.QueryError when the statement is to blame, the error itself when
// the server, the connection or the caller's context is.
func classify(err error, b budget) error {
	var qe *env.QueryError
	if errors.As(err, &qe) {
		return qe
	}
	if b.parent.Err() != nil {
		return fmt.Errorf("query: %w", b.parent.Err())
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		if k := kindOf(me); k != nil {
			if k == env.ErrTimeout {
				return timedOut(b)
			}
			msg := me.Message
			if k == env.ErrDenied {
				msg = "statement denied: " + msg
			}
			return env.NewQueryError(k, msg)
		}
	}
	if b.stmt.Err() != nil {
		return timedOut(b)
	}
	return fmt.Errorf("query: %w", err)
}

// kindOf maps a server error to the kind of a statement's failure, or nil
// for the server's own troubles (connection, shutdown, internal errors),
// which are not the model's.
func kindOf(me *mysql.MySQLError) error {
	switch me.Number {
	case erQueryInterrupted, erStatementTimeout, erExecutionTimeout, erLockWait:
		return env.ErrTimeout
	case erReadOnlyTx, erTableAccessDenied, erColumnDenied, erDBAccessDenied, erSpecificAccess, erAccessDenied,
		erKillDenied, erProcAccessDenied:
		return env.ErrDenied
	case erOutOfMemory, erOptionPrevents, erRecordFileFull, erNetPacketTooLarge, erRecursionLimit,
		erWarnAllowedPacket, erDerivedTooLarge, erTooBigSelect, erMemSessionLimit:
		return env.ErrTooLarge
	}
	switch string(me.SQLState[:2]) {
	case "08", "HY":
		if me.Number >= 1000 && me.Number < 2000 && string(me.SQLState[:]) == "HY000" {
			return env.ErrSQL // most statement errors carry the generic state
		}
		return nil
	}
	return env.ErrSQL
}
