package python_test

import (
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/pyvenv"
)

// startServer runs `sqlgym serve` on a port the kernel picks, with its
// data in a temporary directory, and returns its WebSocket URL. The
// server is asked to shut down when the test ends, and must do so cleanly.
func startServer(t *testing.T, bin string, extra ...string) string {
	t.Helper()
	args := append([]string{"--data-dir", t.TempDir(), "--shutdown-grace", "2s", "--log-level", "warn"}, extra...)
	p := binserver.Start(t, bin, args...)
	t.Cleanup(func() { p.Stop(t) })
	return p.URL
}

// httpURL is the /v1/rpc URL of the server behind a /v1/ws URL.
func httpURL(ws string) string {
	return strings.Replace(strings.Replace(ws, "ws://", "http://", 1), "/v1/ws", "/v1/rpc", 1)
}

// withoutSqlgymVars drops SQLGYM_* variables, which would set the
// tests' URLs.
func withoutSqlgymVars(env []string) []string { return pyvenv.WithoutSqlgymVars(env) }
