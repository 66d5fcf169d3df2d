package episodes_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestTheDefaultsServeAGRPOBatch: with every bound at its default, one
// GRPO batch of 512 prompts x 16 samples (8,192 episodes) is live at
// once, and what those episodes keep is counted well within
// --max-live-bytes, the bound that protects the server's memory.
func TestTheDefaultsServeAGRPOBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("8,192 resets")
	}
	const batch = 512 * 16
	h := newHarness(t, options{})
	c := h.dial()
	var wg sync.WaitGroup
	errs := make(chan error, batch)
	work := make(chan int)
	for range 64 {
		wg.Go(func() {
			for i := range work {
				_, err := c.Reset(context.Background(), schemas.ResetParams{TaskID: "t/count", Tags: []byte(`{"group":` + strconv.Itoa(i/16) + `}`)})
				if err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range batch {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a reset of the batch: %v", err)
	}
	reg := h.mgr.Metrics().Registry
	if live := metric(t, reg, "sqlgym_live_episodes"); live != batch {
		t.Fatalf("%v live episodes, want %d", live, batch)
	}
	kept := metric(t, reg, "sqlgym_live_episode_bytes")
	if kept <= 0 || kept > episodes.DefaultMaxLiveBytes/8 {
		t.Errorf("the batch keeps %v bytes; want some, and a small part of --max-live-bytes %d", kept, episodes.DefaultMaxLiveBytes)
	}
	t.Logf("%d live episodes keep %.0f bytes (%.0f each)", batch, kept, kept/batch)
}

// BenchmarkLiveEpisodes measures what live episodes cost at GRPO sizes:
// the heap in use per live episode (after a GC, beside the server's heap
// before the resets) and the bytes --max-live-bytes counts per episode.
// Run: go test -run '^$' -bench LiveEpisodes -benchtime 1x ./episodes/
func BenchmarkLiveEpisodes(b *testing.B) {
	for _, n := range []int{8192, 32768, 65536} {
		b.Run(fmt.Sprintf("live=%d", n), func(b *testing.B) {
			for range b.N {
				h := newHarness(b, options{})
				c := h.dial()
				before := heapInUse()
				var wg sync.WaitGroup
				work := make(chan int)
				for range 64 {
					wg.Go(func() {
						for range work {
							if _, err := c.Reset(context.Background(), schemas.ResetParams{TaskID: "t/count"}); err != nil {
								b.Error(err)
							}
						}
					})
				}
				for i := range n {
					work <- i
				}
				close(work)
				wg.Wait()
				after := heapInUse()
				kept := metric(b, h.mgr.Metrics().Registry, "sqlgym_live_episode_bytes")
				b.ReportMetric(float64(after-before)/float64(n), "heap-B/episode")
				b.ReportMetric(kept/float64(n), "counted-B/episode")
				b.ReportMetric(float64(after)/(1<<20), "heap-MiB")
			}
		})
	}
}

// heapInUse is the heap in use after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}
