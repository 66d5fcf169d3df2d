package filelog

import (
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

func TestOpenRefusesAnUnknownDurability(t *testing.T) {
	if l, err := Open(t.TempDir(), Options{Durability: trajlog.DurabilityNone + 1}); err == nil {
		l.Close()
		t.Fatal("Open with an unknown durability succeeded")
	}
}

// Under DurabilityEpisode, End returns only after an fsync that covers
// its line: with one writer, every End costs one fsync of its own, and
// when it returns every byte written is known to be on disk.
func TestEpisodeDurabilityEndWaitsForItsFsync(t *testing.T) {
	l := mustOpen(t, t.TempDir(), Options{Durability: trajlog.DurabilityEpisode})
	defer l.Close()
	for i := range 5 {
		before := l.Stats().Fsyncs
		play(t, l, i, 2, false)
		if got := l.Stats().Fsyncs; got != before+1 {
			t.Errorf("episode %d: End returned after %d fsyncs, want 1", i, got-before)
		}
		if synced, written := l.syncedUpTo(), l.BytesWritten(); synced != written {
			t.Errorf("episode %d: End returned with %d of %d bytes fsynced", i, synced, written)
		}
	}
}

// Under DurabilityInterval, End does not wait for an fsync: with an
// hour-long interval nothing is fsynced until Close.
func TestIntervalDurabilityEndDoesNotWait(t *testing.T) {
	l := mustOpen(t, t.TempDir(), Options{Durability: trajlog.DurabilityInterval, SyncInterval: time.Hour})
	for i := range 5 {
		play(t, l, i, 2, false)
	}
	if st := l.Stats(); st.Fsyncs != 0 || l.syncedUpTo() != 0 {
		t.Errorf("after 5 ends: %d fsyncs, %d bytes synced; want none before the interval", st.Fsyncs, l.syncedUpTo())
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if st := l.Stats(); st.Fsyncs != 1 || l.syncedUpTo() != st.BytesWritten {
		t.Errorf("after Close: %d fsyncs, %d of %d bytes synced; want the seal's fsync covering all", st.Fsyncs, l.syncedUpTo(), st.BytesWritten)
	}
}

// The interval flusher fsyncs what End left unsynced without anyone
// asking, once each SyncInterval, and Close stops it. It runs on
// synctest's clock, which moves only when every goroutine of the test
// waits: a sleep of the interval is one tick of the flusher's ticker.
func TestIntervalFlusherSyncsAndStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const interval = time.Second
		l := mustOpen(t, t.TempDir(), Options{Durability: trajlog.DurabilityInterval, SyncInterval: interval})
		for round := range 3 {
			play(t, l, round, 2, false)
			written := l.BytesWritten()
			synctest.Wait() // the flusher waits for its tick; the clock has not moved
			if synced := l.syncedUpTo(); synced >= written {
				t.Fatalf("round %d: %d of %d bytes synced before the interval passed", round, synced, written)
			}
			time.Sleep(interval) // synctest's fake clock: one interval passes at once, with no real wait
			synctest.Wait()      // the tick's fsync is done
			if synced, fsyncs := l.syncedUpTo(), l.Stats().Fsyncs; synced < written || fsyncs != int64(round+1) {
				t.Errorf("round %d: %d of %d bytes synced by %d fsyncs after %d intervals", round, synced, written, fsyncs, round+1)
			}
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-l.flushDone:
		default:
			t.Error("Close returned with the flusher running")
		}
	})
	goleak.VerifyNone(t)
}

// Under DurabilityNone, End never fsyncs: the log is fsynced only when a
// segment is sealed, for size or at Close.
func TestNoneDurabilitySyncsOnlyOnSeal(t *testing.T) {
	l := mustOpen(t, t.TempDir(), Options{Durability: trajlog.DurabilityNone, SegmentBytes: 4 << 10})
	for i := 0; l.Stats().Rotations < 2; i++ {
		play(t, l, i, 2, false)
		if st := l.Stats(); st.Fsyncs != st.Rotations {
			t.Fatalf("episode %d: %d fsyncs for %d sealed segments; End must not fsync", i, st.Fsyncs, st.Rotations)
		}
	}
	if synced, written := l.syncedUpTo(), l.BytesWritten(); synced == 0 || synced >= written {
		t.Errorf("%d of %d bytes synced: want the sealed segments, not the one being written", synced, written)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if st := l.Stats(); st.Fsyncs != st.Rotations+1 || l.syncedUpTo() != st.BytesWritten {
		t.Errorf("after Close: %d fsyncs for %d rotations, %d of %d bytes synced; want one more fsync covering all",
			st.Fsyncs, st.Rotations, l.syncedUpTo(), st.BytesWritten)
	}
}

// In every mode an ended episode survives the process dying without a
// Close: its lines were with the operating system when End returned.
func TestEndedEpisodesSurviveAProcessCrashInEveryMode(t *testing.T) {
	for _, d := range []trajlog.Durability{trajlog.DurabilityEpisode, trajlog.DurabilityInterval, trajlog.DurabilityNone} {
		dir := t.TempDir()
		l := mustOpen(t, dir, Options{Durability: d, SyncInterval: time.Hour})
		want := map[string]bool{}
		for i := range 8 {
			tr := play(t, l, i, i%3, i == 7)
			want[tr.EpisodeID] = i != 7
		}
		crash(t, l)
		r := mustOpen(t, dir, Options{Durability: d})
		got, _, _ := readAll(t, r, trajlog.Filter{Incomplete: true})
		for id, complete := range want {
			if rec := got[id]; rec == nil || rec.Complete != complete {
				t.Errorf("%v: episode %s after the crash: %+v, want complete %v", d, id, rec, complete)
			}
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
