package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
)

// scriptA and scriptB are two runs of three samples ("G" the gold, "W"
// a wrong answer): A gets library-001 and 002 right, 005 once; B gets
// 001, 003, 005 right, 004 twice, 002 never, and runs 006 too.
var (
	scriptA = map[string]string{"demo/library-001": "GGG", "demo/library-002": "GGG", "demo/library-003": "WWW",
		"demo/library-004": "WWW", "demo/library-005": "GWW"}
	scriptB = map[string]string{"demo/library-001": "GGG", "demo/library-002": "WWW", "demo/library-003": "GGG",
		"demo/library-004": "GGW", "demo/library-005": "GGG", "demo/library-006": "GGG"}
	libGold = map[string]string{"demo/library-001": goldLib001, "demo/library-002": goldLib002, "demo/library-003": goldLib003,
		"demo/library-004": goldLib004, "demo/library-005": goldLib005, "demo/library-006": goldLib006}
)

// submits turns a G/W script into submit calls.
func submits(script map[string]string) map[string][]string {
	out := map[string][]string{}
	for task, s := range script {
		for _, c := range s {
			sql := wrong
			if c == 'G' {
				sql = libGold[task]
			}
			out[task] = append(out[task], "submit "+sql)
		}
	}
	return out
}

// TestReportCompare plays runs A and B of the scripts above, and A2, a
// run just like A, then compares them with sqlgym report --compare. Over
// the 5 tasks both ran (per task: c of 3 samples correct, A 3,3,0,0,1 and
// B 3,0,3,2,3), worked out by hand:
//
//	pass@1 = mean     A 7/15  B 11/15  delta 4/15
//	pass@2            A 8/15  B 12/15  delta 4/15  (c=1 gives 2/3, c=2 gives 1)
//	pass@3            A 3/5   B 4/5    delta 1/5
//	SC (majority)     A 2/5   B 4/5    delta 2/5
//	first-shot        as the mean: every episode submits at once
//	after repair      0 and 0
//
// and flips (right: most episodes correct): 003, 004, 005 wrong->right,
// 002 right->wrong, 001 right in both. Each interval holds its delta,
// after repair's is the point 0, and A against A2 (every task the same)
// gives deltas of 0 whose intervals are the point 0 and no flip. The
// same comparison twice gives the same report.json.
func TestReportCompare(t *testing.T) {
	dir := t.TempDir()
	rolloutRun(t, dir, "a", "3", submits(scriptA))
	rolloutRun(t, dir, "b", "3", submits(scriptB))
	rolloutRun(t, dir, "a2", "3", submits(scriptA))

	c, text := compareRuns(t, dir, "a,b")
	want := map[string][2]float64{ // metric: A, B
		"pass@1": {7.0 / 15, 11.0 / 15}, "pass@2": {8.0 / 15, 12.0 / 15}, "pass@3": {3.0 / 5, 4.0 / 5},
		"mean_accuracy": {7.0 / 15, 11.0 / 15}, "sc_accuracy": {2.0 / 5, 4.0 / 5},
		"first_shot_accuracy": {7.0 / 15, 11.0 / 15}, "after_repair_accuracy": {0, 0},
	}
	checkMetrics(t, c, want, false)
	if c.Flips.WrongToRight != 3 || c.Flips.RightToWrong != 1 || c.Flips.BothRight != 1 || c.Flips.BothWrong != 0 ||
		strings.Join(c.Flips.WrongToRightTasks, ",") != "demo/library-003,demo/library-004,demo/library-005" ||
		strings.Join(c.Flips.RightToWrongTasks, ",") != "demo/library-002" {
		t.Errorf("flips %+v", c.Flips)
	}
	if c.PairedTasks != 5 || c.A.Tasks != 5 || c.A.Episodes != 15 || c.A.OnlyTasks != 0 ||
		c.B.Tasks != 6 || c.B.Episodes != 18 || c.B.OnlyTasks != 1 || c.A.Run != "a" || c.B.Model != "m-b" {
		t.Errorf("paired %d, runs %+v %+v; want 5 paired, a 5 tasks 15 episodes, b 6 tasks 18 episodes 1 its own", c.PairedTasks, c.A, c.B)
	}
	if c.Bootstrap.Resamples != 10000 || c.Bootstrap.Seed != 1 || c.Bootstrap.Confidence != 0.95 {
		t.Errorf("bootstrap %+v", c.Bootstrap)
	}
	// The interval the fixed seed gives, so that a change of the bootstrap shows.
	for _, m := range c.Metrics {
		if m.Metric == "mean_accuracy" && (math.Abs(m.CILow+0.4) > 1e-12 || math.Abs(m.CIHigh-0.8) > 1e-12) {
			t.Errorf("mean_accuracy's interval [%v, %v], want [-0.4, 0.8] from seed 1", m.CILow, m.CIHigh)
		}
	}
	for _, line := range []string{
		"mean_accuracy  46.7%  73.3%  +26.7 pp",
		"flips: wrong->right 3, right->wrong 1 (both right 1, both wrong 0;",
		"  wrong->right: demo/library-003, demo/library-004, demo/library-005\n",
		"  right->wrong: demo/library-002\n",
		"interval: percentile bootstrap over the paired tasks, 10000 resamples, seed 1\n",
	} {
		if !hasWords(text, line) {
			t.Errorf("the terminal comparison lacks %q:\n%s", line, text)
		}
	}
	again, _ := compareRuns(t, dir, "a,b")
	if a, b := mustJSON(c), mustJSON(again); a != b {
		t.Errorf("the same comparison twice differs:\n%s\n%s", a, b)
	}

	same, _ := compareRuns(t, dir, "a,a2")
	for m, ab := range want {
		want[m] = [2]float64{ab[0], ab[0]}
	}
	checkMetrics(t, same, want, true)
	if f := same.Flips; f.WrongToRight != 0 || f.RightToWrong != 0 || f.BothRight != 2 || f.BothWrong != 3 {
		t.Errorf("a against a2: flips %+v, want none (2 right in both, 3 wrong in both)", f)
	}
}

