package soaktest

import (
	"context"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The stated bounds. They catch a server that lets one client starve or
// exhaust the others (the failures they guard against took 29 s and 2
// GB), not performance figures: starvation is checked as progress (every
// honest worker keeps starting episodes), never as a latency, which a
// loaded machine moves.
const (
	soakFor           = 15 * time.Second
	minWorkerEpisodes = 3 // of a 15 s soak: one stalled for half of it starts at most one or two
	rssMax            = 1 << 30
	sharedDB          = "concert_singer" // the honest clients' database, which the runaway queries also hit
)

// TestSoakHonestClientsAmongHostileOnes runs the whole server under every
// kind of abuse at once and checks that honest clients do not notice.
func TestSoakHonestClientsAmongHostileOnes(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak test runs for about 20 s")
	}
	dir := spiderdev.Dir(t)
	bin := binserver.Build(t)
	srv := binserver.Start(t, bin, "--dataset", "spider:"+dir, "--data-dir", filepath.Join(t.TempDir(), "data"),
		"--log-format", "json", "--log-level", "warn", "--stall-timeout", "3s", "--submit-timeout", "20s")
	tasks := sharedTasks(t, srv.URL)

	ctx, cancel := context.WithTimeout(context.Background(), soakFor)
	defer cancel()
	peak := watch(ctx, t, srv)
	var hostile sync.WaitGroup
	h := &hostiles{t: t, url: srv.URL, tagged: make(chan struct{})}
	hostile.Go(func() { h.batches(ctx) })
	hostile.Go(func() { h.tags(ctx) })
	for range 2 {
		hostile.Go(func() { h.neverRead(ctx) })
	}
	hostile.Go(func() { h.unfinishedMessages(ctx, 25) })
	hostile.Go(func() { h.runaways(ctx, tasks[0], 8) })

	lat, errs, fewest := runHonest(ctx, t, srv.URL, tasks, 4, 8)
	hostile.Wait()
	peaks := <-peak
	rss := peaks.rss

	if len(errs) > 0 {
		t.Errorf("honest clients saw %d errors among hostile ones; the first: %v", len(errs), errs[0])
	}
	if len(lat) < 100 {
		t.Fatalf("honest clients completed only %d calls in %s", len(lat), soakFor)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p99 := lat[len(lat)*99/100]
	t.Logf("honest calls: %d, p50 %s, p99 %s, max %s; fewest episodes of a worker %d; server peak RSS %d MiB",
		len(lat), lat[len(lat)/2], p99, lat[len(lat)-1], fewest, rss>>20)
	if fewest < minWorkerEpisodes {
		t.Errorf("an honest worker started only %d episodes in %s: it was starved", fewest, soakFor)
	}
	if rss > rssMax {
		t.Errorf("server peak RSS %d MiB, past the stated %d MiB", rss>>20, rssMax>>20)
	}
	h.checkTripped(srv, peaks.readingBytes)
}

// peaks are the highest values seen while the soak ran.
type peaks struct {
	rss          int64   // the server's resident memory
	readingBytes float64 // sqlgym_reading_bytes: unfinished messages' room
}

// watch samples the server until ctx ends and sends the peaks.
func watch(ctx context.Context, t *testing.T, srv *binserver.Process) <-chan peaks {
	out := make(chan peaks, 1)
	go func() {
		var top peaks
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			if rss, err := srv.RSS(); err == nil {
				top.rss = max(top.rss, rss)
			}
			if i%10 == 0 {
				top.readingBytes = max(top.readingBytes, scrape(t, srv.HTTP()+"/metrics")["sqlgym_reading_bytes"])
			}
			select {
			case <-ctx.Done():
				out <- top
				return
			case <-tick.C:
			}
		}
	}()
	return out
}
