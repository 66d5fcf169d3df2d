package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
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
	if context.Cause(b.stmt) == errStatementMemory {
		return env.NewQueryError(env.ErrTooLarge, fmt.Sprintf(
			"the statement used more than %d MiB of the server's memory, its bound; compute less at once (fewer rows in an aggregate, smaller values)",
			b.memLimit>>20))
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "08P01" && strings.HasPrefix(pe.Message, "bind message supplies 0 parameters") {
		return env.NewQueryError(env.ErrSQL, "the statement has parameters ($1, ...) but none can be supplied; write the values into the SQL")
	}
	if errors.As(err, &pe) {
		if k := kindOf(pe.Code); k != nil {
			if k == env.ErrTimeout {
				return timedOut(b)
			}
			return env.NewQueryError(k, message(pe, k))
		}
	}
	if b.stmt.Err() != nil {
		return timedOut(b)
	}
	var big *pgproto3.ExceededMaxBodyLenErr
	if errors.As(err, &big) {
		return env.NewQueryError(env.ErrTooLarge, fmt.Sprintf(
			"result too large: a row of %d bytes; at most %d are allowed", big.ActualBodyLen, big.MaxExpectedBodyLen))
	}
	return fmt.Errorf("query: %w", err)
}

// kindOf maps a SQLSTATE to the kind of a statement's failure, or nil
// for the server's own troubles (connection, shutdown, internal errors),
// which are not the model's.
func kindOf(code string) error {
	switch {
	case code == "57014": // query_canceled: statement_timeout, or our cancel
		return env.ErrTimeout
	case code == "25006", code == "42501", code == "2F003", code == "38003":
		// read_only_sql_transaction, insufficient_privilege,
		// prohibited_sql_statement_attempted (functions)
		return env.ErrDenied
	case strings.HasPrefix(code, "53"), strings.HasPrefix(code, "54"):
		// insufficient_resources, program_limit_exceeded
		return env.ErrTooLarge
	case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "57"), strings.HasPrefix(code, "58"),
		strings.HasPrefix(code, "XX"), strings.HasPrefix(code, "F0"), strings.HasPrefix(code, "28"):
		return nil
	}
	return env.ErrSQL
}

// message is what the model reads: PostgreSQL's own words, with its
// hint, and "statement denied: " before a denial.
func message(pe *pgconn.PgError, kind error) string {
	msg := pe.Message
	if pe.Hint != "" {
		msg += " (hint: " + pe.Hint + ")"
	}
	if kind == env.ErrDenied {
		msg = "statement denied: " + msg
	}
	return msg
}

// timedOut is the error of a statement stopped by its timeout.
func timedOut(b budget) error { return sandbox.TimedOut(b.timeout, b.waited) }

// waitFailed is the error of a call that got no slot or connection
// (sandbox.WaitFailed).
func waitFailed(b budget, err error, why string) error {
	return sandbox.WaitFailed(b.parent, b.stmt, b.timeout, err, why)
}
