package episodes

import (
	"errors"
	"fmt"
)

// Kind says what kind of failure a call on the Manager met, in the
// domain's words and no protocol's. Every surface maps a kind to its own
// code: the JSON-RPC protocol (episodes/jsonrpc, errors.go) to its error
// codes, and a surface to come (OpenEnv, MCP) to its own. A Kind is also
// the sentinel error of its kind: errors.Is(err, NotFound) holds for an
// *Error of kind NotFound.
type Kind uint8

// The kinds of failure. Whatever the kind, a call that fails changed
// nothing: no step was taken, recorded or paid, except where Internal
// says otherwise.
const (
	// Internal is a fault of the server, or a caller that gave up: a
	// database that would not open, a trajectory write that failed (the
	// step it records was taken), a judge that failed, a context ended.
	// It is the kind of every error that carries no other (KindOf).
	Internal Kind = iota
	// InvalidArgument: the call's arguments are malformed or out of
	// range (a reset's max_turns, action_format, reward, tags or tools;
	// a step's usage, finish reason or message; a tasks page past its
	// bound; a reset or step larger than one episode may keep). The same
	// call fails again.
	InvalidArgument
	// TaskNotFound: no served dataset or task has the name asked for.
	TaskNotFound
	// NotFound: no live episode has the id, nor any the Manager still
	// remembers (it may have expired, or ended before a restart: the
	// trajectory store has it).
	NotFound
	// Ended: the episode has already ended and takes no more steps.
	Ended
	// Busy: too many steps of the episode already wait their turn
	// (Config.StepQueue); retry once their replies have come.
	Busy
	// Capacity: a bound of the whole server is reached (live episodes,
	// the bytes they keep); retry later, or close episodes.
	Capacity
	// Draining: the server is shutting down (Manager.Drain) and starts no
	// new episode; its live episodes still take steps until it stops.
	// Start the episode on another replica.
	Draining
	// Elsewhere: the episode is driven by another replica that is live,
	// or this replica handed it back while draining (takeover.go). Send
	// the call again through the load balancer, after a moment.
	Elsewhere
)

// kindText is each kind's text: the error of its sentinel, and the
// first words of the messages of the episode's states (NotFound, Ended,
// Busy, Capacity, Draining).
var kindText = [...]string{
	Internal:        "internal error",
	InvalidArgument: "invalid argument",
	TaskNotFound:    "task not found",
	NotFound:        "episode not found",
	Ended:           "episode already ended",
	Busy:            "episode busy",
	Capacity:        "capacity reached",
	Draining:        "server draining",
	Elsewhere:       "episode elsewhere",
}

// Error returns the kind's text, so that a Kind is its own sentinel.
func (k Kind) Error() string {
	if int(k) < len(kindText) {
		return kindText[k]
	}
	return fmt.Sprintf("kind %d", k)
}

// String returns the kind's text.
func (k Kind) String() string { return k.Error() }

// Error is a failure of a kind other than Internal, with the message
// that says what was wrong in words the caller can act on. Every error
// of the Manager that has a kind is an *Error.
type Error struct {
	Kind    Kind
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Is reports whether target is the error's kind.
func (e *Error) Is(target error) bool {
	k, ok := target.(Kind)
	return ok && k == e.Kind
}

// errorf builds an *Error of kind k with a formatted message.
func errorf(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, args...)}
}

// KindOf returns the kind of err: its *Error's, or a Kind it wraps, and
// Internal for any other error (nil included).
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	var k Kind
	if errors.As(err, &k) {
		return k
	}
	return Internal
}

// stateErrorf builds an *Error of kind k whose message opens with the
// kind's text, as the messages of an episode's states and of the server's
// capacity (NotFound, Ended, Busy, Capacity) do.
func stateErrorf(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Message: k.Error() + ": " + fmt.Sprintf(format, args...)}
}
