package report_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
	"github.com/sqlgym/sqlgym/schemas"
)

// sampled is sample s of task id, submitted with the outcome given.
func sampled(id string, s int, correct bool) *schemas.Trajectory {
	outcome, sql := schemas.OutcomeMismatch, fmt.Sprintf("SELECT a FROM t WHERE b = %d", s)
	if correct {
		outcome, sql = schemas.OutcomeCorrect, "SELECT a FROM t"
	}
	t := submitted(s, sql, outcome)
	t.EpisodeID = fmt.Sprintf("%s-%d", id, s)
	t.Task.TaskID = id
	return t
}

// run is one task per entry of counts, {n, c}: n samples, the first c
// correct.
func run(counts [][2]int) []*schemas.Trajectory {
	var eps []*schemas.Trajectory
	for i, nc := range counts {
		for s := range nc[0] {
			eps = append(eps, sampled(fmt.Sprint("d/", i), s, s < nc[1]))
		}
	}
	return eps
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestPassAtKUnequalSamples is the 20-task run where 2 tasks
// were taken to 6 samples and the others to 2: pass@1 and pass@2 over
// all 20 tasks, worked out by hand, and no pass@3..6, which only 2 tasks
// reach (the old report printed them from those 2 alone).
func TestPassAtKUnequalSamples(t *testing.T) {
	var counts [][2]int
	for range 8 {
		counts = append(counts, [2]int{2, 2}) // pass@1 1, pass@2 1
	}
	for range 6 {
		counts = append(counts, [2]int{2, 1}) // pass@1 1/2, pass@2 1
	}
	for range 4 {
		counts = append(counts, [2]int{2, 0}) // 0, 0
	}
	counts = append(counts, [2]int{6, 1}, [2]int{6, 3})
	// pass@1: (8 + 6/2 + 1/6 + 3/6) / 20.
	// pass@2: 8 + 6 + (1 - C(5,2)/C(6,2) = 1 - 10/15) + (1 - C(3,2)/C(6,2) = 1 - 3/15), over 20.
	want := map[string]float64{"1": (8 + 3 + 1.0/6 + 3.0/6) / 20, "2": (8 + 6 + 5.0/15 + 12.0/15) / 20}
	rep := report.Build(context.Background(), run(counts), report.Options{})
	if len(rep.PassAtK) != len(want) {
		t.Errorf("pass@k %v, want only k = 1 and 2", rep.PassAtK)
	}
	for k, v := range want {
		if !near(rep.PassAtK[k], v) || rep.PassAtKTasks[k] != 20 {
			t.Errorf("pass@%s = %v over %d tasks, want %v over 20", k, rep.PassAtK[k], rep.PassAtKTasks[k], v)
		}
	}
	if rep.Samples != 6 || rep.MinSamples != 2 {
		t.Errorf("samples %d to %d, want 2 to 6", rep.MinSamples, rep.Samples)
	}
	var out strings.Builder
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"2 to 6\n", "@1 58.3%  @2 75.7%  (k past 2 left out: fewer than half the tasks have that many samples)"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, &out)
		}
	}
	if strings.Contains(out.String(), "@3") {
		t.Errorf("report shows pass@3, which 2 tasks of 20 reach:\n%s", &out)
	}
}

// TestPassAtKSaysOverHowManyTasks: a k that at least half the tasks
// reach, but not all, is computed over those that do, and labelled.
func TestPassAtKSaysOverHowManyTasks(t *testing.T) {
	// Two tasks of 4 samples (1 and 0 correct), one of 2 (1 correct).
	rep := report.Build(context.Background(), run([][2]int{{4, 1}, {4, 0}, {2, 1}}), report.Options{})
	want := map[string]struct {
		v     float64
		tasks int
	}{
		"1": {(1.0/4 + 0 + 1.0/2) / 3, 3},
		"2": {((1 - 3.0/6) + 0 + 1) / 3, 3}, // C(3,2)/C(4,2) = 3/6
		"3": {((1 - 1.0/4) + 0) / 2, 2},     // C(3,3)/C(4,3) = 1/4
		"4": {(1 + 0) / 2.0, 2},
	}
	for k, w := range want {
		if !near(rep.PassAtK[k], w.v) || rep.PassAtKTasks[k] != w.tasks {
			t.Errorf("pass@%s = %v over %d tasks, want %v over %d", k, rep.PassAtK[k], rep.PassAtKTasks[k], w.v, w.tasks)
		}
	}
	var out strings.Builder
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if w := "@3 37.5% (2 of 3 tasks)  @4 50.0% (2 of 3 tasks)"; !strings.Contains(out.String(), w) {
		t.Errorf("report lacks %q:\n%s", w, &out)
	}
	// The breakdown's pass@4 column marks a value over some of its tasks.
	if w := "* over the group's tasks with at least 4 samples only"; !strings.Contains(out.String(), w) {
		t.Errorf("report lacks %q:\n%s", w, &out)
	}
}

