package repl

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/testserver"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestMain checks for leaked goroutines, or, in a child process started
// by a terminal test, runs the REPL on the pseudo-terminal it was given.
func TestMain(m *testing.M) {
	if os.Getenv(childURL) != "" {
		os.Exit(runChild())
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(removeBinary))
}

// testServer is a real episode server over the embedded demo dataset,
// configured as sqlgym repl configures its in-process one.
type testServer struct {
	url  string
	stop func() // closes the server and its sockets; the test's cleanup calls it too
}

// startServer serves the demo on a loopback port for the test's length;
// rowLimit 0 keeps the default of 50.
func startServer(t *testing.T, rowLimit int) *testServer {
	t.Helper()
	return startServerWith(t, rowLimit, nil)
}

// startServerPaying is startServer with the server's reward spec.
func startServerPaying(t *testing.T, rowLimit int, spec schemas.RewardSpec) *testServer {
	t.Helper()
	return startServerWith(t, rowLimit, func(cfg *episodes.Config, _ string) { cfg.Reward = spec })
}

// startServerWith is startServer with the episode manager's config
// changed by change (nil: as it is).
func startServerWith(t *testing.T, rowLimit int, change func(cfg *episodes.Config, dir string)) *testServer {
	t.Helper()
	return startDemo(t, testserver.DemoOptions{RowLimit: rowLimit, Config: change})
}

// startDemo serves the demo as o shapes it, with the turns of sqlgym
// repl's in-process server (8) unless o.Config changes them.
func startDemo(t *testing.T, o testserver.DemoOptions) *testServer {
	t.Helper()
	change := o.Config
	o.Config = func(cfg *episodes.Config, dir string) {
		cfg.MaxTurns = 8
		if change != nil {
			change(cfg, dir)
		}
	}
	d := testserver.StartDemo(t, o)
	return &testServer{url: d.URL, stop: d.Stop}
}

// Environment of a child process that runs the REPL.
const (
	childURL     = "SQLGYM_REPL_TEST_URL"
	childHistory = "SQLGYM_REPL_TEST_HISTORY"
)

// runChild runs the REPL on the process's standard input and output, as
// sqlgym repl does, and returns the exit code.
func runChild() int {
	err := Run(context.Background(), Config{
		URL: os.Getenv(childURL), Stdin: os.Stdin, Stdout: os.Stdout, HistoryFile: os.Getenv(childHistory),
	})
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	return 0
}

// pipe runs the REPL on input, as a pipe would feed it, and returns
// what it printed.
func pipe(t *testing.T, url, input string, echo bool) string {
	t.Helper()
	var out strings.Builder
	cfg := Config{URL: url, Stdin: strings.NewReader(input), Stdout: &out, Echo: echo}
	if err := Run(context.Background(), cfg); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	return out.String()
}

// checkOutput fails t unless got holds each of want, in that order, and
// none of not.
func checkOutput(t *testing.T, got string, want, not []string) {
	t.Helper()
	rest := got
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("output lacks %q (after the earlier matches); output:\n%s", w, got)
		}
		rest = rest[i+len(w):]
	}
	for _, n := range not {
		if strings.Contains(got, n) {
			t.Errorf("output holds %q; output:\n%s", n, got)
		}
	}
}
