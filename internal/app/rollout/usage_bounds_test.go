package rollout_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/internal/app/rollout"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestImpossibleUsageIsRefused: an endpoint that reports 10^12 completion
// tokens, or negative prompt tokens, is refused as the server refuses
// such a step: the episode is closed early, recorded without the counts,
// and the run counts none of them; in process and served alike.
func TestImpossibleUsageIsRefused(t *testing.T) {
	for name, build := range map[string]func(*testing.T) *world{"in process": newWorld, "served": newServedWorld} {
		t.Run(name, func(t *testing.T) {
			w := build(t)
			huge := call("submit", w.gold(t, taskA))
			huge.usage = map[string]int{"prompt_tokens": 100, "completion_tokens": 1_000_000_000_000}
			negative := call("submit", w.gold(t, taskB))
			negative.usage = map[string]int{"prompt_tokens": -5, "completion_tokens": 10}
			m := newStubModel(t, map[string][][]reply{w.question(t, taskA): {{huge}}, w.question(t, taskB): {{negative}}})
			var results []rollout.Result
			sum := rollout.Run(context.Background(), rollout.Config{Env: w.env, Chat: m.chat(t), Run: "usage", Model: "stub-model",
				OnResult: func(r rollout.Result) { results = append(results, r) }}, rollout.Plan([]string{taskA, taskB}, 1, nil))
			if sum.Failed != 2 || sum.Usage != (rollout.Usage{}) {
				t.Fatalf("summary %+v, want both episodes failed and no tokens counted", sum)
			}
			for _, r := range results {
				want := map[string]string{taskA: "usage.completion_tokens must be from 0 to 16777216, got 1000000000000",
					taskB: "usage.prompt_tokens must be from 0 to 16777216, got -5"}[r.Sample.TaskID]
				if r.Err == nil || !strings.Contains(r.Err.Error(), want) || r.Usage != (rollout.Usage{}) {
					t.Errorf("%s: %v, usage %+v; want an error saying %q and no usage", r.Sample.TaskID, r.Err, r.Usage, want)
				}
			}
			for _, ep := range w.episodes(t, "usage", false) {
				if ep.Outcome != schemas.OutcomeNoSubmit || len(ep.Steps) != 0 {
					t.Errorf("%s: %s after %d steps, want closed early with none recorded", ep.EpisodeID, ep.Outcome, len(ep.Steps))
				}
			}
		})
	}
}

// TestManagerStepChecksUsage: a step played on a Manager in process is
// checked as a step sent to the server is: the same error (an
// InvalidArgument in process, which the server sends as -32602), nothing
// run, no turn taken.
func TestManagerStepChecksUsage(t *testing.T) {
	ctx := context.Background()
	var msgs []string
	for _, w := range []*world{newWorld(t), newServedWorld(t)} {
		r, err := w.env.Reset(ctx, schemas.ResetParams{TaskID: taskA})
		if err != nil {
			t.Fatal(err)
		}
		a := schemas.Action{Tool: "execute_sql", Arguments: []byte(`{"sql": "SELECT 1"}`)}
		_, err = w.env.Step(ctx, schemas.StepParams{EpisodeID: r.EpisodeID, Action: a, Usage: &schemas.Usage{CompletionTokens: 1_000_000_000_000}})
		msg, ok := invalidArgument(err)
		if !ok {
			t.Fatalf("a step with 10^12 completion tokens: %v, want an invalid argument", err)
		}
		msgs = append(msgs, msg)
		if st, err := w.env.Step(ctx, schemas.StepParams{EpisodeID: r.EpisodeID, Action: a, Usage: &schemas.Usage{CompletionTokens: 10}}); err != nil || st.Info.Turn != 1 {
			t.Fatalf("the next step: %v, %v; want turn 1", st, err)
		}
	}
	if msgs[0] != msgs[1] {
		t.Errorf("in process %q, served %q: want the same error", msgs[0], msgs[1])
	}
}

// invalidArgument is err's message, and whether err says the call's
// arguments were wrong: an InvalidArgument of a Manager in process, a
// -32602 of the server.
func invalidArgument(err error) (string, bool) {
	var re *schemas.Error
	switch {
	case err == nil:
		return "", false
	case errors.As(err, &re):
		return re.Message, re.Code == schemas.CodeInvalidParams
	}
	return err.Error(), errors.Is(err, episodes.InvalidArgument)
}
