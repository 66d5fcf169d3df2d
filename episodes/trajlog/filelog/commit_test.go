package filelog

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// writeConcurrently plays writers*per episodes of steps steps each, every
// writer on its own goroutine.
func writeConcurrently(t testing.TB, l *Log, writers, per, steps int) {
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for k := range per {
				if _, err := playE(l, w*per+k, steps, false); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestConcurrentWritersShareFsyncs(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"no delay", Options{SegmentBytes: 256 << 10}},
		{"commit delay", Options{SegmentBytes: 256 << 10, CommitDelay: 2 * time.Millisecond}},
	}
	const writers, per, steps = 16, 25, 4
	for _, tt := range tests {
		l := mustOpen(t, t.TempDir(), tt.opts)
		writeConcurrently(t, l, writers, per, steps)
		st := l.Stats()
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if ends := int64(writers * per); st.Fsyncs >= ends {
			t.Errorf("%s: %d fsyncs for %d End calls: no group commit", tt.name, st.Fsyncs, ends)
		}
		if st.Lines != 1+writers*per*(steps+2) || st.Rotations == 0 {
			t.Errorf("%s: stats %+v, want %d lines over several segments", tt.name, st, 1+writers*per*(steps+2))
		}
		got, _, rs := readAll(t, l, trajlog.Filter{Incomplete: true})
		if len(got) != writers*per || rs.Incomplete != 0 || rs.Damaged != 0 || rs.Orphans != 0 {
			t.Fatalf("%s: read %d episodes, stats %+v", tt.name, len(got), rs)
		}
		for id, r := range got {
			for k, s := range r.Steps {
				if s.Turn != k+1 || len(r.Steps) != steps {
					t.Fatalf("%s: %s has steps out of order or missing: turn %d at %d of %d", tt.name, id, s.Turn, k, len(r.Steps))
				}
			}
		}
		t.Logf("%s: %d fsyncs for %d episodes", tt.name, st.Fsyncs, writers*per)
	}
}

// TestEndHonoursContext runs on synctest's clock: the context's deadline
// passes while End waits for an hour-long commit, without the test
// waiting for it.
func TestEndHonoursContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := mustOpen(t, t.TempDir(), Options{CommitDelay: time.Hour})
		defer l.Close()
		beginOther(t, l) // so that the commit waits its hour
		tr := episode(1)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		if err := l.Begin(ctx, tr); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := l.End(ctx, tr); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) >= time.Hour {
			t.Errorf("End waiting on an hour-long commit = %v after %v, want the context's deadline first", err, time.Since(start))
		}
	})
}

func TestCloseReleasesWaiters(t *testing.T) {
	l := mustOpen(t, t.TempDir(), Options{CommitDelay: time.Hour})
	beginOther(t, l) // so that the commit waits its hour
	errs := make(chan error, 8)
	for i := range 8 {
		go func() { errs <- endOne(l, i) }()
	}
	// Every End has written its line (the open line, 9 begins, 8 ends)
	// and waits on the hour-long commit, or is about to.
	waitfor.Until(t, "18 lines written", func() bool { return l.Stats().Lines == 18 })
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Errorf("End waiting when Close came = %v, want nil: Close seals (fsyncs) the segment holding its line", err)
		}
	}
}

// beginOther begins an episode that stays live, whose end a commit delay
// waits for.
func beginOther(t *testing.T, l *Log) {
	t.Helper()
	if err := l.Begin(context.Background(), episode(999)); err != nil {
		t.Fatal(err)
	}
}

// TestCommitDelayOnlyWhileOthersLive: with no other episode live, an
// End's commit does not wait the commit delay, however long: no other
// end can come to share its fsync.
func TestCommitDelayOnlyWhileOthersLive(t *testing.T) {
	l := mustOpen(t, t.TempDir(), Options{CommitDelay: time.Hour})
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := range 3 {
		before := l.Stats().Fsyncs
		tr := episode(i)
		if err := l.Begin(ctx, tr); err != nil {
			t.Fatal(err)
		}
		if err := l.End(ctx, tr); err != nil {
			t.Fatalf("End of the only live episode = %v, want it fsynced without the hour's wait", err)
		}
		if got := l.Stats().Fsyncs - before; got != 1 {
			t.Errorf("episode %d: %d fsyncs, want 1", i, got)
		}
	}
}

// TestCommitDelayGathersEnds: while another episode is live, the ends
// that come within the commit delay share one fsync.
func TestCommitDelayGathersEnds(t *testing.T) {
	l := mustOpen(t, t.TempDir(), Options{CommitDelay: time.Second})
	defer l.Close()
	beginOther(t, l)
	before := l.Stats().Fsyncs
	errs := make(chan error, 2)
	for i := range 2 {
		go func() { errs <- endOne(l, i) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := l.Stats().Fsyncs - before; got != 1 {
		t.Errorf("2 ends within the commit delay took %d fsyncs, want 1", got)
	}
}

func endOne(l *Log, i int) error {
	tr := episode(i)
	if err := l.Begin(context.Background(), tr); err != nil {
		return err
	}
	if err := l.End(context.Background(), tr); err != nil {
		return fmt.Errorf("end %d: %w", i, err)
	}
	return nil
}
