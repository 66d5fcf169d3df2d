package sqlite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

// budget is one call's time: the caller's context (parent), the
// statement's (stmt), which ends timeout after the call began, and how
// much of it went to waiting for a connection and a running slot.
type budget struct {
	parent, stmt    context.Context
	timeout, waited time.Duration
}

// classify turns the error of one call into what the caller sees: a
// *env.QueryError when the statement is to blame, the error itself
// (wrapped) when the server or the caller's context is.
func classify(err error, g *guard, b budget, maxValue int) error {
	var qe *env.QueryError
	if errors.As(err, &qe) {
		return qe
	}
	if b.parent.Err() != nil {
		return fmt.Errorf("query: %w", b.parent.Err())
	}
	if b.stmt.Err() != nil {
		return timedOut(b)
	}
	if g.denied != "" { // SQLite words some denials as plain errors
		return env.NewQueryError(env.ErrDenied, g.denied)
	}
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return fmt.Errorf("query: %w", err)
	}
	switch se.Code {
	case sqlite3.ErrAuth:
		return env.NewQueryError(env.ErrDenied, "statement denied: not authorized")
	case sqlite3.ErrReadonly:
		return env.NewQueryError(env.ErrDenied, "statement denied: "+se.Error())
	case sqlite3.ErrTooBig, sqlite3.ErrNomem:
		return env.NewQueryError(env.ErrTooLarge,
			fmt.Sprintf("%s (a value may hold at most %d bytes)", se.Error(), maxValue))
	case sqlite3.ErrInterrupt:
		return timedOut(b)
	case sqlite3.ErrError, sqlite3.ErrConstraint, sqlite3.ErrMismatch, sqlite3.ErrRange:
		return env.NewQueryError(env.ErrSQL, se.Error())
	}
	return fmt.Errorf("query: %w", err)
}

// timedOut is the error of a statement stopped by its timeout.
func timedOut(b budget) error { return sandbox.TimedOut(b.timeout, b.waited) }
