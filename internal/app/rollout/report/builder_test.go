package report_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"weak"

	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
	"github.com/sqlgym/sqlgym/schemas"
)

// rlEpisode is episode i of an RL log over tasks tasks: no sample tag,
// one of three answers.
func rlEpisode(i, tasks int) *schemas.Trajectory {
	outcome := schemas.OutcomeMismatch
	if i%3 == 0 {
		outcome = schemas.OutcomeCorrect
	}
	t := submitted(i, fmt.Sprintf("SELECT a FROM t WHERE b = %d", i%3), outcome)
	t.EpisodeID, t.Task.TaskID, t.Tags = fmt.Sprint("ep", i), fmt.Sprint("d/", i%tasks), json.RawMessage(`{"run":"rl"}`)
	return t
}

// TestBuilderKeepsNoEpisode: once given to a Builder, an episode can be
// collected; what the Builder holds is the same after 1,000 episodes of
// 10 tasks as after 10,000 (per-task counters and answers, not episodes).
func TestBuilderKeepsNoEpisode(t *testing.T) {
	ctx := context.Background()
	b := report.NewBuilder(report.Options{})
	var held []weak.Pointer[schemas.Trajectory]
	var at1k int
	for i := range 10000 {
		ep := rlEpisode(i, 10)
		if i < 1000 {
			held = append(held, weak.Make(ep))
		}
		b.Add(ctx, ep)
		if i == 999 {
			at1k = b.Footprint()
		}
	}
	runtime.GC()
	for i, p := range held {
		if p.Value() != nil {
			t.Fatalf("episode %d is still held after the Builder read it", i)
		}
	}
	if got := b.Footprint(); got != at1k {
		t.Errorf("the Builder holds %d entries after 10,000 episodes, %d after 1,000: it grows with the episodes", got, at1k)
	}
	rep := b.Report()
	if rep.Episodes != 10000 || rep.Tasks != 10 || rep.Samples != 1000 || rep.Run != "rl" {
		t.Errorf("report of %d episodes, %d tasks, %d samples, run %q; want 10000, 10, 1000, rl", rep.Episodes, rep.Tasks, rep.Samples, rep.Run)
	}
}

// TestBuilderSampledRunHoldsABitPerSample: a sampled run costs one bit
// per sample index in two sets, whatever the episodes were.
func TestBuilderSampledRunHoldsABitPerSample(t *testing.T) {
	ctx := context.Background()
	b := report.NewBuilder(report.Options{})
	const tasks, k = 10, 1000
	for s := range k {
		for i := range tasks {
			b.Add(ctx, sampled(fmt.Sprint("d/", i), s, s%4 == 0))
		}
	}
	// Each task: itself, 1 correct answer and k-k/4 wrong ones (the test's answers are
	// all distinct), two sets of k bits; plus one group of each breakdown.
	want := tasks*(1+1+(k-k/4)+2*((k+63)/64)) + 2
	if got := b.Footprint(); got != want {
		t.Errorf("footprint %d, want %d", got, want)
	}
}

// TestRepeatedSampleCountsItsLastEnding: a sample that ended twice (two
// runs of one name at once) counts once, by its last ending, which a
// second reading finds; Build and a Builder given the episodes twice
// agree.
func TestRepeatedSampleCountsItsLastEnding(t *testing.T) {
	ctx := context.Background()
	eps := []*schemas.Trajectory{sampled("d/1", 0, false), sampled("d/1", 1, true), sampled("d/1", 0, true)}
	b := report.NewBuilder(report.Options{})
	for _, ep := range eps {
		b.Add(ctx, ep)
	}
	again := b.Again()
	if again == nil {
		t.Fatal("a sample ended twice, and the Builder asks for no second reading")
	}
	for _, ep := range eps {
		again.Add(ctx, ep)
	}
	if again.Again() != nil {
		t.Error("the second reading asks for a third")
	}
	for _, rep := range []*report.Report{again.Report(), report.Build(ctx, eps, report.Options{})} {
		if rep.Episodes != 2 || rep.MeanAccuracy != 1 || rep.Outcomes["mismatch"] != 0 {
			t.Errorf("%d episodes, mean %v, outcomes %v; want the 2 last endings, both correct", rep.Episodes, rep.MeanAccuracy, rep.Outcomes)
		}
	}
}

// TestReportTwiceIsTheSame: a Builder's report can be made again (after
// more episodes, say) without counting anything twice.
func TestReportTwiceIsTheSame(t *testing.T) {
	b := report.NewBuilder(report.Options{})
	closed := sampled("d/2", 0, false)
	closed.Steps[0].Outcome = ""
	for _, ep := range append(run([][2]int{{3, 1}, {2, 2}}), closed) {
		b.Add(context.Background(), ep)
	}
	first, _ := json.Marshal(b.Report())
	second, _ := json.Marshal(b.Report())
	if string(first) != string(second) {
		t.Errorf("second report\n%s\ndiffers from the first\n%s", second, first)
	}
}
