package episodes_test

import (
	"context"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog/pgstore"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/schemas"
)

// A replica that recorded the step ending an episode and died before
// recording its end: the replica that takes the episode over records the
// end the first would have (its outcome, its rewards), answers the step
// sent again from the record, and never ends it as abandoned.
func TestTakeoverEndsWhatTheLastStepEnded(t *testing.T) {
	ctx := context.Background()
	url, _ := pgtest.URL(t)
	one := newHarness(t, options{})
	want := playAll(t, one.dial(), takeoverScript)
	full := lastTrajectory(t, one)

	dead, err := pgstore.OpenConfig(ctx, pgstore.Config{URL: url, Replica: "dead", LeaseTTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	begin := *full
	begin.Steps, begin.EndedAt, begin.Outcome, begin.FinalReward, begin.TotalReward = []schemas.StepRecord{}, nil, "", 0, 0
	if err := dead.Begin(ctx, &begin); err != nil {
		t.Fatal(err)
	}
	for i := range full.Steps {
		if err := dead.Step(ctx, full.EpisodeID, &full.Steps[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := dead.HandBack(ctx); err != nil { // as its lease running out would
		t.Fatal(err)
	}
	dead.Close()

	var store *pgstore.Store
	b := newHarness(t, options{cfg: replicaOn(t, url, "b", &store)})
	last := len(takeoverScript)
	again := stepTurn(t, b.dial(), full.EpisodeID, last, takeoverScript[last-1])
	if !again.Info.Replayed || !again.Terminated || again.Reward != want[last-1].Reward {
		t.Fatalf("the ending step sent again: %+v, want the recorded %+v", again, want[last-1])
	}
	rec, err := store.Load(ctx, full.EpisodeID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.EndedAt == nil || rec.Outcome != full.Outcome || rec.TotalReward != full.TotalReward ||
		rec.FinalReward != full.FinalReward || len(rec.CloseComponents) != 0 {
		t.Fatalf("stored end: %v %q total %v final %v close %v; want %q total %v final %v",
			rec.EndedAt, rec.Outcome, rec.TotalReward, rec.FinalReward, rec.CloseComponents, full.Outcome, full.TotalReward, full.FinalReward)
	}
	b.mgr.Expire(ctx) // an orphan sweep finds nothing left to abandon
	if rec, _ := store.Load(ctx, full.EpisodeID); rec.Outcome != full.Outcome {
		t.Fatalf("after a sweep: %q, want %q", rec.Outcome, full.Outcome)
	}
}
