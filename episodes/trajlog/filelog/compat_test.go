package filelog

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// wholeEndRecords are the records the reader rebuilt from
// testdata/whole-ends when the log was written, in the order it handed
// them over.
func wholeEndRecords(t *testing.T) []trajlog.Record {
	t.Helper()
	b, err := os.ReadFile("testdata/whole-ends.records.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var recs []trajlog.Record
	for line := range bytes.Lines(b) {
		var r trajlog.Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}

// TestWholeEndLogReadsAsBefore reads testdata/whole-ends, a log kept as
// it was written, whose end lines carry the whole record: the records are
// those read from it then, in the same order, whatever the format the
// writer writes now. It holds episodes with and without steps, one
// closed with close components, one that never ended, a lone end
// carrying its steps, and two writer sessions over four segments.
func TestWholeEndLogReadsAsBefore(t *testing.T) {
	want := wholeEndRecords(t)
	r := mustOpen(t, "testdata/whole-ends", Options{ReadOnly: true})
	var got []trajlog.Record
	st, err := r.Scan(context.Background(), trajlog.Filter{Incomplete: true}, func(rec *trajlog.Record) error {
		got = append(got, *rec)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || st.Damaged != 0 || len(want) != 9 {
		t.Fatalf("read %d records (stats %+v), want the fixture's %d", len(got), st, len(want))
	}
	for i := range want {
		sameJSON(t, want[i].EpisodeID, &got[i], &want[i])
	}
	rep, err := r.Verify(context.Background())
	if err != nil || !rep.Clean() || rep.Episodes != 9 {
		t.Errorf("verify: %v, clean %v, %d episodes; want clean, 9 episodes", err, rep.Clean(), rep.Episodes)
	}
}

// copyDir copies the files of src into a new temporary directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err == nil {
			err = os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestSlimEndsAfterWholeEnds: a server writes slim ends after an older
// one wrote whole ends to the same log; both read back.
func TestSlimEndsAfterWholeEnds(t *testing.T) {
	dir := copyDir(t, "testdata/whole-ends")
	l := mustOpen(t, dir, Options{NoSync: true})
	var fresh []*schemas.Trajectory
	for i := 20; i < 23; i++ {
		fresh = append(fresh, play(t, l, i, i%3, false))
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got, order, _ := readAll(t, l, trajlog.Filter{Incomplete: true})
	old := wholeEndRecords(t)
	if len(order) != len(old)+len(fresh) {
		t.Fatalf("read %v, want the fixture's %d episodes and %d more", order, len(old), len(fresh))
	}
	for i := range old {
		sameJSON(t, old[i].EpisodeID, got[old[i].EpisodeID], &old[i])
	}
	for _, tr := range fresh {
		sameJSON(t, tr.EpisodeID, got[tr.EpisodeID], &trajlog.Record{Trajectory: *tr, Complete: true})
	}
	if ends := endLines(t, dir); len(ends) != 8+3 || string(ends[len(ends)-1]["ev"]) != `"done"` || string(ends[0]["ev"]) != `"end"` {
		t.Errorf("%d end lines, want the fixture's 8 whole ends then 3 slim ones", len(ends))
	}
}
