package sandbox

import (
	"context"
	"fmt"
	"time"

	"github.com/sqlgym/sqlgym/env"
)

// TimedOut is the error of a statement stopped by its timeout, of which
// waited went to waiting for a connection or a slot. When waiting took a
// good part of the time (a quarter or more), it says so.
func TimedOut(timeout, waited time.Duration) error {
	msg := fmt.Sprintf("query timed out after %s", timeout)
	if waited >= timeout/4 {
		msg += fmt.Sprintf(" (%s of it spent waiting to start: the server was busy)",
			waited.Round(time.Millisecond))
	}
	return env.NewQueryError(env.ErrTimeout, msg)
}

// TimedOutWaiting is the error of a statement whose time ran out before
// it got a connection or a slot; why says what it waited for.
func TimedOutWaiting(timeout time.Duration, why string) error {
	return env.NewQueryError(env.ErrTimeout, fmt.Sprintf(
		"query timed out after %s before it could start: %s; try again", timeout, why))
}

// WaitFailed is the error of a call that got no connection or slot: err
// is the wait's, parent the caller's context and wait the context of the
// wait, which ends at the call's timeout. It is a timeout saying why
// (what the call waited for) when the call's time ran out, the caller's
// error when the caller gave up, and err otherwise.
func WaitFailed(parent, wait context.Context, timeout time.Duration, err error, why string) error {
	if parent.Err() == nil && wait.Err() != nil {
		return TimedOutWaiting(timeout, why)
	}
	if parent.Err() != nil {
		return fmt.Errorf("query: %w", parent.Err())
	}
	return err
}
