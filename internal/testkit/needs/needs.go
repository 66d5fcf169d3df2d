// Package needs is how a test that needs something from outside the
// repository (a database server, a program, the shared benchmark data)
// goes without it: it skips, saying what is missing and how to get it,
// except under CI=true, where nothing may skip and it fails instead.
package needs

import (
	"os"
	"testing"
)

// CI reports whether the tests run under CI=true (.ci/run), where every
// service and program a test needs must be there.
func CI() bool { return os.Getenv("CI") == "true" }

// Missing ends the test for want of something: a skip, or under CI=true
// a failure. msg says what is missing and how to get it.
func Missing(tb testing.TB, msg string) {
	tb.Helper()
	if CI() {
		tb.Fatalf("%s (CI=true requires it)", msg)
	}
	tb.Skip(msg)
}
