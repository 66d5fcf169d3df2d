package episodes_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

// TestResetRefusesOverflowingWeights: a reset whose reward weights are
// finite but whose episode could be paid +Inf (which no trajectory can
// record) is -32602 naming the weight, and nothing is started; a spec at
// the bounds pays a finite reward that is recorded.
func TestResetRefusesOverflowingWeights(t *testing.T) {
	h := newHarness(t, options{})
	c := h.dial()
	ctx := context.Background()
	huge := json.RawMessage(`{"final": {"no_submit": 1.7e308}, "turn": {"ok": 1.7e308, "cap": 1.7e308}}`)
	_, err := c.Reset(ctx, schemas.ResetParams{TaskID: "t/count", Reward: huge})
	if rpcCode(err) != schemas.CodeInvalidParams || !strings.Contains(err.Error(), "reward.final.no_submit") ||
		!strings.Contains(err.Error(), "1e+06") {
		t.Fatalf("reset with weights of 1.7e308: %v, want -32602 naming reward.final.no_submit and the bound", err)
	}
	if live := metric(t, h.mgr.Metrics().Registry, "sqlgym_live_episodes"); live != 0 {
		t.Fatalf("%v live episodes after a refused reset", live)
	}
	edge := json.RawMessage(`{"final": {"no_submit": 1e6}, "turn": {"ok": 1e6, "cap": 1e6}}`)
	ep := reset(t, c, schemas.ResetParams{TaskID: "t/count", Reward: edge, MaxTurns: new(2)}).EpisodeID
	step(t, c, ep, execSQL("SELECT 1"))
	last := step(t, c, ep, execSQL("SELECT 2"))
	if !last.Truncated || last.Reward != 1e6 {
		t.Fatalf("last step: %+v, want truncated with reward 1e6 (no_submit 1e6, turn.ok 0 past the cap)", last)
	}
	got, err := c.Episode(ctx, ep)
	if err != nil || got.TotalReward != 2e6 || math.IsInf(got.TotalReward, 0) {
		t.Fatalf("episode.get: %v, %v; want total 2e6 recorded", got, err)
	}
}
