package episodes_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// stepTurn sends a step with its turn, as a client that may send it
// again does.
func stepTurn(t *testing.T, c *client.Client, id string, turn int, a schemas.Action) *schemas.StepResult {
	t.Helper()
	r, err := c.StepParams(context.Background(), schemas.StepParams{EpisodeID: id, Action: a, Turn: turn})
	if err != nil {
		t.Fatalf("step %s turn %d: %v", id, turn, err)
	}
	return r
}

// A step sent again with a turn already recorded runs nothing and gets
// the recorded reply; a turn past the next one is refused.
func TestStepSentAgainRunsOnce(t *testing.T) {
	h := newHarness(t, options{})
	c := h.dial()
	r := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
	first := stepTurn(t, c, r.EpisodeID, 1, execSQL("SELECT count(*) FROM items"))
	again := stepTurn(t, c, r.EpisodeID, 1, execSQL("SELECT count(*) FROM items"))
	if !again.Info.Replayed || first.Info.Replayed {
		t.Fatalf("replayed: first %v, again %v; want false, true", first.Info.Replayed, again.Info.Replayed)
	}
	if again.Observation != first.Observation || again.Reward != first.Reward ||
		!reflect.DeepEqual(again.Info.RewardComponents, first.Info.RewardComponents) || again.Info.Turn != 1 {
		t.Fatalf("sent again: %+v\nfirst: %+v", again, first)
	}
	if again.Info.Result == nil || again.Info.Result.RowCount != first.Info.Result.RowCount || len(again.Info.Result.Rows) != 0 {
		t.Fatalf("replayed result %+v, want the first's counts and no rows", again.Info.Result)
	}
	_, err := c.StepParams(context.Background(), schemas.StepParams{EpisodeID: r.EpisodeID, Action: execSQL("SELECT 1"), Turn: 3})
	if rpcCode(err) != schemas.CodeInvalidParams {
		t.Fatalf("turn 3 after 1 step: %v, want -32602", err)
	}
	// The next turn runs: a repeat of turn 1's call is paid as a repeat,
	// which it could not be had turn 1 been lost.
	second := stepTurn(t, c, r.EpisodeID, 2, execSQL("SELECT count(*) FROM items"))
	if second.Info.Turn != 2 || second.Info.RewardComponents["turn.repeat"] == 0 {
		t.Fatalf("turn 2: %+v, want a repeat", second.Info)
	}
	final := stepTurn(t, c, r.EpisodeID, 3, submitSQL("SELECT count(*) FROM items"))
	if !final.Terminated {
		t.Fatalf("submit: %+v", final)
	}
	// The step that ended the episode, sent again, gets its reply again.
	againFinal := stepTurn(t, c, r.EpisodeID, 3, submitSQL("SELECT count(*) FROM items"))
	if !againFinal.Info.Replayed || againFinal.Reward != final.Reward || againFinal.Info.Outcome != final.Info.Outcome {
		t.Fatalf("final sent again: %+v, want %+v", againFinal, final)
	}
	tr, err := h.trajectory(r.EpisodeID)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Steps) != 3 {
		t.Fatalf("recorded %d steps, want 3", len(tr.Steps))
	}
	if _, err := c.StepParams(context.Background(), schemas.StepParams{EpisodeID: r.EpisodeID, Action: execSQL("SELECT 1"), Turn: 4}); rpcCode(err) != schemas.CodeEpisodeEnded {
		t.Fatalf("turn 4 of an ended episode: %v, want -32002", err)
	}
}
