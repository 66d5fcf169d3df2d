package python_test

import (
	"os"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/pyvenv"
)

// shared is the one virtual environment of the tests that only need the
// package installed (the client's tests, the failover's): installed the
// way the README says (python3 -m venv, then pip install
// --no-build-isolation, offline) by the first of them, used by the rest,
// and removed when the package's tests end (TestMain). What the install
// itself does is TestInstallAsDocumented's and TestQuickStartAsWritten's,
// which make environments of their own.
var shared struct {
	once sync.Once
	dir  string // the environment's folder; empty until made
	vpy  string // its interpreter; empty if the install failed
}

// installedPackage returns the shared environment's interpreter,
// installing the package into it on the first call. A test after a
// failed install fails too, pointing at the first.
func installedPackage(t *testing.T) string {
	t.Helper()
	py := python3(t) // skips, as each test did, where no interpreter can install
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "sqlgym-python-venv-")
		if err != nil {
			t.Fatal(err)
		}
		shared.dir = dir
		shared.vpy = pyvenv.InstallIn(t, dir, py, "--no-build-isolation")
	})
	if shared.vpy == "" {
		t.Fatal("installing the package failed (see the first test that needed it)")
	}
	return shared.vpy
}

// removeShared removes the shared environment, if a test made it.
func removeShared() {
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
}
