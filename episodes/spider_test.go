package episodes_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestSpiderDevGoldsAndSelectOne submits, over the WebSocket, every gold
// of Spider-dev (correct) and SELECT 1 (mismatch, except where the gold's
// rows really are all 1).
func TestSpiderDevGoldsAndSelectOne(t *testing.T) {
	dir := spiderdev.Dir(t)
	ds, err := datasets.LoadSpider("spider-dev", dir)
	if err != nil {
		t.Fatal(err)
	}
	h := startHarness(t, options{cfg: func(c *episodes.Config) {
		c.MaxEpisodes = 64
	}}, t.TempDir(), ds)
	onlyOnes := goldIsAllOnes(t, ds)
	c := h.dial()
	ctx := context.Background()
	tasks := make(chan *env.Task)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Go(func() {
			for task := range tasks {
				for _, sub := range []struct{ sql, want string }{
					{task.GoldSQL, "correct"},
					{"SELECT 1", map[bool]string{true: "correct", false: "mismatch"}[onlyOnes[task.ID]]},
				} {
					r, err := c.Reset(ctx, schemas.ResetParams{TaskID: task.ID})
					if err != nil {
						t.Errorf("%s: reset: %v", task.ID, err)
						continue
					}
					s, err := c.Step(ctx, r.EpisodeID, submitSQL(sub.sql))
					if err != nil || s.Info.Outcome != sub.want {
						t.Errorf("%s: submit %q: %v %v, want %s", task.ID, sub.sql, outcomeOf(s), err, sub.want)
					}
				}
			}
		})
	}
	for i := range ds.Tasks {
		tasks <- &ds.Tasks[i]
	}
	close(tasks)
	wg.Wait()
	if len(ds.Tasks) != 972 {
		t.Errorf("%d tasks, want 972", len(ds.Tasks))
	}
}

func outcomeOf(s *schemas.StepResult) any {
	if s == nil {
		return nil
	}
	return s.Info
}

// goldIsAllOnes runs every gold directly on the engine and reports the
// tasks whose result, as a set, is the one row (1).
func goldIsAllOnes(t *testing.T, ds *env.Dataset) map[string]bool {
	t.Helper()
	ctx := context.Background()
	eng := sqlite.New(sqlite.Config{})
	out := map[string]bool{}
	dbs := map[string]env.DB{}
	defer func() {
		for _, db := range dbs {
			db.Close()
		}
	}()
	for _, task := range ds.Tasks {
		db, ok := dbs[task.DBID]
		if !ok {
			var err error
			if db, err = eng.Open(ctx, ds.DBs[task.DBID]); err != nil {
				t.Fatal(err)
			}
			dbs[task.DBID] = db
		}
		rs, err := db.Query(ctx, task.GoldSQL, env.Limits{Timeout: 30 * time.Second})
		if err != nil {
			t.Fatalf("%s: gold: %v", task.ID, err)
		}
		ones := len(rs.Rows) > 0
		for _, row := range rs.Rows {
			ones = ones && len(row) == 1 && (row[0] == int64(1) || row[0] == float64(1))
		}
		out[task.ID] = ones
	}
	return out
}
