package jsonrpc

import (
	"fmt"
	"sync/atomic"
	"unicode/utf8"

	"github.com/sqlgym/sqlgym/schemas"
)

// Defaults of the dispatcher's bounds, for the zero fields of the limits
// given to NewDispatcher.
const (
	DefaultMaxBatch      = 1024
	DefaultMaxReplyBytes = 16 << 20
)

// errorReserve is room kept in a reply budget for each call's shortest
// error reply (beyond its id), so that an error always fits; an error
// message is cut to maxErrorMessage bytes, as messages quote input.
const (
	errorReserve    = 128
	maxErrorMessage = 256
)

// spentMessage is the shortest error, sent when a longer one does not fit.
const spentMessage = "reply budget spent (the server's --max-reply-bytes)"

// replyBudget is what is left of one frame's reply bytes. The calls of a
// batch run concurrently and share it: a call starts only while some of
// it is left, and its encoded reply is sent only if it fits in what is
// left; otherwise the call's reply is an error, paid from the reserve
// kept for each call's error, so the frame never exceeds max.
type replyBudget struct {
	max  int64
	left atomic.Int64 // for results, beyond the reserve
}

// newReplyBudget returns a budget of max bytes of which reserve are kept
// for error replies; false when reserve does not fit.
func newReplyBudget(max, reserve int64) (*replyBudget, bool) {
	b := &replyBudget{max: max}
	b.left.Store(max - reserve)
	return b, reserve <= max
}

// spent reports whether nothing is left, so no more calls may start.
func (b *replyBudget) spent() bool { return b.left.Load() <= 0 }

// take takes n bytes if that many are left.
func (b *replyBudget) take(n int) bool {
	for {
		left := b.left.Load()
		if int64(n) > left {
			return false
		}
		if b.left.CompareAndSwap(left, left-int64(n)) {
			return true
		}
	}
}

// notRun is the error of a call that did not start because its batch's
// replies had already reached the budget.
func (b *replyBudget) notRun() *schemas.Error {
	return schemas.Errorf(schemas.CodeCapacity,
		"not run: this batch's replies already reached %s (the server's --max-reply-bytes); send fewer requests per batch",
		byteSize(b.max))
}

// tooLarge is the error that replaces a reply of n bytes that did not fit.
func (b *replyBudget) tooLarge(method string, n int) *schemas.Error {
	what := "the call ran, but its"
	if method == schemas.MethodStep || method == schemas.MethodClose || method == schemas.MethodReset {
		what = "the call ran and was recorded, but its"
	}
	return schemas.Errorf(schemas.CodeCapacity,
		"reply too large: %s reply of %s does not fit in what is left of the %s reply budget (the server's --max-reply-bytes)",
		what, byteSize(int64(n)), byteSize(b.max))
}

// byteSize formats n bytes for a message: "512 B", "3.5 MB", "16 MiB".
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// cutMessage shortens an error message to maxErrorMessage bytes, on a
// UTF-8 boundary: messages quote the client's input, which may be huge.
func cutMessage(e *schemas.Error) *schemas.Error {
	if len(e.Message) <= maxErrorMessage {
		return e
	}
	n := maxErrorMessage
	for n > 0 && !utf8.RuneStart(e.Message[n]) {
		n--
	}
	c := *e
	c.Message = e.Message[:n] + "... (cut)"
	return &c
}
