package episodes_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

// TestSnapshotKeepsItsSteps takes the trajectory of a live episode
// between its steps, while others read it concurrently: a trajectory
// taken earlier keeps the steps it had, unchanged, however many steps
// (past the first room made for them) come after.
func TestSnapshotKeepsItsSteps(t *testing.T) {
	h := newHarness(t, options{})
	c := h.dial()
	turns := 12
	r := reset(t, c, schemas.ResetParams{TaskID: "t/count", MaxTurns: &turns})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() { // a reader racing the steps
		for {
			select {
			case <-stop:
				return
			default:
			}
			if tr, err := h.trajectory(r.EpisodeID); err == nil {
				for i := range tr.Steps {
					_ = tr.Steps[i].Observation
				}
			}
		}
	})
	var taken []*schemas.Trajectory
	for i := range turns - 1 {
		step(t, c, r.EpisodeID, execSQL(fmt.Sprintf("SELECT %d", i)))
		tr, err := h.trajectory(r.EpisodeID)
		if err != nil {
			t.Fatal(err)
		}
		taken = append(taken, tr)
	}
	step(t, c, r.EpisodeID, submitSQL("SELECT count(*) FROM items"))
	close(stop)
	wg.Wait()
	for i, tr := range taken {
		if len(tr.Steps) != i+1 {
			t.Fatalf("trajectory taken after step %d holds %d steps", i+1, len(tr.Steps))
		}
		for j, st := range tr.Steps {
			if st.Turn != j+1 || st.Arguments == nil || st.Outcome != "" {
				t.Errorf("trajectory taken after step %d: step %d is %+v", i+1, j+1, st)
			}
		}
	}
	final, err := h.trajectory(r.EpisodeID)
	if err != nil || len(final.Steps) != turns || final.Steps[turns-1].Outcome != schemas.OutcomeCorrect {
		t.Fatalf("ended trajectory: %v, %+v", err, final)
	}
}

// TestSnapshotRendersBothWays: what Manager.Get found gives the
// trajectory as a struct and as the very bytes episode.get sends, for a
// live episode and for an ended one (kept encoded since its end).
func TestSnapshotRendersBothWays(t *testing.T) {
	h := newHarness(t, options{})
	c := h.dial()
	ctx := context.Background()
	r := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
	step(t, c, r.EpisodeID, execSQL("SELECT 1"))
	for _, when := range []string{"live", "ended"} {
		if when == "ended" {
			step(t, c, r.EpisodeID, submitSQL("SELECT count(*) FROM items"))
		}
		s, err := h.mgr.Get(r.EpisodeID)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := s.JSON()
		if err != nil {
			t.Fatal(err)
		}
		var sent json.RawMessage
		if err := c.Call(ctx, schemas.MethodEpisodeGet, map[string]string{"episode_id": r.EpisodeID}, &sent); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(raw, sent) {
			t.Errorf("%s: JSON gives\n%s\nepisode.get sends\n%s", when, raw, sent)
		}
		tr, err := s.Trajectory()
		if err != nil {
			t.Fatal(err)
		}
		if enc, _ := schemas.Marshal(tr); !bytes.Equal(enc, raw) || (tr.EndedAt != nil) != (when == "ended") {
			t.Errorf("%s: Trajectory encodes as\n%s\nwant\n%s", when, enc, raw)
		}
	}
}
