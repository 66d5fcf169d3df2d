// Package needs is how a test that needs something from outside the
// repository (a database server, a program, the shared benchmark data)
// goes without it: it skips, saying what is missing and how to get it,
// except under CI=true, where nothing may skip and it fails instead.
// Each skip is also noted in the file $SQLGYM_SKIPS names, where set,
// for scripts/test's summary at its end (scripts/test-summary).
package needs

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// SkipsEnv names the file each skip is noted in, one line each:
// "skipped<TAB><package dir> <test>: <why>".
const SkipsEnv = "SQLGYM_SKIPS"

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
	note(tb, msg)
	tb.Skip(msg)
}

// note appends the skip to $SQLGYM_SKIPS, where set; a note that cannot
// be written is logged with the test.
func note(tb testing.TB, msg string) {
	path := os.Getenv(SkipsEnv)
	if path == "" {
		return
	}
	dir, _ := os.Getwd()
	line := fmt.Sprintf("skipped\t%s %s: %s\n", dir, tb.Name(), strings.ReplaceAll(msg, "\n", " "))
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.WriteString(line) // one write: notes of parallel test binaries do not interleave
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		tb.Logf("%s: %v", SkipsEnv, err)
	}
}
