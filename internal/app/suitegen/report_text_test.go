package suitegen

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/reward/testsuite"
)

// TestWriteSummary: the figures of the totals, in their lines; the
// held-out line only when held-out databases told something apart.
func TestWriteSummary(t *testing.T) {
	rep := &Report{Dataset: "shop", Totals: Totals{Databases: 3, Reused: 1, Tasks: 8, SuiteDatabases: 12, Files: 9, Bytes: 2_500_000,
		Seconds: 4.25, Neighbours: 40, ByOriginal: 10, BySuite: 30, Nondeterministic: 2, GoldFailed: 1, Timeouts: 5}}
	root := t.TempDir()
	var b strings.Builder
	rep.WriteSummary(&b, root)
	for _, want := range []string{
		"shop: test suites of 3 databases in " + filepath.Clean(testsuite.Dir(root, "shop", "")) + " (2 rebuilt, 1 current and kept)\n",
		"  tasks 8, suite databases per task 1.50, files 9, 2.5 MB, build time 4.2s\n",
		"  gold neighbours 40: told apart by the original database 10 (25.0%), by the suites 30 (75.0%)\n",
		"  golds that depend on tie order on the original database 2, failing golds 1, query timeouts 5\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "held-out") {
		t.Errorf("a held-out line without held-out databases:\n%s", b.String())
	}
	rep.Totals.HeldOutApart, rep.Totals.SuiteOfHeldOut, rep.Totals.OriginalOfHeldOut = 4, 3, 1
	b.Reset()
	rep.WriteSummary(&b, root)
	if want := "  of the neighbours held-out databases tell apart (4): the suites 75.00%, the original database 25.00%\n"; !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, b.String())
	}
}

// TestDone: a build's databases and time, or its current suites kept.
func TestDone(t *testing.T) {
	built := DBReport{Figures: testsuite.Figures{Files: 3, Candidates: 16, HeldOut: 4, Seconds: 1.26}}
	if got, want := built.Done(), "3 databases kept of 20 generated, 1.3s"; got != want {
		t.Errorf("built: %q, want %q", got, want)
	}
	kept := DBReport{Reused: true, Figures: testsuite.Figures{Files: 5}}
	if got, want := kept.Done(), "current, kept (5 databases)"; got != want {
		t.Errorf("kept: %q, want %q", got, want)
	}
}
