package soaktest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// sharedTasks returns the ids of the tasks on sharedDB.
func sharedTasks(t *testing.T, url string) []string {
	t.Helper()
	var ids []string
	for k, v := range tasksOf(t, url) {
		if strings.HasSuffix(k, "/"+sharedDB) {
			ids = append(ids, v...)
		}
	}
	if len(ids) == 0 {
		t.Fatalf("no task on %s", sharedDB)
	}
	return ids
}

// honest is the calls of honest clients: their latencies and errors.
type honest struct {
	mu   sync.Mutex // guards lat and errs
	lat  []time.Duration
	errs []error
}

func (h *honest) call(f func(ctx context.Context) error) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	err := f(ctx)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lat = append(h.lat, time.Since(start))
	if err != nil {
		h.errs = append(h.errs, err)
	}
	return err == nil
}

// runHonest runs workers episodes at a time on each of sockets sockets,
// on the shared database, until ctx ends; each episode is a reset, a
// query and a submission. It returns the calls' latencies and errors, and
// the fewest episodes any one worker started.
func runHonest(ctx context.Context, t *testing.T, url string, tasks []string, sockets, workers int) ([]time.Duration, []error, int) {
	h := &honest{}
	var wg sync.WaitGroup
	started := make([]int, sockets*workers)
	for s := range sockets {
		c, err := client.Dial(context.Background(), url, "")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for w := range workers {
			wg.Go(func() {
				for i := 0; ctx.Err() == nil; i++ {
					started[s*workers+w]++
					h.episode(c, tasks[(s*workers+w+i)%len(tasks)])
				}
			})
		}
	}
	wg.Wait()
	return h.lat, h.errs, slices.Min(started)
}

func (h *honest) episode(c *client.Client, task string) {
	var ep string
	ok := h.call(func(ctx context.Context) error {
		r, err := c.Reset(ctx, schemas.ResetParams{TaskID: task, Tags: []byte(`{"soak":"honest"}`)})
		if err == nil {
			ep = r.EpisodeID
		}
		return err
	})
	if !ok {
		return
	}
	for _, a := range []schemas.Action{
		client.ToolCall(schemas.ToolExecuteSQL, map[string]any{"sql": "SELECT count(*) FROM singer"}),
		client.ToolCall(schemas.ToolSubmit, map[string]any{"sql": "SELECT count(*) FROM singer"}),
	} {
		ok := h.call(func(ctx context.Context) error {
			r, err := c.Step(ctx, ep, a)
			if err == nil && r.Info.Error != nil {
				return fmt.Errorf("step %s: %s: %s", a.Tool, r.Info.Error.Code, r.Info.Error.Message)
			}
			return err
		})
		if !ok {
			return
		}
	}
}
