package python_test

import (
	"fmt"
	"syscall"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/cutproxy"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// TestPythonClientFailover runs test_failover.py against two `sqlgym
// serve --takeover` replicas sharing a PostgreSQL store, behind a proxy
// that gives each connection to the first replica while it accepts: the
// script, on the blocking client or the asyncio one, kills (SIGKILL) or
// drains (SIGTERM) the first replica mid-run,
// and every episode must finish on the second, each step recorded once,
// with the rewards a run of the same actions there gets. The first case
// also runs test_an_episode_held_elsewhere, which neither the signal nor
// the client of the case touches (it waits out its reconnect_timeout on
// each transport): once is the whole of that check.
func TestPythonClientFailover(t *testing.T) {
	vpy := installedPackage(t)
	bin := binserver.Build(t)
	dir := t.TempDir()
	copyFiles(t, dir, []string{"test_failover.py"})
	for i, c := range []struct {
		sig    syscall.Signal
		client string
	}{{syscall.SIGKILL, "sync"}, {syscall.SIGTERM, "sync"}, {syscall.SIGKILL, "async"}, {syscall.SIGTERM, "async"}} {
		tests := []string{"test_failover"} // every test of the file
		if i > 0 {
			tests = []string{"test_failover.FailoverTest.test_every_episode_finishes_on_the_surviving_replica"}
		}
		sig := c.sig
		t.Run(c.client+" "+sig.String(), func(t *testing.T) {
			store, _ := pgtest.URL(t)
			first := binserver.StartReplica(t, bin, store, "first")
			second := binserver.StartReplica(t, bin, store, "second")
			p := cutproxy.Start(t, cutproxy.HostPort(first.URL), cutproxy.HostPort(second.URL))
			env := []string{"SQLGYM_TEST_FAILOVER_URL=" + p.URL(first.URL), "SQLGYM_TEST_FAILOVER_DIRECT=" + second.URL,
				fmt.Sprintf("SQLGYM_TEST_FAILOVER_PID=%d", first.Cmd.Process.Pid),
				fmt.Sprintf("SQLGYM_TEST_FAILOVER_SIGNAL=%d", int(sig)), "SQLGYM_TEST_FAILOVER_CLIENT=" + c.client}
			runScript(t, vpy, script{name: "failover", dir: dir, args: append([]string{"-m", "unittest", "-v"}, tests...),
				want: "episodes finished across signal"}, env)
			waitfor.Until(t, "the first replica gone", func() bool { return first.Cmd.Process.Signal(syscall.Signal(0)) != nil })
		})
	}
}
