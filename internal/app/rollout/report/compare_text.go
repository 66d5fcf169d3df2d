package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteText writes the comparison as terminal tables: the two runs, one
// row per metric (A, B, the delta in percentage points and its interval),
// the flips and the first tasks of each, and how the intervals were made.
func (c *Comparison) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, s := range []struct {
		label string
		side  RunSide
	}{{"A", c.A}, {"B", c.B}} {
		fmt.Fprintf(tw, "run %s\t%s (model %s): %d tasks, %d episodes, %d of its tasks not in the other run\n",
			s.label, s.side.Run, orNone(s.side.Model), s.side.Tasks, s.side.Episodes, s.side.OnlyTasks)
	}
	fmt.Fprintf(tw, "paired tasks\t%d (every number below is over these)\n", c.PairedTasks)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "metric\tA\tB\tB - A\t%.0f%% CI\ttasks\t\n", 100*c.Bootstrap.Confidence)
	for _, m := range c.Metrics {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s pp\t[%s, %s]\t%d\t\n", m.Metric, Pct(m.A), Pct(m.B), Points(m.Delta),
			Points(m.CILow), Points(m.CIHigh), m.Tasks)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	f := c.Flips
	fmt.Fprintf(w, "\nflips: wrong->right %d, right->wrong %d (both right %d, both wrong %d; "+
		"a task is right when most of its episodes are correct)\n", f.WrongToRight, f.RightToWrong, f.BothRight, f.BothWrong)
	writeFlipped(w, "wrong->right", f.WrongToRightTasks)
	writeFlipped(w, "right->wrong", f.RightToWrongTasks)
	_, err := fmt.Fprintf(w, "interval: %s bootstrap over the paired tasks, %d resamples, seed %d\n",
		c.Bootstrap.Method, c.Bootstrap.Resamples, c.Bootstrap.Seed)
	return err
}

// writeFlipped names the first FailedListed tasks of a flip.
func writeFlipped(w io.Writer, label string, tasks []string) {
	shown, more := FlippedShown(tasks)
	if len(shown) == 0 {
		return
	}
	rest := ""
	if more > 0 {
		rest = fmt.Sprintf(" and %d more (report.json lists them all)", more)
	}
	fmt.Fprintf(w, "  %s: %s%s\n", label, strings.Join(shown, ", "), rest)
}

// FlippedShown is what a comparison shows of a flip's tasks (the CLI's
// text and the console alike): the first FailedListed of them, and how
// many more there are.
func FlippedShown(tasks []string) (shown []string, more int) {
	shown = tasks[:min(len(tasks), FailedListed)]
	return shown, len(tasks) - len(shown)
}

// Points is a difference of shares in percentage points, signed as the
// CLI and the console print it: "+15.0", "-3.3", "0.0" (never "-0.0").
func Points(v float64) string {
	s := strconv.FormatFloat(100*v, 'f', 1, 64)
	if s == "-0.0" {
		s = "0.0"
	}
	if !strings.HasPrefix(s, "-") && s != "0.0" {
		s = "+" + s
	}
	return s
}
