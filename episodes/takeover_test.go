package episodes_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/pgstore"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/schemas"
)

// replicaOn is a harness option: the server records into the PostgreSQL
// store at url, shared as replica id.
func replicaOn(t *testing.T, url, id string, store **pgstore.Store) func(*episodes.Config) {
	return func(c *episodes.Config) {
		s, err := pgstore.OpenConfig(context.Background(), pgstore.Config{URL: url, Replica: id, LeaseTTL: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		c.Recorder, c.Shared = s, s
		if store != nil {
			*store = s
		}
	}
}

// takeoverScript is one episode's actions: a good call, a failing one,
// the first again (a repeat), and the gold submitted.
var takeoverScript = []schemas.Action{
	execSQL("SELECT name FROM items"),
	execSQL("SELECT nope FROM items"),
	execSQL("SELECT name FROM items"),
	submitSQL("SELECT name FROM items WHERE category = 'furniture' ORDER BY price"),
}

// An episode begun on replica a and handed back is driven to its end by
// replica b: every reply, the rewards and the stored trajectory are those
// of one server playing the same actions, a step sent again is answered
// from the store, and b refuses the episode while a still drives it.
func TestTakeoverAnswersAsOneServer(t *testing.T) {
	url, _ := pgtest.URL(t)
	var storeA *pgstore.Store
	a := newHarness(t, options{cfg: replicaOn(t, url, "a", &storeA)})
	b := newHarness(t, options{cfg: replicaOn(t, url, "b", nil)})
	one := newHarness(t, options{})
	want := playAll(t, one.dial(), takeoverScript)

	ca, cb := a.dial(), b.dial()
	r := reset(t, ca, schemas.ResetParams{TaskID: "t/names"})
	got := []*schemas.StepResult{stepTurn(t, ca, r.EpisodeID, 1, takeoverScript[0]), stepTurn(t, ca, r.EpisodeID, 2, takeoverScript[1])}
	if _, err := cb.StepParams(context.Background(), schemas.StepParams{EpisodeID: r.EpisodeID, Action: takeoverScript[2], Turn: 3}); rpcCode(err) != schemas.CodeElsewhere {
		t.Fatalf("a step on b while a drives the episode: %v, want -32007", err)
	}
	if tr, err := b.trajectory(r.EpisodeID); err != nil || len(tr.Steps) != 2 {
		t.Fatalf("episode.get on b of a's live episode: %v, %v; want its 2 steps from the store", err, tr)
	}
	a.mgr.Drain()
	if err := a.mgr.HandBack(context.Background()); err != nil {
		t.Fatal(err)
	}
	again := stepTurn(t, cb, r.EpisodeID, 2, takeoverScript[1])
	if !again.Info.Replayed || again.Reward != got[1].Reward || again.Observation != got[1].Observation {
		t.Fatalf("turn 2 sent again to b: %+v, want a's reply %+v", again, got[1])
	}
	got = append(got, stepTurn(t, cb, r.EpisodeID, 3, takeoverScript[2]), stepTurn(t, cb, r.EpisodeID, 4, takeoverScript[3]))
	for i := range want {
		if got[i].Reward != want[i].Reward || !reflect.DeepEqual(got[i].Info.RewardComponents, want[i].Info.RewardComponents) ||
			got[i].Info.Outcome != want[i].Info.Outcome || got[i].Info.TurnsLeft != want[i].Info.TurnsLeft {
			t.Errorf("turn %d: got %+v\nwant %+v", i+1, got[i].Info, want[i].Info)
		}
	}
	if _, err := ca.StepParams(context.Background(), schemas.StepParams{EpisodeID: r.EpisodeID, Action: takeoverScript[0], Turn: 5}); rpcCode(err) != schemas.CodeElsewhere {
		t.Fatalf("a step on a after it handed the episode back: %v, want -32007", err)
	}
	rec, err := storeA.Load(context.Background(), r.EpisodeID)
	if err != nil {
		t.Fatal(err)
	}
	oneTraj := lastTrajectory(t, one)
	if rec.EndedAt == nil || len(rec.Steps) != 4 || rec.TotalReward != oneTraj.TotalReward || rec.FinalReward != oneTraj.FinalReward {
		t.Fatalf("stored: ended %v, %d steps, total %v final %v; one server: total %v final %v",
			rec.EndedAt, len(rec.Steps), rec.TotalReward, rec.FinalReward, oneTraj.TotalReward, oneTraj.FinalReward)
	}
}

// playAll plays actions as one episode of t/names, each with its turn.
func playAll(t *testing.T, c *client.Client, actions []schemas.Action) []*schemas.StepResult {
	t.Helper()
	r := reset(t, c, schemas.ResetParams{TaskID: "t/names"})
	out := make([]*schemas.StepResult, len(actions))
	for i, a := range actions {
		out[i] = stepTurn(t, c, r.EpisodeID, i+1, a)
	}
	return out
}

// lastTrajectory is the one episode h has recorded.
func lastTrajectory(t *testing.T, h *harness) *schemas.Trajectory {
	t.Helper()
	var tr *schemas.Trajectory
	if err := h.log.Episodes(context.Background(), trajlog.Filter{}, func(r *trajlog.Record) error {
		tr = &r.Trajectory
		return nil
	}); err != nil || tr == nil {
		t.Fatalf("one server's trajectory: %v", err)
	}
	return tr
}
