package suitegen

import (
	"fmt"
	"io"

	"github.com/sqlgym/sqlgym/reward/testsuite"
)

// WriteSummary writes what the build made, in a few lines for a person:
// where the suites are (under root), their size and time, how many of the
// golds' neighbours the original database and the suites tell apart (and
// the held-out figure, when drawn), and the golds that failed or depend on
// tie order.
func (r *Report) WriteSummary(w io.Writer, root string) {
	t := r.Totals
	fmt.Fprintf(w, "%s: test suites of %d databases in %s (%d rebuilt, %d current and kept)\n",
		r.Dataset, t.Databases, testsuite.Dir(root, r.Dataset, ""), t.Databases-t.Reused, t.Reused)
	fmt.Fprintf(w, "  tasks %d, suite databases per task %.2f, files %d, %.1f MB, build time %.1fs\n",
		t.Tasks, t.MeanSuite(), t.Files, float64(t.Bytes)/1e6, t.Seconds)
	fmt.Fprintf(w, "  gold neighbours %d: told apart by the original database %d (%.1f%%), by the suites %d (%.1f%%)\n",
		t.Neighbours, t.ByOriginal, percent(t.ByOriginal, t.Neighbours), t.BySuite, percent(t.BySuite, t.Neighbours))
	if t.HeldOutApart > 0 {
		fmt.Fprintf(w, "  of the neighbours held-out databases tell apart (%d): the suites %.2f%%, the original database %.2f%%\n",
			t.HeldOutApart, 100*t.SuiteShare(), 100*t.OriginalShare())
	}
	fmt.Fprintf(w, "  golds that depend on tie order on the original database %d, failing golds %d, query timeouts %d\n",
		t.Nondeterministic, t.GoldFailed, t.Timeouts)
}

// Done says, in a few words, how one database's build ended: the
// databases kept of those generated and its time, or its current suites
// kept as they were.
func (r DBReport) Done() string {
	if r.Reused {
		return fmt.Sprintf("current, kept (%d databases)", r.Files)
	}
	return fmt.Sprintf("%d databases kept of %d generated, %.1fs", r.Files, r.Candidates+r.HeldOut, r.Seconds)
}

// percent is n of of as a percentage, or 0 when of is 0.
func percent(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}
