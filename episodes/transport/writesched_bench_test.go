package transport

import (
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
)

// BenchmarkReplyGathered times the scheduler's part of two replies of a
// socket whose frames run together: the first waits (arming the
// gathering timer), the second starts the writer, which takes both and
// ends. It reports allocations per pair, so a cost added to every reply
// shows here.
func BenchmarkReplyGathered(b *testing.B) {
	w := newWriteSched(newConnBudget(1<<20, clockwork.NewRealClock()), time.Hour, clockwork.NewRealClock(), func() {})
	defer w.stopTimer()
	reply := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	b.ReportAllocs()
	for b.Loop() {
		c1, c2 := w.start(64), w.start(64)
		if w.done(c1, reply) || !w.done(c2, reply) {
			b.Fatal("the second reply did not start the writer")
		}
		for tk, _ := w.next(); tk != taskNone; tk, _ = w.next() {
		}
	}
}
