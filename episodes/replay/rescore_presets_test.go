package replay_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/replay"
	"github.com/sqlgym/sqlgym/examples/rewards"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestRescorePresets pays episodes recorded under a spec without the
// paper terms (as every trajectory recorded before them) under the
// presets: retoolsql judges again for the facts the record cannot tell
// (tables read, rows returned, the table-read guard) and pays the length
// term on the usage recorded; binary pays from the record alone, and
// counts the constant answer correct, as the official EX does.
func TestRescorePresets(t *testing.T) {
	st := newStack(t, shop(t))
	store := newMemStore()
	c := st.serve(t, store, 4)
	ctx := context.Background()
	old := json.RawMessage(`{"final":{"requires_table_read":false}}`)
	for _, sql := range []string{"SELECT name, price FROM items WHERE id = 1", "SELECT 'pen', 1.5"} {
		r, err := c.Reset(ctx, schemas.ResetParams{TaskID: "shop/pair", Reward: old})
		if err != nil {
			t.Fatal(err)
		}
		p := schemas.StepParams{EpisodeID: r.EpisodeID, Action: client.ToolCall("submit", map[string]any{"sql": sql})}
		if sql[7] == 'n' {
			p.Usage = &schemas.Usage{CompletionTokens: 2048}
		}
		if _, err := c.StepParams(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	recs := store.records(t)
	if recs[0].Outcome != "correct" || recs[1].Outcome != "correct" || recs[0].RewardSpec.Final.RequiresTableRead {
		t.Fatalf("recorded %s, %s under %+v; want two correct under a spec without the guard", recs[0].Outcome, recs[1].Outcome, recs[0].RewardSpec.Final)
	}
	tests := []struct {
		preset   string
		rejudged int
		totals   [2]float64
		finals   [2]float64
	}{
		// 0.2 format; 2 + 0.5 + 0.5 + 0.5 + 0.1 - 0.05 (2048 of 4096 tokens).
		// The constant answer: a mismatch that ran and returned rows.
		{"retoolsql", 2, [2]float64{3.75, 0.8}, [2]float64{3.55, 0.6}},
		{"binary", 0, [2]float64{1, 1}, [2]float64{1, 1}},
		{"arctic-text2sql-r1", 2, [2]float64{1, 0.1}, [2]float64{1, 0.1}},
	}
	for _, tt := range tests {
		spec, err := rewards.Preset(tt.preset)
		if err != nil {
			t.Fatal(err)
		}
		r := replay.NewRescorer(replay.RescoreConfig{Spec: spec, Datasets: st.datasets, Catalog: st.catalog, Judge: st.judge})
		got, rep := rescoreAll(t, r, store)
		if rep.Rejudged != tt.rejudged || len(rep.Unscorable) != 0 {
			t.Errorf("%s: %d judged again (%v), want %d", tt.preset, rep.Rejudged, rep.Unscorable, tt.rejudged)
		}
		for i, rec := range recs {
			g := got[rec.EpisodeID]
			if g.Outcome != "correct" || !near(g.TotalReward, tt.totals[i]) || !near(g.FinalReward, tt.finals[i]) {
				t.Errorf("%s: episode %d: %s total %v final %v (%v), want correct %v %v", tt.preset, i, g.Outcome,
					g.TotalReward, g.FinalReward, g.Steps[0].RewardComponents, tt.totals[i], tt.finals[i])
			}
		}
	}
}
