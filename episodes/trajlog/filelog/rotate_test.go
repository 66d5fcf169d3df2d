package filelog

import (
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

func TestRotationAndIndexes(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, Options{SegmentBytes: 8 << 10})
	want := map[string]*trajlog.Record{}
	for i := range 60 {
		tr := play(t, l, i, i%4, i >= 57)
		want[tr.EpisodeID] = &trajlog.Record{Trajectory: *tr, Complete: i < 57}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	logs, idxs := segmentFiles(t, dir, "traj-*.log"), segmentFiles(t, dir, "traj-*.idx")
	if len(logs) < 5 || len(idxs) != len(logs) {
		t.Fatalf("%d segments and %d indexes, want several, each indexed", len(logs), len(idxs))
	}
	var begins, ends int64
	for n := 1; n <= len(logs); n++ {
		x, ok := readIndex(dir, n)
		if !ok || !sizeIs(segmentPath(dir, n), x.Bytes) || x.SessionStart != (n == 1) {
			t.Fatalf("index %d = %+v, usable %v", n, x, ok)
		}
		begins += x.Begins
		ends += x.Ends
	}
	if begins != 60 || ends != 57 {
		t.Errorf("indexes count %d begins and %d ends, want 60 and 57", begins, ends)
	}
	r := mustOpen(t, dir, Options{ReadOnly: true})
	tests := []struct {
		name     string
		f        trajlog.Filter
		skipSome bool
	}{
		{"everything", trajlog.Filter{Incomplete: true}, false},
		{"late episodes", trajlog.Filter{Since: t0.Add(50 * time.Minute), Incomplete: true}, true},
		{"early episodes", trajlog.Filter{Until: t0.Add(10 * time.Minute)}, true},
		{"window", trajlog.Filter{Since: t0.Add(20 * time.Minute), Until: t0.Add(30 * time.Minute), Outcome: "mismatch"}, true},
		{"dataset absent", trajlog.Filter{Dataset: "bird"}, true},
	}
	for _, tt := range tests {
		got, _, st := readAll(t, r, tt.f)
		n := 0
		for id, w := range want {
			if tt.f.Match(w) {
				n++
				sameJSON(t, tt.name+"/"+id, got[id], w)
			}
		}
		if len(got) != n {
			t.Errorf("%s: read %d, want %d", tt.name, len(got), n)
		}
		if (st.Skipped > 0) != tt.skipSome || st.Skipped+st.Segments != len(logs) || st.Damaged != 0 {
			t.Errorf("%s: stats %+v, want skipping=%v over %d segments", tt.name, st, tt.skipSome, len(logs))
		}
	}
}

func TestLongLineGetsItsOwnSegment(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, Options{SegmentBytes: 512})
	want := play(t, l, 1, 2, false) // every line is longer than a segment
	l.Close()
	got, _, _ := readAll(t, l, trajlog.Filter{})
	sameJSON(t, "record", got[want.EpisodeID], &trajlog.Record{Trajectory: *want, Complete: true})
	if n := len(segmentFiles(t, dir, "traj-*.log")); n != 5 {
		t.Errorf("%d segments, want 5 (open, begin, step, step, end)", n)
	}
}
