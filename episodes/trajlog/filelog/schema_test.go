package filelog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	jsv "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sqlgym/sqlgym/internal/testkit/ajv"
	"github.com/sqlgym/sqlgym/internal/testkit/schematest"
)

// TestLinesMatchSchema writes a line of every kind (open, begin, step,
// done, and the whole end of an episode that lost its begin or a step)
// and checks each against the published schema trajectory.line, with a
// Go validator and with Ajv in strict mode, and each begin and end line's
// record against the trajectory schema too.
func TestLinesMatchSchema(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, Options{})
	ctx := context.Background()
	play(t, l, 0, 3, false) // begin, 3 steps, done
	play(t, l, 1, 0, false) // begin, done
	lost := begun(t, l, 2)  // a step that was never logged: a whole end
	lost.Steps = append(lost.Steps, stepOf(1))
	ended(t, l, lost)
	orphan := episode(3) // no begin: a whole end with no steps
	orphan.Outcome = "abandoned"
	if err := l.End(ctx, orphan); err != nil {
		t.Fatal(err)
	}
	begun(t, l, 4) // left live
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	docs, kinds := logLines(t, dir)
	for _, ev := range []string{evOpen, evBegin, evStep, evDone, evEnd} {
		if kinds[ev] == 0 {
			t.Errorf("no %s line written", ev)
		}
	}
	compiled := schematest.Compile(t)
	for _, d := range docs {
		inst, err := jsv.UnmarshalJSON(bytes.NewReader(d.JSON))
		if err != nil {
			t.Fatal(err)
		}
		if err := compiled[d.Schema].Validate(inst); err != nil {
			t.Errorf("%s rejects %s: %v", d.Schema, d.Label, err)
		}
	}
	ajv.Check(t, docs)
}

// logLines is every line of the log in dir as a document of
// trajectory.line, and the record of each begin and end line as one of
// trajectory; and how many lines of each kind there were.
func logLines(t *testing.T, dir string) ([]ajv.Doc, map[string]int) {
	t.Helper()
	var docs []ajv.Doc
	kinds := map[string]int{}
	for _, path := range segmentFiles(t, dir, "traj-*.log") {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
			if _, err := decodeEvent(line, nil, false); err != nil {
				t.Fatalf("%s line %d: %v", path, i+1, err)
			}
			var ev struct {
				Ev   string          `json:"ev"`
				Traj json.RawMessage `json:"traj"`
			}
			if err := json.Unmarshal(line, &ev); err != nil {
				t.Fatal(err)
			}
			kinds[ev.Ev]++
			label := fmt.Sprintf("%s line %d (%s)", filepath.Base(path), i+1, ev.Ev)
			docs = append(docs, ajv.Doc{Schema: "trajectory.line", Label: label, JSON: line})
			if ev.Ev == evBegin || ev.Ev == evEnd {
				docs = append(docs, ajv.Doc{Schema: "trajectory", Label: label + "'s traj", JSON: ev.Traj})
			}
		}
	}
	return docs, kinds
}
