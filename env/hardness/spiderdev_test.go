package hardness_test

import (
	"testing"

	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/hardness"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
)

// TestSpiderDevMatchesOfficialEvaluator computes the level of every
// Spider-dev gold and compares it with the official evaluator's, and
// checks the loader gives each task that level as its difficulty (what
// eval's and the rollout report's by_difficulty group by).
func TestSpiderDevMatchesOfficialEvaluator(t *testing.T) {
	dir := spiderdev.Dir(t)
	ds, err := datasets.LoadSpider("spider-dev", dir)
	if err != nil {
		t.Fatal(err)
	}
	labels := spiderdev.OfficialHardness(t) // the official evaluator's levels
	if len(ds.Tasks) != spiderdev.Tasks {
		t.Fatalf("%d tasks, want %d", len(ds.Tasks), spiderdev.Tasks)
	}
	wrong := 0
	for _, task := range ds.Tasks {
		got, err := hardness.Spider(task.GoldSQL)
		if err != nil || got != labels[task.ID] || task.Difficulty != labels[task.ID] {
			wrong++
			t.Errorf("%s: got %q (%v), difficulty %q, official %q\n  %s", task.ID, got, err, task.Difficulty, labels[task.ID], task.GoldSQL)
		}
	}
	if wrong > 0 {
		t.Errorf("%d of %d levels differ from the official evaluator's", wrong, len(ds.Tasks))
	}
}
