package python_test

import (
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/pyvenv"
)

// pythons finds every interpreter that can install the package offline
// (pyvenv.Pythons); without one the test skips, except in CI.
func pythons(t *testing.T) []string { return pyvenv.Pythons(t) }

// python3 is the first interpreter pythons finds.
func python3(t *testing.T) string { return pyvenv.Python3(t) }

// install pip-installs a copy of the sources into a new virtual
// environment with pip's extra flags (pyvenv.Install).
func install(t *testing.T, py string, flags ...string) string {
	t.Helper()
	return pyvenv.Install(t, py, flags...)
}

// copyFiles copies the files matching patterns (relative to this folder)
// to the same relative paths under dst.
func copyFiles(t *testing.T, dst string, patterns []string) {
	t.Helper()
	pyvenv.CopyFiles(t, ".", dst, patterns)
}
