package trajlog

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/internal/waitfor"
)

func TestParseDurability(t *testing.T) {
	tests := []struct {
		in      string
		want    Durability
		wantErr bool
	}{
		{"episode", DurabilityEpisode, false},
		{"interval", DurabilityInterval, false},
		{"none", DurabilityNone, false},
		{"", 0, true},
		{"Episode", 0, true},
		{"fsync", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseDurability(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseDurability(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err == nil && got.String() != tt.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tt.in)
		}
		if err != nil && !strings.Contains(err.Error(), "episode, interval or none") {
			t.Errorf("ParseDurability(%q) error %q does not name the modes", tt.in, err)
		}
	}
	var d Durability
	if err := json.Unmarshal([]byte(`"none"`), &d); err != nil || d != DurabilityNone {
		t.Errorf("unmarshal \"none\" = %v, %v", d, err)
	}
	if b, _ := json.Marshal(DurabilityInterval); string(b) != `"interval"` {
		t.Errorf("marshal interval = %s", b)
	}
}

func TestOpenRefusesAnUnknownDurability(t *testing.T) {
	if l, err := Open(t.TempDir(), Options{Durability: DurabilityNone + 1}); err == nil {
		l.Close()
		t.Fatal("Open with an unknown durability succeeded")
	}
}

// Under DurabilityEpisode, End returns only after an fsync that covers
// its line: with one writer, every End costs one fsync of its own, and
// when it returns every byte written is known to be on disk.
func TestEpisodeDurabilityEndWaitsForItsFsync(t *testing.T) {
	l := mustOpen(t, t.TempDir(), Options{Durability: DurabilityEpisode})
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
	l := mustOpen(t, t.TempDir(), Options{Durability: DurabilityInterval, SyncInterval: time.Hour})
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
// asking, and Close stops it.
func TestIntervalFlusherSyncsAndStops(t *testing.T) {
	l := mustOpen(t, t.TempDir(), Options{Durability: DurabilityInterval, SyncInterval: time.Millisecond})
	for round := range 3 {
		play(t, l, round, 2, false)
		written := l.BytesWritten()
		waitfor.Until(t, "the log synced up to what was written", func() bool { return l.syncedUpTo() >= written })
		if got := l.Stats().Fsyncs; got < int64(round+1) {
			t.Errorf("round %d: %d bytes synced by %d fsyncs", round, written, got)
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
	goleak.VerifyNone(t)
}

// Under DurabilityNone, End never fsyncs: the log is fsynced only when a
// segment is sealed, for size or at Close.
func TestNoneDurabilitySyncsOnlyOnSeal(t *testing.T) {
	l := mustOpen(t, t.TempDir(), Options{Durability: DurabilityNone, SegmentBytes: 4 << 10})
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
	for _, d := range []Durability{DurabilityEpisode, DurabilityInterval, DurabilityNone} {
		dir := t.TempDir()
		l := mustOpen(t, dir, Options{Durability: d, SyncInterval: time.Hour})
		want := map[string]bool{}
		for i := range 8 {
			tr := play(t, l, i, i%3, i == 7)
			want[tr.EpisodeID] = i != 7
		}
		crash(t, l)
		r := mustOpen(t, dir, Options{Durability: d})
		got, _, _ := readAll(t, r, Filter{Incomplete: true})
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
