//go:build !race

package suitegen

// The whole-of-Spider-dev build is compiled only without the race
// detector: under it the build's Go code runs about four times slower,
// and the package's other tests run the same code (Build, its workers,
// distillation and judging) under it on smaller data. .ci/run runs it in
// its integration step (scripts/test-integration), after the race run;
// scripts/test runs it with the rest.

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestSpiderDevSuites builds the suites of all of Spider-dev once, with
// the default configuration, seed 1 and 100 held-out databases per
// database, prints the figures (docs/benchmarks.md holds them) and judges
// on the built store as a server does: the coverage goal (of the
// neighbours some held-out database tells apart, the suites tell apart
// 99% or more), every gold correct on its own suite, the hand-written
// equivalent rewrites of testdata/equivalent.tsv correct on their suites,
// the near misses of testdata/near_misses.tsv told apart, and what the
// suites catch that the task's database pays. It takes
// minutes, so -short skips it.
func TestSpiderDevSuites(t *testing.T) {
	if testing.Short() {
		t.Skip("a build of all of Spider-dev takes minutes; -short skips it")
	}
	ds := spider(t)
	root := t.TempDir()
	rep, err := Build(context.Background(), ds, root, Config{Seed: 1, HeldOut: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + figures(rep))
	t.Run("coverage", func(t *testing.T) { checkCoverage(t, rep.Totals) })
	s := newSuiteJudging(t, root, ds)
	t.Run("golds", func(t *testing.T) { checkGoldsOnSuites(t, s) })
	t.Run("equivalent", func(t *testing.T) { checkRewrites(t, s) })
	t.Run("near_misses", func(t *testing.T) { checkNearMisses(t, s) })
	t.Run("catches", func(t *testing.T) { checkCatches(t, s) })
}

// checkCoverage checks the goal: of the neighbours some held-out database
// tells apart, the suites tell apart 99% or more, and more than the
// source databases alone.
func checkCoverage(t *testing.T, tot Totals) {
	if tot.SuiteShare() < 0.99 || tot.SuiteShare() <= tot.OriginalShare() {
		t.Errorf("the suites tell apart %.2f%% of what the held-out databases tell apart (the source databases %.2f%%); the goal is 99%%",
			100*tot.SuiteShare(), 100*tot.OriginalShare())
	}
}

// figures writes a build's report as a table, a database a line, and its
// totals.
func figures(rep *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-28s %6s %6s %5s %8s %8s %6s %9s %8s %8s\n", "db_id", "tasks", "golds", "files", "KiB", "seconds", "suite", "neighb.", "suite%", "source%")
	for _, db := range rep.Databases {
		var t Totals
		t.add(db)
		fmt.Fprintf(&b, "%-28s %6d %6d %5d %8d %8.1f %6.2f %9d %8.2f %8.2f\n", db.DBID, t.Tasks, t.Golds, t.Files, t.Bytes>>10,
			t.Seconds, t.MeanSuite(), t.Neighbours, 100*t.SuiteShare(), 100*t.OriginalShare())
	}
	t := rep.Totals
	fmt.Fprintf(&b, "%-28s %6d %6d %5d %8d %8.1f %6.2f %9d %8.2f %8.2f\n", "all", t.Tasks, t.Golds, t.Files, t.Bytes>>10,
		t.Seconds, t.MeanSuite(), t.Neighbours, 100*t.SuiteShare(), 100*t.OriginalShare())
	fmt.Fprintf(&b, "held-out-apart %d, by the suites %d, by the source databases %d; nondeterministic golds (tasks) %d; "+
		"candidates passed over for ties %d; gold failures %d; timeouts %d\n",
		t.HeldOutApart, t.SuiteOfHeldOut, t.OriginalOfHeldOut, t.Nondeterministic, t.TiedCandidates, t.GoldFailed, t.Timeouts)
	return b.String()
}