// TestPassAtKBoundedSet: a task of 1,121 samples gives pass@k for k = 1
// to 8, the powers of two and the fewest samples, not 1,121 values.
func TestPassAtKBoundedSet(t *testing.T) {
	rep := report.Build(context.Background(), run([][2]int{{1121, 3}, {1000, 0}}), report.Options{})
	var got []string
	for k := range 1122 {
		if _, ok := rep.PassAtK[fmt.Sprint(k)]; ok {
			got = append(got, fmt.Sprint(k))
		}
	}
	want := "1 2 3 4 5 6 7 8 16 32 64 128 256 512 1000 1024"
	if strings.Join(got, " ") != want {
		t.Errorf("pass@k shown for k = %v, want %s", got, want)
	}
	if v := rep.PassAtK["1024"]; rep.PassAtKTasks["1024"] != 1 || !near(v, report.PassAtK(1121, 3, 1024)) {
		t.Errorf("pass@1024 = %v over %d tasks, want the estimator over the one task that reaches it", v, rep.PassAtKTasks["1024"])
	}
}

// TestPassAtKAgainstEnumeration: on random sample counts, every pass@k
// the report gives is the mean, over the tasks with at least k samples,
// of the share of k-subsets of a task's samples holding a correct one,
// counted by enumerating the subsets; and a k is given exactly when it is
// a candidate (1 to 8, a power of two, the fewest samples) that half the
// tasks reach.
func TestPassAtKAgainstEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		counts := make([][2]int, 1+r.IntN(6))
		fewest, most := 99, 0
		for i := range counts {
			n := 1 + r.IntN(12)
			counts[i] = [2]int{n, r.IntN(n + 1)}
			fewest, most = min(fewest, n), max(most, n)
		}
		rep := report.Build(context.Background(), run(counts), report.Options{})
		for k := 1; k <= most; k++ {
			sum, m := 0.0, 0
			for _, nc := range counts {
				if nc[0] >= k {
					sum += enumerated(nc[0], nc[1], k)
					m++
				}
			}
			candidate := k <= report.EveryKUpTo || k&(k-1) == 0 || k == fewest
			v, shown := rep.PassAtK[fmt.Sprint(k)]
			if shown != (candidate && 2*m >= len(counts)) {
				t.Fatalf("trial %d %v: pass@%d shown %v, want %v (%d of %d tasks reach it)", trial, counts, k, shown, !shown, m, len(counts))
			}
			if shown && (math.Abs(v-sum/float64(m)) > 1e-9 || rep.PassAtKTasks[fmt.Sprint(k)] != m) {
				t.Fatalf("trial %d %v: pass@%d = %v over %d tasks, enumeration gives %v over %d",
					trial, counts, k, v, rep.PassAtKTasks[fmt.Sprint(k)], sum/float64(m), m)
			}
		}
	}
}

// enumerated is pass@k of n samples, the first c correct: the share of
// k-subsets holding a sample below c, counted one subset at a time.
func enumerated(n, c, k int) float64 {
	hit, all := 0, 0
	var pick func(from, left int, any bool)
	pick = func(from, left int, any bool) {
		if left == 0 {
			all++
			if any {
				hit++
			}
			return
		}
		for i := from; i <= n-left; i++ {
			pick(i+1, left-1, any || i < c)
		}
	}
	pick(0, k, false)
	return float64(hit) / float64(all)
}

// TestReportJSONNamesPassAtKTasks: report.json says over how many tasks
// each pass@k is.
func TestReportJSONNamesPassAtKTasks(t *testing.T) {
	b, err := json.Marshal(report.Build(context.Background(), run([][2]int{{2, 1}, {1, 1}}), report.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"pass_at_k":{"1":0.75,"2":1}`, `"pass_at_k_tasks":{"1":2,"2":1}`, `"min_samples":1`} {
		if !strings.Contains(string(b), w) {
			t.Errorf("report.json lacks %s:\n%s", w, b)
		}
	}
}
