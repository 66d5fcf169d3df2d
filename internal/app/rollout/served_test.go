package rollout_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/app/rollout"
	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
)

// TestServedRolloutReportsTheSame plays the same script (failures of the
// endpoint and malformed calls included) in process and on a server over
// its WebSocket: the two reports are equal, and the server's store holds
// every sample once, tagged {run, model, sample}.
func TestServedRolloutReportsTheSame(t *testing.T) {
	ctx := context.Background()
	var reps [2][]byte
	var served *world
	for i, w := range []*world{newWorld(t), newServedWorld(t)} {
		m := newStubModel(t, mixScripts(t, w))
		sum := rollout.Run(ctx, rollout.Config{Env: w.env, Chat: m.chat(t), Run: "mix", Model: "stub-model", Concurrency: 4},
			rollout.Plan([]string{taskA, taskB, taskC}, 4, nil))
		if sum.Err != nil || sum.Finished != 12 {
			t.Fatalf("world %d: summary %+v, want 12 finished", i, sum)
		}
		rep := report.Build(ctx, w.episodes(t, "mix", false), report.Options{Voter: w.voter()})
		if rep.Episodes != 12 || !near(rep.MeanAccuracy, 0.5) || !near(rep.SCAccuracy, 2.0/3) {
			t.Errorf("world %d: %d episodes, mean %v, SC %v; want 12, 1/2, 2/3", i, rep.Episodes, rep.MeanAccuracy, rep.SCAccuracy)
		}
		for i, f := range rep.FailedTasks {
			// The stub hands its scripts to whichever sample asks first, so
			// which sample of a task fails, and with what, depends on the
			// order of the requests; the counts do not. (What a failed
			// task's entry holds is TestFailedTasksListed's.)
			rep.FailedTasks[i] = report.FailedTask{TaskID: f.TaskID, Episodes: f.Episodes, Failed: f.Failed}
		}
		reps[i], _ = json.Marshal(rep)
		served = w
	}
	if !bytes.Equal(reps[0], reps[1]) {
		t.Errorf("served report\n%s\ndiffers from the in-process one\n%s", reps[1], reps[0])
	}
	checkServedTags(t, served)
}

// checkServedTags checks that the server's store holds one episode per
// task and sample, each with the run, model and sample tags.
func checkServedTags(t *testing.T, w *world) {
	t.Helper()
	seen := map[rollout.Key]bool{}
	err := w.log.Episodes(context.Background(), trajlog.Filter{Incomplete: true}, func(r *trajlog.Record) error {
		var tags struct {
			Run   string `json:"run"`
			Model string `json:"model"`
		}
		s, ok := report.SampleOf(&r.Trajectory)
		if json.Unmarshal(r.Tags, &tags) != nil || !ok || tags.Run != "mix" || tags.Model != "stub-model" || !r.Complete {
			t.Errorf("episode %s: tags %s, complete %v; want run mix, model stub-model, a sample", r.EpisodeID, r.Tags, r.Complete)
		}
		k := rollout.Key{TaskID: r.Task.TaskID, Sample: s}
		if seen[k] {
			t.Errorf("sample %v recorded twice", k)
		}
		seen[k] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{taskA, taskB, taskC} {
		for s := range 4 {
			if !seen[rollout.Key{TaskID: id, Sample: s}] {
				t.Errorf("sample %d of %s not recorded", s, id)
			}
		}
	}
}