// compareRuns runs sqlgym report --compare runs on dir's log and returns
// the compare of its report.json and what it printed.
func compareRuns(t *testing.T, dir, runs string) (*report.Comparison, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "cmp")
	var stdout bytes.Buffer
	if err := run(context.Background(), []string{"report", "--data-dir", dir, "--compare", runs, "--out", out}, &stdout, &stdout); err != nil {
		t.Fatalf("report --compare %s: %v\n%s", runs, err, &stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Compare *report.Comparison }
	if err := json.Unmarshal(b, &f); err != nil || f.Compare == nil {
		t.Fatalf("report.json: %v\n%s", err, b)
	}
	return f.Compare, stdout.String()
}

// checkMetrics checks each metric's A, B and delta B - A over the 5
// paired tasks, that its interval holds the delta, and that the interval
// is the point of the delta when every task agrees (point), or when the
// metric is 0 for every task in both runs.
func checkMetrics(t *testing.T, c *report.Comparison, want map[string][2]float64, point bool) {
	t.Helper()
	if len(c.Metrics) != len(want) {
		t.Errorf("%d metrics, want %d: %+v", len(c.Metrics), len(want), c.Metrics)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	for _, m := range c.Metrics {
		w, ok := want[m.Metric]
		if !ok || m.Tasks != 5 || !near(m.A, w[0]) || !near(m.B, w[1]) || !near(m.Delta, w[1]-w[0]) {
			t.Errorf("%s over %d tasks: A %v B %v delta %v; want A %v B %v delta %v over 5",
				m.Metric, m.Tasks, m.A, m.B, m.Delta, w[0], w[1], w[1]-w[0])
			continue
		}
		flat := point || w == [2]float64{}
		if m.CILow > m.Delta || m.CIHigh < m.Delta || flat != (m.CILow == m.CIHigh) {
			t.Errorf("%s: interval [%v, %v] around delta %v; want it to hold the delta, a point exactly when every task agrees",
				m.Metric, m.CILow, m.CIHigh, m.Delta)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestReportCompareFlagErrors: --compare wants two distinct runs that
// both have episodes, and takes no --run or --by.
func TestReportCompareFlagErrors(t *testing.T) {
	dir := t.TempDir()
	rolloutRun(t, dir, "a", "1", submits(map[string]string{"demo/library-001": "G"}))
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--compare", "a"}, `--compare "a": want two run names, A,B`},
		{[]string{"--compare", "a,a"}, "the two runs are the same"},
		{[]string{"--compare", "a,b", "--by", "policy"}, "leave out --run and --by"},
		{[]string{"--compare", "a,nope"}, `no recorded episode of run "nope" matches`},
	} {
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"report", "--data-dir", dir}, tt.args...), &out, &out)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("report %v: %v, want an error saying %q", tt.args, err, tt.want)
		}
	}
}
