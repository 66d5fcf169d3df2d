// Package python_test installs the Python package the way its README says
// and runs its tests, and its examples, against real sqlgym servers, so
// that `go test ./...` covers the client RL frameworks use. It builds
// cmd/sqlgym, starts one server without and one with --token (and one on
// Spider-dev for the GRPO rollout), pip-installs the package into a new
// virtual environment (one, shared by the tests that only need the
// package installed), and runs `python -m unittest` on copies of the test
// files, away from the sources, so that they import the installed package.
package python_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(withCleanup{m, removeShared})
}

// withCleanup runs the tests, then cleanup, before goleak looks for
// goroutines left behind.
type withCleanup struct {
	m       *testing.M
	cleanup func()
}

// Run runs the tests and then the cleanup.
func (w withCleanup) Run() int {
	defer w.cleanup()
	return w.m.Run()
}

const testToken = "python-test-token"

// script is one run of the Python interpreter.
type script struct {
	name     string
	dir      string // working directory; empty: this one
	args     []string
	want     string // in the output
	wantExit int
}

func TestPythonClient(t *testing.T) {
	vpy := installedPackage(t)
	bin := binserver.Build(t)
	plain := startServer(t, bin)
	guarded := startServer(t, bin, "--token", testToken)
	tests := t.TempDir()
	copyFiles(t, tests, []string{"test_*.py"})
	demoTasks, err := filepath.Abs("../demo/tasks.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"SQLGYM_TEST_URL=" + plain, "SQLGYM_TEST_TOKEN_URL=" + guarded, "SQLGYM_TEST_TOKEN=" + testToken,
		"SQLGYM_TEST_DEMO_TASKS=" + demoTasks, "SQLGYM_TEST_INSTALLED=1"}

	for _, s := range []script{
		{name: "unittest", dir: tests, args: []string{"-m", "unittest", "-v", "test_client", "test_aio", "test_message", "test_resume"}, want: "OK"},
		{name: "example", args: []string{"rollout_example.py", "--url", plain, "--tasks", "3", "--group-size", "2"},
			want: "6 episodes:"},
		{name: "example with native tool calls", args: []string{"rollout_example.py", "--url", plain, "--tasks", "2",
			"--group-size", "2", "--native"}, want: "text: I will look at the tables first."},
		{name: "example over http with token", args: []string{"rollout_example.py", "--url", httpURL(guarded),
			"--token", testToken, "--tasks", "2", "--group-size", "2"}, want: "4 episodes:"},
		{name: "grpo rollout on the demo", args: []string{"grpo_rollout.py", "--url", plain, "--dataset", "demo",
			"--groups", "8", "--group-size", "4", "--concurrency", "8"},
			want: "32 rollouts in 8 groups: 32 ended, 0 dropped"},
		{name: "grpo rollout with a token", args: []string{"grpo_rollout.py", "--url", guarded, "--token", testToken,
			"--groups", "2", "--group-size", "3", "--concurrency", "6"}, want: "6 rollouts in 2 groups: 6 ended, 0 dropped"},
		{name: "grpo rollout dropping every episode", args: []string{"grpo_rollout.py", "--url", plain,
			"--groups", "2", "--group-size", "2", "--max-turns", "65"}, want: "4 rollouts in 2 groups: 0 ended, 4 dropped",
			wantExit: 1},
	} {
		t.Run(s.name, func(t *testing.T) { runScript(t, vpy, s, env) })
	}
}

// TestGRPORolloutSpiderDev runs the GRPO example on the real Spider-dev
// data: 24 groups of 4, 32 episodes in flight, none dropped.
func TestGRPORolloutSpiderDev(t *testing.T) {
	data := spiderdev.Dir(t)
	py := python3(t)
	url := startServer(t, binserver.Build(t), "--dataset", "spider:"+data)
	runScript(t, py, script{args: []string{"grpo_rollout.py", "--url", url, "--dataset", "spider-dev",
		"--groups", "24", "--group-size", "4", "--concurrency", "32"},
		want: "96 rollouts in 24 groups: 96 ended, 0 dropped"}, nil)
}

// runScript runs py with s's arguments and checks its exit status and output.
func runScript(t *testing.T, py string, s script, env []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, s.args...)
	cmd.Dir = s.dir
	cmd.Env = append(append(withoutSqlgymVars(os.Environ()), "PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1"), env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	code := 0
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("python %s: %v\n%s", strings.Join(s.args, " "), err, out)
	}
	if code != s.wantExit {
		t.Fatalf("python %s: exit status %d, want %d\n%s", strings.Join(s.args, " "), code, s.wantExit, out)
	}
	if !bytes.Contains(out, []byte(s.want)) {
		t.Fatalf("output lacks %q:\n%s", s.want, out)
	}
	if bytes.Contains(out, []byte("Traceback (most recent call last)")) {
		t.Fatalf("python %s: a traceback:\n%s", strings.Join(s.args, " "), out)
	}
	if bytes.Contains(out, []byte("skipped")) {
		t.Fatalf("python tests were skipped, though the servers are up:\n%s", out)
	}
	t.Logf("%s", out)
}
