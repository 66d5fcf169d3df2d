package filelog

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// crashedLog writes episodes 0-9 (8 and 9 left open) and crashes.
func crashedLog(t *testing.T, dir string) map[string]*trajlog.Record {
	t.Helper()
	l := mustOpen(t, dir, Options{})
	want := map[string]*trajlog.Record{}
	for i := range 10 {
		tr := play(t, l, i, 3, i >= 8)
		want[tr.EpisodeID] = &trajlog.Record{Trajectory: *tr, Complete: i < 8}
	}
	crash(t, l)
	return want
}

func TestTornTail(t *testing.T) {
	half, _ := encodeLine(&event{Ev: evStep, Ep: "ep_00009", Step: new(stepOf(4))})
	tails := []struct {
		name string
		tail []byte
	}{
		{"half a line", half[:len(half)/2]},
		{"garbage", []byte("\x00\x00\x00\xff{\"ev\":")},
		{"whole line, bad checksum, then half", append(bytes.Replace(half, []byte(`"turn":4`), []byte(`"turn":5`), 1), half[:9]...)},
	}
	for _, tt := range tails {
		dir := t.TempDir()
		want := crashedLog(t, dir)
		appendBytes(t, segmentPath(dir, 1), tt.tail)
		var damage []Damage
		// A reader beside the dead writer skips the tail and reports it.
		ro := mustOpen(t, dir, Options{ReadOnly: true, OnDamage: func(d Damage) { damage = append(damage, d) }})
		got, _, st := readAll(t, ro, trajlog.Filter{Incomplete: true})
		if len(got) != 10 || st.Damaged == 0 || len(damage) != int(st.Damaged) {
			t.Errorf("%s: read %d episodes, stats %+v, %d reported; want 10 and the tail reported", tt.name, len(got), st, len(damage))
		}
		for id, w := range want {
			sameJSON(t, tt.name+"/"+id, got[id], w)
		}
		// The next writer cuts the tail off and starts a new segment.
		before, _ := os.Stat(segmentPath(dir, 1))
		l := mustOpen(t, dir, Options{})
		rec := l.Recovery()
		after, _ := os.Stat(segmentPath(dir, 1))
		if rec.TornBytes != int64(len(tt.tail)) || after.Size() != before.Size()-int64(len(tt.tail)) || rec.Live != 2 || rec.Indexed != 1 {
			t.Errorf("%s: recovery %+v, size %d -> %d, want the %d-byte tail cut and 2 live", tt.name, rec, before.Size(), after.Size(), len(tt.tail))
		}
		if l.Stats().Segment != 2 {
			t.Errorf("%s: writing segment %d, want 2", tt.name, l.Stats().Segment)
		}
		play(t, l, 10, 1, false)
		l.Close()
		got, _, st = readAll(t, l, trajlog.Filter{Incomplete: true})
		if len(got) != 11 || st.Damaged != 0 || st.Incomplete != 2 {
			t.Errorf("%s: after recovery read %d episodes, stats %+v", tt.name, len(got), st)
		}
	}
}

func TestCorruptLineMidFile(t *testing.T) {
	tests := []struct {
		name, find     string // a line holding find gets a byte flipped
		lost           string // the episode that loses a line
		wantIncomplete bool   // it reads back incomplete (a step lost); else it is gone (its begin lost)
	}{
		{"step line", `"ep":"ep_00003","step":{"turn":2`, "ep_00003", true},
		{"begin line", `"ev":"begin","ep":"ep_00004"`, "ep_00004", false},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		l := mustOpen(t, dir, Options{})
		for i := range 8 {
			play(t, l, i, 3, false)
		}
		l.Close()
		path := segmentPath(dir, 1)
		b, _ := os.ReadFile(path)
		at := bytes.Index(b, []byte(tt.find))
		if at < 0 {
			t.Fatalf("%s: %q not in the segment", tt.name, tt.find)
		}
		b[at+len(tt.find)+3] ^= 0x01 // same size: the index still applies
		os.WriteFile(path, b, 0o644)
		var damage []Damage
		r := mustOpen(t, dir, Options{ReadOnly: true, OnDamage: func(d Damage) { damage = append(damage, d) }})
		got, _, st := readAll(t, r, trajlog.Filter{Incomplete: true})
		if st.Damaged != 1 || len(damage) != 1 || !strings.Contains(damage[0].Reason, "checksum") {
			t.Errorf("%s: stats %+v, damage %+v; want one checksum mismatch", tt.name, st, damage)
		}
		for i := range 8 {
			id := episode(i).EpisodeID
			rec := got[id]
			switch {
			case id != tt.lost && (rec == nil || !rec.Complete || len(rec.Steps) != 3):
				t.Errorf("%s: intact episode %s read as %+v", tt.name, id, rec)
			case id == tt.lost && tt.wantIncomplete && (rec == nil || rec.Complete || len(rec.Steps) != 2 || rec.Outcome == ""):
				t.Errorf("%s: %s should read incomplete with 2 of 3 steps and its outcome, got %+v", tt.name, id, rec)
			case id == tt.lost && !tt.wantIncomplete && rec != nil:
				t.Errorf("%s: %s lost its begin, yet was read", tt.name, id)
			}
		}
	}
}

func TestRecoveryIndexesEverySegment(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, Options{SegmentBytes: 4 << 10})
	for i := range 20 {
		play(t, l, i, 2, i == 19)
	}
	crash(t, l)
	n := len(segmentFiles(t, dir, "traj-*.log"))
	os.Remove(indexPath(dir, 2)) // as if the crash came during a rotation
	l = mustOpen(t, dir, Options{})
	defer l.Close()
	if rec := l.Recovery(); rec.Indexed != 2 || rec.Live != 1 || rec.TornBytes != 0 || rec.Segments != n {
		t.Errorf("recovery = %+v, want segment 2 and the last indexed, 1 live, over %d segments", rec, n)
	}
	for k := 1; k <= n; k++ {
		if _, ok := readIndex(dir, k); !ok {
			t.Errorf("segment %d has no index after recovery", k)
		}
	}
	got, _, st := readAll(t, l, trajlog.Filter{Incomplete: true, Since: t0.Add(15 * time.Minute)})
	if len(got) != 5 || got["ep_00019"] == nil || got["ep_00019"].Complete || st.Skipped == 0 {
		t.Errorf("read %d episodes (stats %+v), want 5 with ep_00019 incomplete and early segments skipped", len(got), st)
	}
}
