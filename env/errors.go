package env

import "errors"

// Kinds of QueryError: what went wrong with a statement the model sent.
var (
	ErrSQL            = errors.New("sql error")
	ErrTimeout        = errors.New("query timeout")
	ErrDenied         = errors.New("statement denied")
	ErrMultiStatement = errors.New("multiple statements")
	ErrTooLarge       = errors.New("result too large")
	ErrNoSuchTable    = errors.New("no such table")
	ErrNoSuchColumn   = errors.New("no such column")
	ErrUnavailable    = errors.New("unavailable")
)

// QueryError is a statement's failure that belongs to whoever wrote the
// statement. Message is what the model sees, the engine's own words where
// there are any; Kind is one of the Err* values above, for errors.Is.
type QueryError struct {
	Kind    error
	Message string
}

// Error returns the message the model sees.
func (e *QueryError) Error() string { return e.Message }

// Unwrap returns the kind, so errors.Is(err, env.ErrTimeout) works.
func (e *QueryError) Unwrap() error { return e.Kind }

// NewQueryError returns a *QueryError of the given kind.
func NewQueryError(kind error, message string) *QueryError {
	return &QueryError{Kind: kind, Message: message}
}
