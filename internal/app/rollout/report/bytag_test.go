package report_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestByTagGroupsARecordedLog records episodes of two runs and one
// untagged into a real trajectory log, then reads one report per value
// of the run tag: the groups come in the order first seen, each counts
// its own episodes, and keep leaves a run out.
func TestByTagGroupsARecordedLog(t *testing.T) {
	ctx := context.Background()
	log, err := filelog.Open(t.TempDir(), filelog.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	runs := []string{"b", "a", "b", "", "b"}
	for i, run := range runs {
		tr := submitted(i, "SELECT 1", schemas.OutcomeCorrect)
		tr.Task.TaskID = fmt.Sprint("d/", i)
		if run != "" {
			tr.Tags = json.RawMessage(fmt.Sprintf(`{"run":%q}`, run))
		} else {
			tr.Tags = nil
		}
		head := *tr
		head.Steps, head.Outcome = nil, ""
		if err := log.Begin(ctx, &head); err != nil {
			t.Fatal(err)
		}
		if err := log.End(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	builders, order, err := report.ByTag(ctx, log, trajlog.Filter{}, report.Options{}, "run", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"b", "a", ""}; !slices.Equal(order, want) {
		t.Fatalf("groups %q, want %q", order, want)
	}
	for k, want := range map[string]int{"b": 3, "a": 1, "": 1} {
		if got := builders[k].Report().Episodes; got != want {
			t.Errorf("run %q: %d episodes, want %d", k, got, want)
		}
	}
	builders, order, err = report.ByTag(ctx, log, trajlog.Filter{}, report.Options{}, "run", func(k string) bool { return k == "a" })
	if err != nil || !slices.Equal(order, []string{"a"}) || len(builders) != 1 {
		t.Errorf("keep a: groups %q (%d builders), err %v; want only a", order, len(builders), err)
	}
}
