package filelog

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

// TestStepLinesAreTheirEventsEncoded: Step encodes its event from a pool;
// each step line must be exactly its own event's line, with nothing left
// over from the step before it (a fuller record first, a bare one after).
func TestStepLinesAreTheirEventsEncoded(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, Options{NoSync: true})
	tr := begun(t, l, 1)
	full := stepOf(1)
	full.Error = &schemas.ToolError{Code: "sql_error", Message: "no such column: x"}
	full.ResultMeta = &schemas.ResultMeta{Columns: []string{"a"}, RowCount: 1}
	full.Usage = &schemas.Usage{CompletionTokens: 7}
	bare := schemas.StepRecord{Turn: 2, Observation: "2 turns left."}
	for _, rec := range []*schemas.StepRecord{&full, &bare} {
		if err := l.Step(context.Background(), tr.EpisodeID, rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	seg := segmentFiles(t, dir, "traj-*.log")[0]
	b, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, at := range linesOf(t, seg) {
		if at.ev == evStep {
			steps = append(steps, string(b[at.start:at.end]))
		}
	}
	for i, rec := range []*schemas.StepRecord{&full, &bare} {
		want, err := encodeLine(&event{Ev: evStep, Ep: tr.EpisodeID, Step: rec})
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(steps) || steps[i] != string(want) {
			t.Fatalf("step line %d of %s:\n got %q\nwant %q", i+1, filepath.Base(seg), steps, want)
		}
	}
}
