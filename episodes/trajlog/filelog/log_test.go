package filelog

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// corpus writes 30 episodes of 0-4 steps; the last 3 are left open.
func corpus(t *testing.T, l *Log) map[string]*trajlog.Record {
	t.Helper()
	want := map[string]*trajlog.Record{}
	for i := range 30 {
		open := i >= 27
		tr := play(t, l, i, i%5, open)
		want[tr.EpisodeID] = &trajlog.Record{Trajectory: *tr, Complete: !open}
	}
	return want
}

func TestRoundTripFilters(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, Options{})
	want := corpus(t, l)
	lo, hi := 0.02, 1.0
	tests := []struct {
		name string
		f    trajlog.Filter
	}{
		{"all complete", trajlog.Filter{}},
		{"with incomplete", trajlog.Filter{Incomplete: true}},
		{"dataset", trajlog.Filter{Dataset: "spider-dev"}},
		{"task", trajlog.Filter{TaskID: "demo/2"}},
		{"outcome", trajlog.Filter{Outcome: "correct"}},
		{"reward range", trajlog.Filter{MinReward: &lo, MaxReward: &hi}},
		{"tag", trajlog.Filter{Tags: map[string]string{"policy": "step-1"}}},
		{"number tag", trajlog.Filter{Tags: map[string]string{"group": "3"}, Incomplete: true}},
		{"time range", trajlog.Filter{Since: t0.Add(5 * time.Minute), Until: t0.Add(20 * time.Minute)}},
		{"nothing", trajlog.Filter{Dataset: "bird"}},
	}
	for _, reader := range []string{"writer", "read-only"} {
		r := l
		if reader == "read-only" {
			r = mustOpen(t, dir, Options{ReadOnly: true})
		}
		for _, tt := range tests {
			got, _, _ := readAll(t, r, tt.f)
			n := 0
			for id, w := range want {
				if !tt.f.Match(w) {
					continue
				}
				n++
				if g, ok := got[id]; !ok {
					t.Errorf("%s/%s: episode %s missing", reader, tt.name, id)
				} else {
					sameJSON(t, reader+"/"+tt.name+"/"+id, g, w)
				}
			}
			if len(got) != n {
				t.Errorf("%s/%s: read %d episodes, want %d", reader, tt.name, len(got), n)
			}
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestReopenSeparatesSessions(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, Options{})
	play(t, l, 1, 2, true) // never ends: the next session makes it incomplete
	play(t, l, 2, 1, false)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l = mustOpen(t, dir, Options{})
	defer l.Close()
	play(t, l, 3, 3, false)
	if got := l.Recovery(); got.Indexed != 0 || got.Live != 1 || got.Segments != 1 {
		t.Errorf("recovery after a clean close = %+v, want nothing indexed, 1 live, 1 segment", got)
	}
	got, order, st := readAll(t, l, trajlog.Filter{Incomplete: true})
	if len(order) != 3 || order[0] != "ep_00002" || order[1] != "ep_00001" || order[2] != "ep_00003" {
		t.Errorf("order = %v, want ep_00002 (ended), ep_00001 (incomplete at the new session), ep_00003", order)
	}
	if r := got["ep_00001"]; r == nil || r.Complete || len(r.Steps) != 2 || r.TotalReward != 0.03 {
		t.Errorf("open episode = %+v, want incomplete with 2 steps and their reward", r)
	}
	if st.Complete != 2 || st.Incomplete != 1 || st.Damaged != 0 || st.Segments != 2 {
		t.Errorf("stats = %+v", st)
	}
}

func TestWritesFail(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ro := mustOpen(t, dir, Options{ReadOnly: true})
	if err := ro.Begin(ctx, episode(1)); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only begin = %v, want ErrReadOnly", err)
	}
	l := mustOpen(t, dir, Options{})
	if _, err := Open(dir, Options{}); err == nil {
		t.Error("a second writer opened a locked log")
	}
	// The file under the log goes away: the write fails loudly.
	l.mu.Lock()
	l.seg.f.Close()
	l.mu.Unlock()
	if err := l.Begin(ctx, episode(2)); err == nil || errors.Is(err, ErrClosed) {
		t.Errorf("begin on a broken file = %v, want a write error", err)
	}
	l.Close()
	if err := l.End(ctx, episode(3)); !errors.Is(err, ErrClosed) {
		t.Errorf("end after close = %v, want ErrClosed", err)
	}
}

func TestEndIsDurable(t *testing.T) {
	for _, noSync := range []bool{false, true} {
		l := mustOpen(t, t.TempDir(), Options{NoSync: noSync})
		play(t, l, 1, 3, false)
		st, err := os.Stat(l.seg.f.Name())
		if err != nil {
			t.Fatal(err)
		}
		synced := l.syncedUpTo()
		if !noSync && synced < st.Size() {
			t.Errorf("End returned with %d of %d bytes fsynced", synced, st.Size())
		}
		if fs := l.Stats().Fsyncs; noSync != (fs == 0) {
			t.Errorf("NoSync=%v: %d fsyncs", noSync, fs)
		}
		if got := l.BytesWritten(); got != st.Size() {
			t.Errorf("BytesWritten = %d, want the segment's %d", got, st.Size())
		}
		l.Close()
	}
}

func TestEndWithoutBeginStandsAlone(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, Options{SegmentBytes: 2 << 10})
	for i := range 6 {
		play(t, l, i, 1, false)
	}
	// An episode whose begin and steps never reached the log (their
	// writes failed): its end line carries the whole record.
	tr := episode(7)
	tr.Steps = []schemas.StepRecord{stepOf(1), stepOf(2)}
	tr.Outcome = "mismatch"
	if err := l.End(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
	l.Close()
	got, _, _ := readAll(t, l, trajlog.Filter{Since: tr.StartedAt})
	sameJSON(t, "lone end", got[tr.EpisodeID], &trajlog.Record{Trajectory: *tr, Complete: true})
	if len(got) != 1 {
		t.Errorf("read %d episodes, want the lone end only", len(got))
	}
}
