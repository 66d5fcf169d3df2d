package report_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
	"github.com/sqlgym/sqlgym/schemas"
)

// builderOf is a Builder given one task per entry of counts, {n, c}, the
// tasks named d/first, d/first+1, ...
func builderOf(first int, counts [][2]int) *report.Builder {
	b := report.NewBuilder(report.Options{})
	for i, nc := range counts {
		for s := range nc[0] {
			b.Add(context.Background(), sampled(fmt.Sprint("d/", first+i), s, s < nc[1]))
		}
	}
	return b
}

// metricOf is the named metric of a comparison.
func metricOf(t *testing.T, c *report.Comparison, name string) report.MetricDelta {
	t.Helper()
	for _, m := range c.Metrics {
		if m.Metric == name {
			return m
		}
	}
	t.Fatalf("no metric %s in %+v", name, c.Metrics)
	return report.MetricDelta{}
}

// TestComparePairsTasksBothRan: only the tasks both runs ran count; a
// pass@k is over the paired tasks with k samples in both runs, and a k
// fewer than half of them reach is left out.
func TestComparePairsTasksBothRan(t *testing.T) {
	a := builderOf(0, [][2]int{{4, 0}, {4, 4}, {2, 1}, {2, 2}})         // d/0..d/3
	b := builderOf(1, [][2]int{{4, 4}, {4, 4}, {2, 2}, {2, 2}, {9, 9}}) // d/1..d/5
	c := report.Compare(a, b, "a", "b")
	if c.PairedTasks != 3 || c.A.OnlyTasks != 1 || c.B.OnlyTasks != 2 || c.A.Episodes != 12 || c.B.Tasks != 5 {
		t.Errorf("paired %d, runs %+v %+v; want 3 paired, 1 of a's and 2 of b's own", c.PairedTasks, c.A, c.B)
	}
	// Paired: d/1 (4/4 and 4/4), d/2 (2/1 against 4/4), d/3 (2/2 and 2/2).
	if m := metricOf(t, c, "pass@1"); m.Tasks != 3 || !near(m.A, 2.5/3) || !near(m.Delta, 0.5/3) {
		t.Errorf("pass@1 %+v, want A 2.5/3, delta 0.5/3 over 3", m)
	}
	if m := metricOf(t, c, "pass@2"); m.Tasks != 3 || m.A != 1 || m.Delta != 0 {
		t.Errorf("pass@2 %+v, want 1 in both over 3", m)
	}
	for _, m := range c.Metrics {
		if m.Metric == "pass@3" || m.Metric == "pass@4" {
			t.Errorf("%s is given, over %d of 3 paired tasks", m.Metric, m.Tasks)
		}
	}
}

// TestCompareIntervalIsAPointWhenTasksAgree: when every paired task
// moves by the same amount, so does every resample, and the interval is
// that point; otherwise it spans the delta.
func TestCompareIntervalIsAPointWhenTasksAgree(t *testing.T) {
	wrong := builderOf(0, [][2]int{{1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}})
	right := builderOf(0, [][2]int{{1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}})
	mixed := builderOf(0, [][2]int{{1, 1}, {1, 0}, {1, 1}, {1, 0}, {1, 1}, {1, 0}, {1, 0}})
	m := metricOf(t, report.Compare(wrong, right, "w", "r"), "mean_accuracy")
	if m.Delta != 1 || m.CILow != 1 || m.CIHigh != 1 {
		t.Errorf("every task wrong to right: %+v, want delta 1 in [1, 1]", m)
	}
	c := report.Compare(wrong, mixed, "w", "m")
	m = metricOf(t, c, "mean_accuracy")
	if !near(m.Delta, 3.0/7) || !(m.CILow < m.Delta && m.Delta < m.CIHigh) || m.CILow < 0 || m.CIHigh > 1 {
		t.Errorf("3 of 7 tasks wrong to right: %+v, want delta 3/7 inside an interval within [0, 1]", m)
	}
	if c.Flips.WrongToRight != 3 || c.Flips.BothWrong != 4 || c.Flips.RightToWrong != 0 {
		t.Errorf("flips %+v", c.Flips)
	}
	var text bytes.Buffer
	if err := c.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "+42.9 pp") || !strings.Contains(text.String(), "10000 resamples, seed 1") {
		t.Errorf("terminal comparison:\n%s", &text)
	}
}

// TestCompareLeavesOutUnfinishedTasks: a task whose samples were all
// closed early in one run is not paired.
func TestCompareLeavesOutUnfinishedTasks(t *testing.T) {
	a := builderOf(0, [][2]int{{1, 1}, {1, 0}})
	closed := sampled("d/1", 0, false)
	closed.Steps[0].Outcome = ""
	closed.Outcome = schemas.OutcomeNoSubmit
	b := builderOf(0, [][2]int{{1, 1}})
	b.Add(context.Background(), closed)
	if c := report.Compare(a, b, "a", "b"); c.PairedTasks != 1 || c.B.Tasks != 1 {
		t.Errorf("paired %d, b %+v; want d/0 alone", c.PairedTasks, c.B)
	}
}
