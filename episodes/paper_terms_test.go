package episodes_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

// retoolOverride is ReToolSQL's reward as an episode.reset override.
const retoolOverride = `{"final":{"correct":2,"mismatch":0,"pred_error":0,"pred_timeout":0,"no_submit":0,
	"executes":0.5,"executes_on_correct":true,"column_jaccard":0.5,"table_jaccard":0.5,"nonempty":0.1,
	"length":-0.1,"length_tokens":1000,"requires_table_read":true},
	"turn":{"tool_error":0,"format_error":0,"repeat":0,"ok":0,"format_ok":0.2,"cap":0.2}}`

// TestPaperTermsOverTheWire: the usage a client reports is recorded with
// its step and paid by the length term (500 of 1000 tokens); table
// overlap and rows returned are paid; the format term was paid in full
// on the first step (its cap); a constant answer is not paid as correct
// (both it and count(*) read no column: their column overlap is full).
func TestPaperTermsOverTheWire(t *testing.T) {
	h := newHarness(t, options{})
	c := h.dial()
	ctx := context.Background()
	tests := []struct {
		sql, content string
		want         map[string]float64
	}{
		{"SELECT count(*) FROM items", "Submitted. Correct.", map[string]float64{
			"turn.ok": 0, "turn.format_ok": 0, "final.correct": 2, "final.executes": 0.5, "final.column_jaccard": 0.5,
			"final.table_jaccard": 0.5, "final.nonempty": 0.1, "final.length": -0.05}},
		{"SELECT 5", "reads no table", map[string]float64{
			"turn.ok": 0, "turn.format_ok": 0, "final.mismatch": 0, "final.executes": 0.5, "final.column_jaccard": 0.5,
			"final.table_jaccard": 0, "final.nonempty": 0.1, "final.length": -0.05}},
	}
	for _, tt := range tests {
		r := reset(t, c, schemas.ResetParams{TaskID: "t/count", Reward: json.RawMessage(retoolOverride)})
		if _, err := c.StepParams(ctx, schemas.StepParams{EpisodeID: r.EpisodeID, Action: execSQL("SELECT 1"),
			Usage: &schemas.Usage{CompletionTokens: 200}}); err != nil {
			t.Fatal(err)
		}
		s, err := c.StepParams(ctx, schemas.StepParams{EpisodeID: r.EpisodeID, Action: submitSQL(tt.sql),
			Usage: &schemas.Usage{CompletionTokens: 300}})
		if err != nil {
			t.Fatal(err)
		}
		if s.Info.Outcome != schemas.OutcomeCorrect || !strings.Contains(s.Observation.Content, tt.content) {
			t.Errorf("%s: outcome %s, observation %q; want correct, saying %q", tt.sql, s.Info.Outcome, s.Observation.Content, tt.content)
		}
		if !sameComps(s.Info.RewardComponents, tt.want) {
			t.Errorf("%s: components %v, want %v", tt.sql, s.Info.RewardComponents, tt.want)
		}
		g, err := c.Episode(ctx, r.EpisodeID)
		if err != nil {
			t.Fatal(err)
		}
		if g.Steps[0].RewardComponents["turn.format_ok"] != 0.2 {
			t.Errorf("%s: first step %v, want turn.format_ok 0.2", tt.sql, g.Steps[0].RewardComponents)
		}
		if u := g.Steps[1].Usage; u == nil || u.CompletionTokens != 300 || g.Steps[0].Usage.CompletionTokens != 200 {
			t.Errorf("%s: recorded usage %+v, %+v; want 200 and 300", tt.sql, g.Steps[0].Usage, u)
		}
	}
}

func TestUsageRefused(t *testing.T) {
	c := newHarness(t, options{}).dial()
	r := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
	for _, n := range []int{-1, schemas.MaxCompletionTokens + 1, math.MaxInt64} {
		_, err := c.StepParams(context.Background(), schemas.StepParams{EpisodeID: r.EpisodeID, Action: execSQL("SELECT 1"),
			Usage: &schemas.Usage{CompletionTokens: n}})
		if rpcCode(err) != schemas.CodeInvalidParams || !strings.Contains(err.Error(), "usage.completion_tokens must be from 0 to 16777216") {
			t.Errorf("%d tokens: %v, want invalid params naming usage.completion_tokens and its range", n, err)
		}
	}
}

// TestLengthTermStaysWithinItsWeight: however many tokens the steps
// report, within the bound, the length term pays at most its weight:
// the sum of two steps' counts cannot wrap into a reward.
func TestLengthTermStaysWithinItsWeight(t *testing.T) {
	c := newHarness(t, options{}).dial()
	r := reset(t, c, schemas.ResetParams{TaskID: "t/count", Reward: json.RawMessage(`{"final":{"length":-0.1,"length_tokens":4096}}`)})
	for range 2 {
		if _, err := c.StepParams(context.Background(), schemas.StepParams{EpisodeID: r.EpisodeID, Action: execSQL("SELECT 1"),
			Usage: &schemas.Usage{CompletionTokens: schemas.MaxCompletionTokens}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := c.CloseEpisode(context.Background(), r.EpisodeID)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.RewardComponents["final.length"]; !near(got, -0.1) {
		t.Errorf("final.length = %v, want the weight -0.1 (components %v)", got, res.RewardComponents)
	}
}

func sameComps(got, want map[string]float64) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || !near(g, v) {
			return false
		}
	}
	return true
}
