package hardness_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/hardness"
	"github.com/sqlgym/sqlgym/internal/spiderdev"
)

// officialLabels reads testdata/spider_dev_hardness.tsv: the level of
// every Spider-dev question as the official evaluator computes it
// (taoyds/spider, evaluation.py, Evaluator.eval_hardness on the gold
// parsed by process_sql.py's get_sql; the file's header says how it was
// run).
func officialLabels(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "spider_dev_hardness.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	labels := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		id, level, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("fixture line %q: want task_id<TAB>level", line)
		}
		labels[id] = level
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return labels
}

// TestSpiderDevMatchesOfficialEvaluator computes the level of every
// Spider-dev gold and compares it with the official evaluator's, and
// checks the loader gives each task that level as its difficulty (what
// eval's and the rollout report's by_difficulty group by).
func TestSpiderDevMatchesOfficialEvaluator(t *testing.T) {
	dir := spiderdev.Dir(t)
	ds, err := env.LoadSpider("spider-dev", dir)
	if err != nil {
		t.Fatal(err)
	}
	labels := officialLabels(t)
	if len(labels) != spiderdev.Tasks || len(ds.Tasks) != spiderdev.Tasks {
		t.Fatalf("%d labels and %d tasks, want %d of each", len(labels), len(ds.Tasks), spiderdev.Tasks)
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
