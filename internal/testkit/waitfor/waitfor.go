// Package waitfor lets a test wait for an observable event (a counter, a
// metric, a pool statistic reaching a value) with a deadline, polling it
// on a ticker: tests never synchronise by sleeping, and every package's
// tests poll the same way.
package waitfor

import (
	"testing"
	"time"
)

// Timeout is how long Until waits before it fails the test: long enough
// for a loaded CI machine, short of the test binary's own timeout.
const Timeout = 20 * time.Second

// Until polls cond every millisecond until it holds, and fails tb (with
// what it was waiting for) when it has not held for Timeout.
func Until(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	if !Within(Timeout, cond) {
		tb.Fatalf("waited %s for %s", Timeout, what)
	}
}

// Within polls cond every millisecond until it holds or d has passed, and
// reports whether it held.
func Within(d time.Duration, cond func() bool) bool {
	deadline := time.After(d)
	poll := time.NewTicker(time.Millisecond)
	defer poll.Stop()
	for !cond() {
		select {
		case <-deadline:
			return cond()
		case <-poll.C:
		}
	}
	return true
}
