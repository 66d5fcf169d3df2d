package rollout_test

import (
	"context"
	"math"
	"testing"

	"github.com/sqlgym/sqlgym/internal/app/rollout"
	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
	"github.com/sqlgym/sqlgym/schemas"
)

const (
	taskA = "demo/library-001" // library, easy
	taskB = "demo/library-003" // library, easy, with evidence
	taskC = "demo/clinic-001"  // clinic, easy
)

// scripts of four samples per task, with their outcomes worked out by
// hand (see TestRolloutReportNumbers), and failures of the endpoint on
// the way: 429s, 500s, a slow reply, a dropped connection.
func mixScripts(t *testing.T, w *world) map[string][][]reply {
	a, b, c := w.gold(t, taskA), w.gold(t, taskB), w.gold(t, taskC)
	first := call("submit", a)
	first.fail = []int{429, 500}
	explore := call("execute_sql", "SELECT * FROM books LIMIT 1")
	explore.fail = []int{slow, drop}
	return map[string][][]reply{
		w.question(t, taskA): {
			{first},                       // correct, first shot
			{explore, call("submit", a)},  // correct after exploring: repair
			{call("submit", "SELECT -1")}, // mismatch
			{{tool: "execute_sql", args: `{sql: SELECT`}, call("submit", a)}, // malformed call, then correct: repair
		},
		w.question(t, taskB): {
			{call("execute_sql", "SELECT -1"), call("submit", "SELECT -1")}, // mismatch
			{call("submit", "SELECT -1")},                                   // mismatch
			{{tool: "drop_table", args: `{}`}, call("submit", b)},           // unknown tool, then correct: repair
			{call("submit", "SELECT -2")},                                   // mismatch
		},
		w.question(t, taskC): {
			{{text: "The answer needs no tool."}, call("submit", "SELEC count(*) FROM patients")}, // pred_error
			{call("execute_sql", c), call("submit", c)},                                           // correct, first shot: the first query was the answer
			{call("submit", "SELECT -1")},                                                         // mismatch
			{call("submit", "select COUNT(*) from patients p where p.email is null")},             // correct, first shot
		},
	}
}

func TestRolloutReportNumbers(t *testing.T) {
	w := newWorld(t)
	m := newStubModel(t, mixScripts(t, w))
	ctx := context.Background()
	sum := rollout.Run(ctx, rollout.Config{Env: w.env, Chat: m.chat(t), Run: "mix", Model: "stub-model", Concurrency: 4},
		rollout.Plan([]string{taskA, taskB, taskC}, 4, nil))
	if sum.Err != nil || sum.Finished != 12 || sum.Failed != 0 {
		t.Fatalf("summary %+v, want 12 finished", sum)
	}
	if sum.Usage.CompletionTokens != 10*m.answered() {
		t.Errorf("completion tokens %d, want 10 per answered request (%d)", sum.Usage.CompletionTokens, m.answered())
	}
	eps := w.episodes(t, "mix", false)
	for _, ep := range eps {
		for _, st := range ep.Steps { // the stub reports 10 completion tokens a reply
			if st.Usage == nil || st.Usage.CompletionTokens != 10 {
				t.Fatalf("%s turn %d usage %+v, want the completion's 10 tokens", ep.EpisodeID, st.Turn, st.Usage)
			}
		}
	}
	rep := report.Build(ctx, eps, report.Options{Voter: w.voter()})
	// By hand: A has 3 of 4 correct, B 1 of 4, C 2 of 4.
	want := map[string]float64{
		"1": (3.0/4 + 1.0/4 + 2.0/4) / 3,
		"2": (1 + (1 - 3.0/6) + (1 - 1.0/6)) / 3, // 1 - C(n-c,2)/C(4,2)
		"3": (1 + (1 - 1.0/4) + 1) / 3,
		"4": 1,
	}
	for k, v := range want {
		if !near(rep.PassAtK[k], v) {
			t.Errorf("pass@%s = %v, want %v", k, rep.PassAtK[k], v)
		}
	}
	checks := []struct {
		name      string
		got, want float64
	}{
		{"mean", rep.MeanAccuracy, 6.0 / 12},
		{"sc", rep.SCAccuracy, 2.0 / 3}, // A: 3 votes for the gold's rows; B: 2 for -1; C: 2 for the gold's rows
		{"first shot", rep.FirstShotAccuracy, 3.0 / 12},
		{"after repair", rep.AfterRepairAccuracy, 3.0 / 12},
		{"library mean", rep.ByDB["demo/library"].MeanAccuracy, 4.0 / 8},
		{"clinic sc", rep.ByDB["demo/clinic"].SCAccuracy, 1},
		{"easy pass@1", rep.ByDifficulty["easy"].PassAtK["1"], 0.5},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	wantOutcomes := map[string]int{schemas.OutcomeCorrect: 6, schemas.OutcomeMismatch: 5, schemas.OutcomePredError: 1}
	if !equalCounts(rep.Outcomes, wantOutcomes) {
		t.Errorf("outcomes %v, want %v", rep.Outcomes, wantOutcomes)
	}
	// The call whose arguments are not JSON is recorded as the call the
	// model made (execute_sql, failed with bad_arguments): the message
	// goes to the episode whole.
	wantTools := map[string]int{"submit": 12, "execute_sql": 4, "drop_table": 1, "none": 1}
	if !equalCounts(rep.ToolCalls, wantTools) {
		t.Errorf("tool calls %v, want %v", rep.ToolCalls, wantTools)
	}
	if !equalCounts(rep.Turns, map[string]int{"1": 6, "2": 6}) {
		t.Errorf("turns %v, want 6 of 1 and 6 of 2", rep.Turns)
	}
	if rep.Run != "mix" || rep.Model != "stub-model" || rep.Tasks != 3 || rep.Samples != 4 || rep.Episodes != 12 {
		t.Errorf("run %q model %q tasks %d samples %d episodes %d", rep.Run, rep.Model, rep.Tasks, rep.Samples, rep.Episodes)
	}
	checkRequestShapes(t, m.requests())
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func equalCounts(got, want map[string]int) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}
