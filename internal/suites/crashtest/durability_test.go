package crashtest

import (
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
)

// Under --durability interval and none the server replies to an
// episode's last step before its end line is fsynced; the line is with
// the operating system by then, so a kill -9 of the server still loses
// no episode whose end was acknowledged. (What a power loss takes is
// beyond a process test: see docs/trajectories.md#durability.)
func TestKill9KeepsEveryAnsweredEpisodeWithoutFsync(t *testing.T) {
	bin := binserver.Build(t)
	for _, mode := range []string{"interval", "none"} {
		t.Run(mode, func(t *testing.T) {
			args := []string{"--durability", mode, "--sync-interval", "50ms"}
			checkMode(t, bin, mode, args)
			killRounds(t, bin, args...)
		})
	}
}

// checkMode: the binary, given args, opens its log in mode.
func checkMode(t *testing.T, bin, mode string, args []string) {
	t.Helper()
	srv := startServer(t, bin, t.TempDir(), append(args, "--log-level", "info")...)
	srv.Stop(t)
	if want := `"durability":"` + mode + `"`; !srv.WaitLog(want) {
		t.Fatalf("the server did not open its log with %s:\n%s", want, srv.Stderr)
	}
}
