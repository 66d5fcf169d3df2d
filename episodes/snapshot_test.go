package episodes_test

import (
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
			if tr, err := h.mgr.Get(r.EpisodeID); err == nil {
				for i := range tr.Steps {
					_ = tr.Steps[i].Observation
				}
			}
		}
	})
	var taken []*schemas.Trajectory
	for i := range turns - 1 {
		step(t, c, r.EpisodeID, execSQL(fmt.Sprintf("SELECT %d", i)))
		tr, err := h.mgr.Get(r.EpisodeID)
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
	final, err := h.mgr.Get(r.EpisodeID)
	if err != nil || len(final.Steps) != turns || final.Steps[turns-1].Outcome != schemas.OutcomeCorrect {
		t.Fatalf("ended trajectory: %v, %+v", err, final)
	}
}
