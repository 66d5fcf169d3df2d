package rollout_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/internal/app/rollout"
	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// TestSIGINTLosesNothingAcknowledged runs the sqlgym binary on the demo
// with three episodes in flight, each stuck on the model after its first
// step was acknowledged, and sends it SIGINT: it exits, and the log holds
// the two finished episodes and the three interrupted ones with their
// acknowledged step, closed; report.json counts the three as unfinished.
func TestSIGINTLosesNothingAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := binserver.Build(t)
	w := newWorld(t) // for the demo's questions and golds
	ids := []string{"demo/library-001", "demo/library-002", "demo/library-003", "demo/library-004", "demo/library-005"}
	scripts := map[string][][]reply{}
	for _, id := range ids {
		scripts[w.question(t, id)] = [][]reply{{call("execute_sql", "SELECT 1"), call("submit", w.gold(t, id))}}
	}
	m := newStubModel(t, scripts)
	m.block = func(id, turn int) bool { return id >= 2 && turn == 1 }
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin, "rollout", "--model-url", m.url(), "--model", "stub-model", "--tasks", strings.Join(ids, ","),
		"--concurrency", "3", "--data-dir", dir, "--out", out, "--run", "sig", "--request-timeout", "1h")
	stderr := &binserver.LockedBuffer{}
	cmd.Stderr, cmd.Stdout = stderr, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitfor.Until(t, "three episodes stuck on the model", func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.blocked == 3
	})
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want status 1 (interrupted)\n%s", err, stderr)
	}
	if n := strings.Count(stderr.String(), "correct (2 steps)"); n != 2 {
		t.Errorf("%d episodes shown finished, want 2\n%s", n, stderr)
	}
	checkInterruptedLog(t, dir)
	var rep report.Report
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("report.json: %v\n%s", err, stderr)
	}
	if rep.Episodes != 2 || rep.Unfinished != 3 || rep.MeanAccuracy != 1 {
		t.Errorf("report: %d episodes, %d unfinished, mean %v; want 2, 3, 1", rep.Episodes, rep.Unfinished, rep.MeanAccuracy)
	}
}

// checkInterruptedLog checks the log the interrupted run left.
func checkInterruptedLog(t *testing.T, dir string) {
	t.Helper()
	l, err := filelog.Open(filelog.LogDir(dir), filelog.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	finished, closed := 0, 0
	err = l.Episodes(context.Background(), trajlog.Filter{Tags: map[string]string{rollout.TagRun: "sig"}, Incomplete: true},
		func(r *trajlog.Record) error {
			switch {
			case !r.Complete:
				t.Errorf("episode %s was not closed", r.EpisodeID)
			case report.EndedByStep(&r.Trajectory) && r.Outcome == "correct" && len(r.Steps) == 2:
				finished++
			case r.Outcome == "no_submit" && len(r.Steps) == 1 && r.Steps[0].Tool == "execute_sql":
				closed++
			default:
				t.Errorf("episode %s: outcome %s, %d steps", r.EpisodeID, r.Outcome, len(r.Steps))
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if finished != 2 || closed != 3 {
		t.Errorf("log holds %d finished and %d closed episodes, want 2 and 3", finished, closed)
	}
}
