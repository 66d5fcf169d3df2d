package episodes_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestResetWithMaxCallsPerTurn: an episode reset in process with its own
// calls per turn runs that many calls of a turn, records the bound, and
// a bound out of range is refused.
func TestResetWithMaxCallsPerTurn(t *testing.T) {
	h := newHarness(t, options{})
	ctx := context.Background()
	r, err := h.mgr.ResetWith(ctx, schemas.ResetParams{TaskID: "t/count"}, episodes.ResetOptions{MaxCallsPerTurn: 1})
	if err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"sql":"SELECT 1"}`)
	two := schemas.AssistantMessage{Role: "assistant", ToolCalls: []schemas.ToolCall{
		{Function: schemas.FunctionCall{Name: schemas.ToolExecuteSQL, Arguments: args}},
		{Function: schemas.FunctionCall{Name: schemas.ToolExecuteSQL, Arguments: args}}}}
	res, err := h.mgr.Step(ctx, schemas.StepParams{EpisodeID: r.EpisodeID, Action: client.Message(two)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Observations) != 2 || !strings.Contains(res.Observations[1].Content, "at most 1 calls") {
		t.Errorf("observations %+v, want the second call not run", res.Observations)
	}
	if traj, err := h.trajectory(r.EpisodeID); err != nil || traj.MaxCallsPerTurn != 1 {
		t.Errorf("recorded max_calls_per_turn %d (%v), want 1", traj.MaxCallsPerTurn, err)
	}
	for _, n := range []int{-1, episodes.MaxMessageCalls + 1} {
		_, err := h.mgr.ResetWith(ctx, schemas.ResetParams{TaskID: "t/count"}, episodes.ResetOptions{MaxCallsPerTurn: n})
		if episodes.KindOf(err) != episodes.InvalidArgument {
			t.Errorf("max calls %d: %v, want InvalidArgument", n, err)
		}
	}
}
