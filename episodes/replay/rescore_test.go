package replay_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/replay"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/schemas"
)

// spec is the default spec with patch merged over it.
func spec(t *testing.T, patch string) schemas.RewardSpec {
	t.Helper()
	s, err := reward.Resolve(schemas.DefaultRewardSpec(), json.RawMessage(patch))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rescoreAll rescores every complete record of store and returns the
// rescored records by episode id, and the report.
func rescoreAll(t *testing.T, r *replay.Rescorer, store trajlog.Reader) (map[string]*trajlog.Record, *replay.RescoreReport) {
	t.Helper()
	out := map[string]*trajlog.Record{}
	rep, err := r.Run(context.Background(), store, trajlog.Filter{}, func(rs *replay.Rescored) error {
		out[rs.Record.EpisodeID] = rs.Record
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, rep
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestRescoreUnderTheSameSpec pays every demo episode again under the
// spec it was recorded with: every number comes out as recorded.
func TestRescoreUnderTheSameSpec(t *testing.T) {
	st := newStack(t, demoDataset(t))
	store := record(t, st, st.datasets[0].Tasks)
	got, rep := rescoreAll(t, replay.NewRescorer(replay.RescoreConfig{Spec: schemas.DefaultRewardSpec()}), store)
	if rep.Episodes != 64 || rep.Rejudged != 0 || len(rep.Unscorable) != 0 || rep.OutcomeChanged != 0 {
		t.Errorf("report %+v, want 64 episodes rescored from the record alone", rep)
	}
	for _, want := range store.records(t) {
		g := got[want.EpisodeID]
		if g == nil {
			continue
		}
		if !near(g.TotalReward, want.TotalReward) || !near(g.FinalReward, want.FinalReward) || g.Outcome != want.Outcome {
			t.Errorf("%s: total %v final %v %s, want %v %v %s", want.EpisodeID, g.TotalReward, g.FinalReward, g.Outcome,
				want.TotalReward, want.FinalReward, want.Outcome)
		}
		for i := range want.Steps {
			if g.Steps[i].Reward != want.Steps[i].Reward || componentsText(g.Steps[i].RewardComponents) != componentsText(want.Steps[i].RewardComponents) {
				t.Errorf("%s step %d: %v %v, want %v %v", want.EpisodeID, i+1, g.Steps[i].Reward, g.Steps[i].RewardComponents,
					want.Steps[i].Reward, want.Steps[i].RewardComponents)
			}
		}
		if componentsText(g.CloseComponents) != componentsText(want.CloseComponents) {
			t.Errorf("%s: close components %v, want %v", want.EpisodeID, g.CloseComponents, want.CloseComponents)
		}
	}
}

func componentsText(m map[string]float64) string {
	b, _ := json.Marshal(m)
	return string(b)
}

// TestRescoreDoublesCorrect pays correct 2 instead of 1: the correct
// episodes' final reward doubles, and nothing else changes.
func TestRescoreDoublesCorrect(t *testing.T) {
	st := newStack(t, demoDataset(t))
	store := record(t, st, st.datasets[0].Tasks)
	next := spec(t, `{"final": {"correct": 2}}`)
	got, rep := rescoreAll(t, replay.NewRescorer(replay.RescoreConfig{Spec: next}), store)
	correct := 0
	for _, want := range store.records(t) {
		g := got[want.EpisodeID]
		switch {
		case want.Outcome == schemas.OutcomeCorrect:
			correct++
			if !near(g.FinalReward, 2*want.FinalReward) || !near(g.TotalReward-want.TotalReward, want.FinalReward) {
				t.Errorf("%s: final %v total %v, want final %v total %v", want.EpisodeID, g.FinalReward, g.TotalReward,
					2*want.FinalReward, want.TotalReward+want.FinalReward)
			}
			if last := g.Steps[len(g.Steps)-1]; last.RewardComponents["final.correct"] != 2 {
				t.Errorf("%s: last step components %v, want final.correct 2", want.EpisodeID, last.RewardComponents)
			}
		case !near(g.FinalReward, want.FinalReward) || !near(g.TotalReward, want.TotalReward):
			t.Errorf("%s (%s): rewards changed to %v/%v from %v/%v", want.EpisodeID, want.Outcome,
				g.FinalReward, g.TotalReward, want.FinalReward, want.TotalReward)
		}
		if g.RewardSpec != next || g.RewardSpecHash != reward.Hash(next) {
			t.Errorf("%s: rescored record keeps the old spec", want.EpisodeID)
		}
	}
	before, after := replay.NewDist(rep.TotalBefore), replay.NewDist(rep.TotalAfter)
	if correct == 0 || !near(after.Mean-before.Mean, float64(correct)/float64(rep.Episodes)) {
		t.Errorf("mean total reward %v -> %v, want it up by %d/%d", before.Mean, after.Mean, correct, rep.Episodes)
	}
	for k, v := range rep.OutcomesBefore {
		if rep.OutcomesAfter[k] != v {
			t.Errorf("outcome %s: %d -> %d, want unchanged", k, v, rep.OutcomesAfter[k])
		}
	}
	if s := rep.Summary(); !strings.Contains(s, "mean") || !strings.Contains(s, "correct") || !strings.Contains(s, "p50") {
		t.Errorf("summary lacks the distribution or the outcomes:\n%s", s)
	}
}

const shopSQL = `
CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL);
INSERT INTO items VALUES (1,'pen',1.5),(2,'desk',120.0),(3,'lamp',35.0);
`

// shop is a dataset whose tasks tell the match modes apart.
func shop(t *testing.T) *env.Dataset {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shop.sqlite")
	if err := sqlite.Build(context.Background(), path, shopSQL); err != nil {
		t.Fatal(err)
	}
	ds := &env.Dataset{Name: "shop", Dialect: "sqlite", DBs: map[string]string{"shop": path}, Tasks: []env.Task{
		{ID: "shop/pair", Dataset: "shop", DBID: "shop", Question: "Name and price of item 1.", GoldSQL: "SELECT name, price FROM items WHERE id = 1"},
		{ID: "shop/empty", Dataset: "shop", DBID: "shop", Question: "Items over 1000.", GoldSQL: "SELECT name FROM items WHERE price > 1000"},
	}}
	if err := ds.Index(); err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestRescoreJudgesAgain covers the spec changes the record cannot
// answer: another match mode, and weights the old spec did not pay.
func TestRescoreJudgesAgain(t *testing.T) {
	st := newStack(t, shop(t))
	store := newMemStore()
	c := st.serve(t, store, 4)
	ctx := context.Background()
	for _, ep := range []struct{ task, sql string }{
		{"shop/pair", "SELECT price, name FROM items WHERE id = 1"}, // columns swapped: bird says mismatch
		{"shop/empty", "SELECT name FROM items WHERE price > 5000"}, // empty gold, empty answer: correct
	} {
		r, err := c.Reset(ctx, schemas.ResetParams{TaskID: ep.task})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Step(ctx, r.EpisodeID, client.ToolCall("execute_sql", map[string]any{"sql": "SELECT nope"})); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Step(ctx, r.EpisodeID, client.ToolCall("submit", map[string]any{"sql": ep.sql})); err != nil {
			t.Fatal(err)
		}
	}
	recs := store.records(t)
	if recs[0].Outcome != "mismatch" || recs[1].Outcome != "correct" {
		t.Fatalf("recorded outcomes %s, %s; want mismatch, correct", recs[0].Outcome, recs[1].Outcome)
	}
	tests := []struct {
		name     string
		patch    string
		rejudged int
		outcomes [2]string
		finals   [2]float64
		totals   [2]float64
	}{
		{"spider matches swapped columns", `{"match": "spider"}`, 2, [2]string{"correct", "correct"}, [2]float64{1, 1}, [2]float64{0.98, 0.98}},
		{"empty gold paid half", `{"final": {"empty_gold_scale": 0.5}}`, 1, [2]string{"mismatch", "correct"}, [2]float64{0.1, 0.5}, [2]float64{0.08, 0.48}},
		{"column overlap paid", `{"final": {"column_jaccard": 0.5}}`, 2, [2]string{"mismatch", "correct"}, [2]float64{0.6, 1.5}, [2]float64{0.58, 1.48}},
		{"turn penalty clipped by the cap", `{"turn": {"tool_error": -0.5}}`, 0, [2]string{"mismatch", "correct"}, [2]float64{0.1, 1}, [2]float64{-0.1, 0.8}},
	}
	for _, tt := range tests {
		r := replay.NewRescorer(replay.RescoreConfig{Spec: spec(t, tt.patch), Datasets: st.datasets, Catalog: st.catalog, Judge: st.judge})
		got, rep := rescoreAll(t, r, store)
		if rep.Rejudged != tt.rejudged || len(rep.Unscorable) != 0 {
			t.Errorf("%s: %d judged again (%v not rescored), want %d", tt.name, rep.Rejudged, rep.Unscorable, tt.rejudged)
		}
		for i, rec := range recs {
			g := got[rec.EpisodeID]
			if g.Outcome != tt.outcomes[i] || !near(g.FinalReward, tt.finals[i]) || !near(g.TotalReward, tt.totals[i]) {
				t.Errorf("%s: %s -> %s final %v total %v, want %s final %v total %v", tt.name, rec.Task.TaskID,
					g.Outcome, g.FinalReward, g.TotalReward, tt.outcomes[i], tt.finals[i], tt.totals[i])
			}
		}
	}
	// Without the dataset, what needs the judge cannot be rescored: the
	// run stops at the first such episode with one error naming the
	// dataset, rather than one line per episode.
	calls := 0
	_, err := replay.NewRescorer(replay.RescoreConfig{Spec: spec(t, `{"match": "spider"}`)}).Run(context.Background(), store, trajlog.Filter{},
		func(*replay.Rescored) error { calls++; return nil })
	var missing *replay.MissingDatasetError
	if !errors.As(err, &missing) || missing.Dataset != "shop" || !strings.Contains(err.Error(), "--dataset") || calls != 0 {
		t.Errorf("without datasets: %v after %d rescored; want a MissingDatasetError for shop saying to pass --dataset, none rescored", err, calls)
	}
}

func TestDistAndHistogram(t *testing.T) {
	d := replay.NewDist([]float64{4, 1, 3, 2, 5})
	if d.N != 5 || d.Mean != 3 || d.Min != 1 || d.Max != 5 {
		t.Errorf("dist %+v", d)
	}
	// numpy.quantile([1,2,3,4,5], [.1,.25,.5,.75,.9]) = 1.4, 2, 3, 4, 4.6
	for i, want := range []float64{1.4, 2, 3, 4, 4.6} {
		if !near(d.Quantiles[i], want) {
			t.Errorf("quantile %v = %v, want %v", replay.QuantileLevels[i], d.Quantiles[i], want)
		}
	}
	edges, cx, cy := replay.Histogram([]float64{0, 0.5, 1}, []float64{1, 2}, 4)
	if len(edges) != 4 || edges[0] != 0 || edges[3] != 1.5 {
		t.Errorf("edges %v, want 0, 0.5, 1, 1.5", edges)
	}
	if want := []int{1, 1, 1, 0}; !equalInts(cx, want) {
		t.Errorf("before counts %v, want %v", cx, want)
	}
	if want := []int{0, 0, 1, 1}; !equalInts(cy, want) {
		t.Errorf("after counts %v, want %v", cy, want)
	}
	if e, x, _ := replay.Histogram([]float64{2, 2}, nil, 10); len(e) != 1 || x[0] != 2 {
		t.Errorf("equal values: edges %v counts %v, want one bin of 2", e, x)
	}
	if empty := replay.NewDist(nil); empty.N != 0 || empty.Mean != 0 {
		t.Errorf("empty dist %+v", empty)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestStatsOfHugeRewards: rewards at the ends of the float range, as a
// record may hold them, are described and binned without a panic, and
// every number is finite.
func TestStatsOfHugeRewards(t *testing.T) {
	xs := []float64{1e308, -1e308, math.MaxFloat64, -math.MaxFloat64, 0, math.SmallestNonzeroFloat64}
	ys := []float64{1, -1, math.Inf(1), math.NaN()}
	d := replay.NewDist(xs)
	all := append([]float64{d.Mean, d.Min, d.Max}, d.Quantiles...)
	edges, cx, cy := replay.Histogram(xs, ys, 10)
	for _, v := range append(all, edges...) {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			t.Fatalf("dist %+v edges %v: a number is not finite", d, edges)
		}
	}
	if d.N != 6 || d.Min != -math.MaxFloat64 || d.Max != math.MaxFloat64 {
		t.Errorf("dist %+v", d)
	}
	if sum(cx) != len(xs) || sum(cy) != 2 || cx[0] != 1 || cx[9] != 1 {
		t.Errorf("counts %v / %v, want every value of xs and the finite ones of ys, the extremes in the end bins", cx, cy)
	}
	if r := (&replay.RescoreReport{TotalBefore: xs, TotalAfter: ys}).Summary(); !strings.Contains(r, "total_reward from") {
		t.Errorf("summary:\n%s", r)
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
