package replay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/replay"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// script is what a test client does in one episode.
type script struct {
	reset   schemas.ResetParams
	actions []schemas.Action
	close   bool // close the episode after the actions (it ends between steps)
}

var fromTable = regexp.MustCompile(`(?i)\bFROM\s+"?(\w+)`)

// scriptFor picks one of eight ways through task i, covering every kind
// of step: tool calls and text actions of both formats, schema lookups,
// failing and repeated SQL, format errors, extra calls, correct and wrong
// submissions, running out of turns, and closing early.
func scriptFor(task *env.Task, i int) script {
	gold := task.GoldSQL
	call := func(tool, sql string) schemas.Action {
		return client.ToolCall(tool, map[string]any{"sql": sql})
	}
	hermes := func(tool, sql string) string {
		b, _ := json.Marshal(map[string]any{"name": tool, "arguments": map[string]string{"sql": sql}})
		return "<tool_call>" + string(b) + "</tool_call>"
	}
	table := "missing_table"
	if m := fromTable.FindStringSubmatch(gold); m != nil {
		table = m[1]
	}
	s := script{reset: schemas.ResetParams{TaskID: task.ID, Tags: json.RawMessage(fmt.Sprintf(`{"script":%d}`, i%8))}}
	switch i % 8 {
	case 0:
		s.actions = []schemas.Action{call("submit", gold)}
	case 1:
		s.actions = []schemas.Action{client.ToolCall("inspect_schema", nil), call("execute_sql", gold), call("submit", "SELECT 1")}
	case 2:
		s.actions = []schemas.Action{client.Text("Let me look.\n" + hermes("execute_sql", gold)), client.Text(hermes("submit", gold))}
	case 3:
		s.reset.ActionFormat = schemas.FormatTags
		s.actions = []schemas.Action{client.Text("<sql>" + gold + "</sql>"), client.Text("<think>ok</think><solution>" + gold + "</solution>")}
	case 4:
		s.reset.MaxTurns = new(3)
		s.actions = []schemas.Action{client.Text("I do not know."), call("execute_sql", "SELECT nope FROM nowhere"),
			call("execute_sql", "select  nope from NOWHERE")}
	case 5:
		s.actions = []schemas.Action{client.ToolCall("inspect_schema", map[string]any{"table": table}), call("submit", "SELEC broken")}
	case 6:
		s.actions, s.close = []schemas.Action{call("execute_sql", gold)}, true
	case 7:
		s.actions = []schemas.Action{client.Text(hermes("execute_sql", "SELECT 1") + hermes("execute_sql", "SELECT 2")),
			call("execute_sql", "select  1"), call("submit", gold)}
	}
	return s
}

// record plays a script for each task through a real server recording
// into a memStore, with a few clients at once.
func record(t *testing.T, st *stack, tasks []env.Task) *memStore {
	t.Helper()
	store := newMemStore()
	c := st.serve(t, store, 8)
	ctx := context.Background()
	var wg sync.WaitGroup
	jobs := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range jobs {
				s := scriptFor(&tasks[i], i)
				r, err := c.Reset(ctx, s.reset)
				if err != nil {
					t.Errorf("%s: reset: %v", tasks[i].ID, err)
					continue
				}
				for _, a := range s.actions {
					if _, err := c.Step(ctx, r.EpisodeID, a); err != nil {
						t.Errorf("%s: step: %v", tasks[i].ID, err)
					}
				}
				if s.close {
					if _, err := c.CloseEpisode(ctx, r.EpisodeID); err != nil {
						t.Errorf("%s: close: %v", tasks[i].ID, err)
					}
				}
			}
		})
	}
	for i := range tasks {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return store
}

