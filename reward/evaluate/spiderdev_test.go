package evaluate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
)

// spiderDevGold loads the shared Spider-dev set and pairs each task with
// its own gold as the prediction, read back from a Spider-style file
// written from dev.json ("SQL<TAB>db_id" per line). It skips when the data
// is absent, and fails instead under CI=true.
func spiderDevGold(tb testing.TB) (*env.Dataset, []Item) {
	tb.Helper()
	dir := spiderdev.Dir(tb)
	ds, err := datasets.LoadSpider("spider-dev", dir)
	if err != nil {
		tb.Fatal(err)
	}
	var b strings.Builder
	for _, t := range ds.Tasks {
		b.WriteString(strings.Join(strings.Fields(t.GoldSQL), " ") + "\t" + t.DBID + "\n")
	}
	file := filepath.Join(tb.TempDir(), "gold.sql")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	preds, _, err := ReadPredictions(file, ReadLimits{})
	if err != nil {
		tb.Fatal(err)
	}
	items, err := Align(ds, preds)
	if err != nil {
		tb.Fatal(err)
	}
	return ds, items
}

// TestSpiderDevCheck runs every Spider-dev gold: none fails or times out,
// and the empty golds are the 49 the set is known to hold.
func TestSpiderDevCheck(t *testing.T) {
	ds, _ := spiderDevGold(t)
	rep, err := Check(context.Background(), ds, CheckConfig{Catalog: newCatalog(t)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed() != 0 || len(rep.Golds) != 972 || len(rep.Empty()) != 49 {
		t.Errorf("spider-dev: %d golds, %d failed, %d empty; want 972, 0, 49", len(rep.Golds), rep.Failed(), len(rep.Empty()))
	}
}
