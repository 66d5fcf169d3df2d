package repl

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
)

// The sqlgym binary the terminal tests run, built once per test process
// into binDir (TestMain removes it).
var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  string
)

// sqlgymBinary builds cmd/sqlgym, once for all the tests of a run, and
// returns its path.
func sqlgymBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sqlgym-repl-test-")
		if err != nil {
			binErr = err.Error()
			return
		}
		binDir = dir
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			binErr = "go env GOMOD: " + err.Error()
			return
		}
		build := exec.Command("go", "build", "-o", filepath.Join(dir, "sqlgym"), "./cmd/sqlgym")
		build.Dir = filepath.Dir(strings.TrimSpace(string(out)))
		if out, err := build.CombinedOutput(); err != nil {
			binErr = "go build: " + err.Error() + "\n" + string(out)
			return
		}
		binPath = filepath.Join(dir, "sqlgym")
	})
	if binErr != "" {
		t.Fatal(binErr)
	}
	return binPath
}

// removeBinary removes what sqlgymBinary built.
func removeBinary(int) {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

// startRepl runs `sqlgym repl ARGS...` on a terminal of cols columns,
// keeping no history; env adds to its environment. With no --url among
// args it serves the demo in its own process, recording under a
// temporary --data-dir.
func startRepl(t *testing.T, cols uint16, args []string, env ...string) *ptySession {
	t.Helper()
	full := append([]string{"repl", "--history", ""}, args...)
	if !hasFlag(args, "--url") && !hasFlag(args, "--data-dir") {
		full = append(full, "--data-dir", t.TempDir())
	}
	return runOnPTY(t, exec.Command(sqlgymBinary(t), full...), cols, env...)
}

func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// startServe runs `sqlgym serve ARGS...` on addr (127.0.0.1:0 for any
// port), recording under dataDir.
func startServe(t *testing.T, addr, dataDir string, args ...string) *binserver.Process {
	t.Helper()
	return binserver.Start(t, sqlgymBinary(t), append([]string{"--addr", addr, "--data-dir", dataDir}, args...)...)
}

// startReplElsewhere runs sqlgym serve on the demo and sqlgym repl --url
// on it, at a terminal of 120 columns, and starts an episode of
// demo/library-001.
func startReplElsewhere(t *testing.T) *ptySession {
	t.Helper()
	srv := startServe(t, "127.0.0.1:0", t.TempDir())
	p := startRepl(t, 120, []string{"--url", srv.URL}, "NO_COLOR=1")
	p.expect("sqlgym> ")
	p.line(".reset demo/library-001", "library[0/8]> ")
	return p
}

// freeAddr returns a loopback address with a port that was free a moment
// ago, for a server that must come back on the same address.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}