// replayAll replays every complete episode and fails the test on any
// result that is not reproduced.
func replayAll(t *testing.T, st *stack, store trajlog.Reader, workers int) replay.Summary {
	t.Helper()
	sum, err := st.replayer(t, workers).Run(context.Background(), store, trajlog.Filter{}, func(r *replay.Result) error {
		if r.Status != replay.Reproduced {
			t.Errorf("not reproduced:\n%s", r.Text())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func TestReplayReproducesTheDemo(t *testing.T) {
	st := newStack(t, demoDataset(t))
	tasks := st.datasets[0].Tasks
	store := record(t, st, tasks)
	sum := replayAll(t, st, store, 2)
	if sum.Episodes != len(tasks) || sum.Reproduced != len(tasks) || sum.Steps == 0 || sum.StepsMatched != sum.Steps {
		t.Errorf("summary %s, want all %d episodes and every step reproduced", sum, len(tasks))
	}
	outcomes := map[string]int{}
	for _, r := range store.records(t) {
		outcomes[r.Outcome]++
	}
	kinds := map[string]int{}
	for _, r := range store.records(t) {
		for _, s := range r.Steps {
			for k := range s.RewardComponents {
				kinds[k]++
			}
		}
	}
	for _, o := range []string{"correct", "mismatch", "pred_error", "no_submit"} {
		if outcomes[o] == 0 {
			t.Errorf("no %s episode was recorded (outcomes %v): the scripts no longer cover it", o, outcomes)
		}
	}
	for _, k := range []string{"turn.ok", "turn.tool_error", "turn.format_error", "turn.repeat"} {
		if kinds[k] == 0 {
			t.Errorf("no step paid %s (components %v): the scripts no longer cover it", k, kinds)
		}
	}
	t.Logf("demo: %s; outcomes %v", sum, outcomes)
}

func TestReplayReproducesSpiderDev(t *testing.T) {
	st := newStack(t, spiderDataset(t))
	tasks := st.datasets[0].Tasks
	sum := replayAll(t, st, record(t, st, tasks), 2)
	if sum.Episodes != len(tasks) || sum.Reproduced != len(tasks) || sum.StepsMatched != sum.Steps {
		t.Errorf("summary %s, want all %d episodes and every step reproduced", sum, len(tasks))
	}
	t.Logf("spider-dev: %s", sum)
}

func TestReplayReportsDivergence(t *testing.T) {
	st := newStack(t, demoDataset(t))
	tasks := st.datasets[0].Tasks[:8]
	recs := record(t, st, tasks).records(t)
	byScript := map[int]*trajlog.Record{}
	for _, r := range recs {
		var tags struct{ Script int }
		json.Unmarshal(r.Tags, &tags)
		byScript[tags.Script] = r
	}
	tamper := func(script int, edit func(r *trajlog.Record)) *trajlog.Record {
		c := *byScript[script]
		c.Steps = append([]schemas.StepRecord(nil), c.Steps...)
		edit(&c)
		return &c
	}
	tests := []struct {
		name   string
		rec    *trajlog.Record
		status replay.Status
		fields []string // turn:field of each diff
	}{
		{"untouched", byScript[1], replay.Reproduced, nil},
		{"observation", tamper(1, func(r *trajlog.Record) { r.Steps[1].Observation += " " }), replay.Diverged, []string{"2:observation"}},
		{"reward", tamper(4, func(r *trajlog.Record) { r.Steps[0].Reward = 0.5 }), replay.Diverged, []string{"1:reward"}},
		{"components", tamper(4, func(r *trajlog.Record) { r.Steps[2].RewardComponents = map[string]float64{"turn.ok": 0} }),
			replay.Diverged, []string{"3:reward_components"}},
		{"outcome", tamper(0, func(r *trajlog.Record) { r.Outcome, r.Steps[0].Outcome = "mismatch", "mismatch" }),
			replay.Diverged, []string{"1:outcome", "0:outcome"}},
		{"prompt", tamper(0, func(r *trajlog.Record) { r.Messages = r.Messages[:1] }), replay.Diverged, []string{"0:messages"}},
		{"close", tamper(6, func(r *trajlog.Record) { r.CloseComponents = map[string]float64{"final.no_submit": -1} }),
			replay.Diverged, []string{"0:close_components"}},
		{"extra step", tamper(0, func(r *trajlog.Record) { r.Steps = append(r.Steps, r.Steps[0]) }), replay.Diverged, []string{"1:ended"}},
		{"missing task", tamper(0, func(r *trajlog.Record) { r.Task.TaskID = "demo/nope" }), replay.Unverifiable, nil},
		{"missing dataset", tamper(0, func(r *trajlog.Record) { r.Task.TaskID = "bird/1" }), replay.Unverifiable, nil},
		{"incomplete", tamper(1, func(r *trajlog.Record) { r.Complete, r.EndedAt, r.Outcome = false, nil, "" }), replay.Unverifiable, nil},
	}
	rp := st.replayer(t, 1)
	for _, tt := range tests {
		res := rp.Episode(context.Background(), tt.rec)
		var fields []string
		for _, d := range res.Diffs {
			fields = append(fields, fmt.Sprintf("%d:%s", d.Turn, d.Field))
		}
		if res.Status != tt.status || strings.Join(fields, ",") != strings.Join(tt.fields, ",") {
			t.Errorf("%s: %s with diffs %v, want %s with %v\n%s", tt.name, res.Status, fields, tt.status, tt.fields, res.Text())
		}
	}
}

func TestReplayStopsOnCallbackError(t *testing.T) {
	st := newStack(t, demoDataset(t))
	store := record(t, st, st.datasets[0].Tasks[:6])
	n := 0
	stop := fmt.Errorf("stop")
	sum, err := st.replayer(t, 3).Run(context.Background(), store, trajlog.Filter{}, func(*replay.Result) error {
		n++
		return stop
	})
	if err != stop || n != 1 || sum.Episodes != 1 {
		t.Errorf("Run = %v after %d calls (summary %s), want the callback's error after one", err, n, sum)
	}
}
