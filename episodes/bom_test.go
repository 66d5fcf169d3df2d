package episodes_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestLeadingByteOrderMarkIsNotSQL steps, through a real server, SQL that
// starts with U+FEFF, on a task whose gold starts with one too: the mark
// is dropped, the statements run, and the submission is correct.
func TestLeadingByteOrderMarkIsNotSQL(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "shop.sqlite")
	if err := sqlite.Build(context.Background(), path, shopSQL); err != nil {
		t.Fatal(err)
	}
	ds := &env.Dataset{Name: "t", Dialect: "sqlite", DBs: map[string]string{"shop": path}, Tasks: []env.Task{
		{ID: "t/bom", Dataset: "t", DBID: "shop", Question: "How many items are there?", GoldSQL: "\ufeffSELECT count(*) FROM items"},
	}}
	if err := ds.Index(); err != nil {
		t.Fatal(err)
	}
	c := startHarness(t, options{}, dir, ds).dial()
	r := reset(t, c, schemas.ResetParams{TaskID: "t/bom"})
	got := step(t, c, r.EpisodeID, execSQL("\ufeffSELECT name FROM items WHERE id = 1"))
	if got.Info.Error != nil || !strings.Contains(got.Observation.Content, "pen") {
		t.Fatalf("execute_sql after a BOM: error %+v, observation %q", got.Info.Error, got.Observation.Content)
	}
	if strings.Contains(got.Observation.Content, "\ufeff") {
		t.Errorf("observation shows the BOM: %q", got.Observation.Content)
	}
	end := step(t, c, r.EpisodeID, submitSQL("\ufeffSELECT count(*) FROM items;"))
	if end.Info.Outcome != schemas.OutcomeCorrect {
		t.Errorf("submit after a BOM on a gold with a BOM: outcome %q (%+v), want correct", end.Info.Outcome, end.Info.Error)
	}
}
