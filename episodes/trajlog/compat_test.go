package trajlog

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"
)

// wholeEndRecords are the records the reader rebuilt from
// testdata/whole-ends when the log was written, in the order it handed
// them over.
func wholeEndRecords(t *testing.T) []Record {
	t.Helper()
	b, err := os.ReadFile("testdata/whole-ends.records.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	for line := range bytes.Lines(b) {
		var r Record
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
	var got []Record
	st, err := r.Scan(context.Background(), Filter{Incomplete: true}, func(rec *Record) error {
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
