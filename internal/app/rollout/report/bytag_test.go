package report_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
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

// TestFileNameAndLabel: one report is report.json; a tag's values get a
// file each, escaped so that none shares a file or leaves the folder;
// the episodes without the tag are (untagged).
func TestFileNameAndLabel(t *testing.T) {
	if got := report.FileName("", "anything"); got != report.File {
		t.Errorf("FileName without a tag = %q, want %q", got, report.File)
	}
	seen := map[string]string{}
	for _, v := range []string{"a/b", "c/b", "", "../up", "a%2Fb"} {
		name := report.FileName("policy", v)
		if other, dup := seen[name]; dup {
			t.Errorf("%q and %q share %s", v, other, name)
		}
		seen[name] = v
		if filepath.Base(name) != name || name == report.File {
			t.Errorf("FileName(policy, %q) = %q: leaves the folder or is the one report's", v, name)
		}
	}
	if report.Label("") != "(untagged)" || report.Label("v2") != "v2" {
		t.Errorf("Label: %q, %q", report.Label(""), report.Label("v2"))
	}
}
