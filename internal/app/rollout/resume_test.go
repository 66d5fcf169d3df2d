package rollout_test

import (
	"context"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym/internal/app/rollout"
	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
)

// TestResumeSkipsWhatWasDone runs two samples of two tasks, one of which
// the endpoint refuses (so it is closed early), then resumes the run with
// four samples: exactly the refused sample and the two new ones per task
// are played, and the report covers old and new.
func TestResumeSkipsWhatWasDone(t *testing.T) {
	w := newWorld(t)
	a, c := w.gold(t, taskA), w.gold(t, taskC)
	refused := call("submit", c)
	refused.fail = []int{400}
	m := newStubModel(t, map[string][][]reply{
		w.question(t, taskA): {{call("submit", a)}, {call("submit", "SELECT -1")}},
		w.question(t, taskC): {{refused}},
	})
	ctx := context.Background()
	tasks := []string{taskA, taskC}
	cfg := rollout.Config{Env: w.env, Chat: m.chat(t), Run: "resume", Model: "stub-model", Concurrency: 1}
	sum := rollout.Run(ctx, cfg, rollout.Plan(tasks, 2, nil))
	if sum.Finished != 3 || sum.Failed != 1 {
		t.Fatalf("first run %+v, want 3 finished and 1 failed", sum)
	}
	done, err := rollout.Done(ctx, w.log, "resume")
	if err != nil {
		t.Fatal(err)
	}
	plan := rollout.Plan(tasks, 4, done)
	var got []rollout.Key
	for _, s := range plan {
		got = append(got, rollout.Key{TaskID: s.TaskID, Sample: s.Index})
	}
	// The refused episode is recorded, closed early; it is played again.
	missing := rollout.Key{TaskID: taskC, Sample: 0}
	if !done[rollout.Key{TaskID: taskC, Sample: 1}] {
		missing = rollout.Key{TaskID: taskC, Sample: 1}
	}
	want := []rollout.Key{{taskA, 2}, {taskA, 3}, missing, {taskC, 2}, {taskC, 3}}
	if !slices.Equal(got, want) {
		t.Fatalf("resume plans %v, want %v", got, want)
	}
	m.mu.Lock()
	m.scripts[w.question(t, taskA)] = [][]reply{{call("submit", a)}, {call("submit", a)}}
	m.scripts[w.question(t, taskC)] = [][]reply{{call("submit", c)}, {call("submit", c)}, {call("submit", c)}}
	before := m.started
	m.mu.Unlock()
	if sum := rollout.Run(ctx, cfg, plan); sum.Finished != 5 || sum.Err != nil {
		t.Fatalf("resumed run %+v, want 5 finished", sum)
	}
	if m.started-before != 5 {
		t.Errorf("the resume started %d conversations, want 5", m.started-before)
	}
	rep := report.Build(ctx, w.episodes(t, "resume", false), report.Options{})
	if rep.Episodes != 8 || rep.Unfinished != 0 || !near(rep.MeanAccuracy, 7.0/8) {
		t.Errorf("report: %d episodes, %d unfinished, mean %v; want 8, 0, 7/8", rep.Episodes, rep.Unfinished, rep.MeanAccuracy)
	}
}
