package evaluate

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"
)

// Filter returns the golds for which keep is true, in dataset order.
func (r *CheckReport) Filter(keep func(GoldCheck) bool) []GoldCheck {
	var out []GoldCheck
	for _, g := range r.Golds {
		if keep(g) {
			out = append(out, g)
		}
	}
	return out
}

// Errors are the golds that failed, or whose database would not open.
func (r *CheckReport) Errors() []GoldCheck {
	return r.Filter(func(g GoldCheck) bool { return g.Status == GoldError })
}

// DBFailure is a database that would not open, or broke under its golds.
type DBFailure struct {
	DBID  string
	Tasks int    // the golds on it, none of which could run
	Error string // the first gold's error
}

// BadDatabases are the databases whose golds failed because the database
// would not open, in the order of their first task.
func (r *CheckReport) BadDatabases() []DBFailure {
	var out []DBFailure
	at := map[string]int{}
	for _, g := range r.Golds {
		if !g.DBFailed {
			continue
		}
		i, ok := at[g.DBID]
		if !ok {
			i, at[g.DBID] = len(out), len(out)
			out = append(out, DBFailure{DBID: g.DBID, Error: g.Error})
		}
		out[i].Tasks++
	}
	return out
}

// Timeouts are the golds that ran past the gold timeout.
func (r *CheckReport) Timeouts() []GoldCheck {
	return r.Filter(func(g GoldCheck) bool { return g.Status == GoldTimeout })
}

// Empty are the golds whose result has no rows: any query returning
// nothing matches them.
func (r *CheckReport) Empty() []GoldCheck {
	return r.Filter(func(g GoldCheck) bool { return g.Empty })
}

// SlowGolds are the golds that ran longer than the slow bound, slowest
// first.
func (r *CheckReport) SlowGolds() []GoldCheck {
	out := r.Filter(func(g GoldCheck) bool { return g.Slow })
	slices.SortStableFunc(out, func(a, b GoldCheck) int { return cmp.Compare(b.Elapsed, a.Elapsed) })
	return out
}

// Failed counts the golds that failed or timed out: the tasks a training
// run could never score.
func (r *CheckReport) Failed() int { return len(r.Errors()) + len(r.Timeouts()) }

// WriteText writes the findings as aligned tables (errors, timeouts,
// empty golds, slow golds; a table only when it has rows) and a summary.
func (r *CheckReport) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if dbs := r.BadDatabases(); len(dbs) > 0 {
		fmt.Fprintf(tw, "databases that would not open (%d)\ndatabase\ttasks\terror\n", len(dbs))
		for _, d := range dbs {
			fmt.Fprintf(tw, "%s\t%d\t%s\n", d.DBID, d.Tasks, d.Error)
		}
		fmt.Fprintln(tw)
	}
	if gs := r.Filter(func(g GoldCheck) bool { return g.Status == GoldError && !g.DBFailed }); len(gs) > 0 {
		fmt.Fprintf(tw, "gold errors (%d)\ntask\tdatabase\terror\n", len(gs))
		for _, g := range gs {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", g.TaskID, g.DBID, g.Error)
		}
		fmt.Fprintln(tw)
	}
	if gs := r.Timeouts(); len(gs) > 0 {
		fmt.Fprintf(tw, "gold timeouts (%d, over %s)\ntask\tdatabase\n", len(gs), r.GoldTimeout)
		for _, g := range gs {
			fmt.Fprintf(tw, "%s\t%s\n", g.TaskID, g.DBID)
		}
		fmt.Fprintln(tw)
	}
	writeGolds(tw, fmt.Sprintf("empty golds (%d)", len(r.Empty())), r.Empty(), false)
	writeGolds(tw, fmt.Sprintf("slow golds (%d, over %s)", len(r.SlowGolds()), r.Slow), r.SlowGolds(), true)
	r.writeSummary(tw)
	return tw.Flush()
}

// writeGolds writes a table of golds that ran, when there are any, with
// their row counts when withRows is set.
func writeGolds(tw *tabwriter.Writer, title string, gs []GoldCheck, withRows bool) {
	if len(gs) == 0 {
		return
	}
	fmt.Fprintf(tw, "%s\ntask\tdatabase\ttime", title)
	if withRows {
		fmt.Fprint(tw, "\trows")
	}
	fmt.Fprintln(tw)
	for _, g := range gs {
		elapsed := "-" // a gold given as rows did not run
		if !g.AsRows {
			elapsed = round(g.Elapsed).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s", g.TaskID, g.DBID, elapsed)
		if withRows {
			fmt.Fprintf(tw, "\t%d", g.Rows)
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintln(tw)
}

// writeSummary writes the counts and the slowest gold.
func (r *CheckReport) writeSummary(tw *tabwriter.Writer) {
	asRows := len(r.Filter(func(g GoldCheck) bool { return g.AsRows }))
	ok := len(r.Filter(func(g GoldCheck) bool { return g.Status == GoldOK && !g.AsRows }))
	fmt.Fprintf(tw, "%s: %d tasks\n", r.Dataset, len(r.Golds))
	fmt.Fprintf(tw, "  ran ok\t%d\n  given as rows\t%d\n", ok, asRows)
	fmt.Fprintf(tw, "  errors\t%d\n  timeouts\t%d\n", len(r.Errors()), len(r.Timeouts()))
	if dbs := r.BadDatabases(); len(dbs) > 0 {
		fmt.Fprintf(tw, "  bad databases\t%d\n", len(dbs))
	}
	fmt.Fprintf(tw, "  empty\t%d\n  slow\t%d\n", len(r.Empty()), len(r.SlowGolds()))
	var slowest *GoldCheck
	for i := range r.Golds {
		g := &r.Golds[i]
		if g.Status == GoldOK && !g.AsRows && (slowest == nil || g.Elapsed > slowest.Elapsed) {
			slowest = g
		}
	}
	if slowest != nil {
		fmt.Fprintf(tw, "  slowest\t%s (%s)\n", round(slowest.Elapsed), slowest.TaskID)
	}
}

// round shortens a run time for display.
func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
