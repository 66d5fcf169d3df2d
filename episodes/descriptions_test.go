package episodes_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// describedShop is the shop dataset with a description file's notes.
func describedShop(t *testing.T) (string, *env.Dataset) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "shop.sqlite")
	if err := sqlite.Build(context.Background(), path, shopSQL); err != nil {
		t.Fatal(err)
	}
	notes, err := datasets.ParseNotes([]byte(`{"tables": {"items": {"columns": {"price": {"description": "Price in euros", "values": "NULL when not for sale"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	ds := &env.Dataset{Name: "t", Dialect: "sqlite", DBs: map[string]string{"shop": path}, Notes: map[string]*env.DBNotes{"shop": notes},
		Tasks: []env.Task{{ID: "t/count", Dataset: "t", DBID: "shop", Question: "How many items are there?", GoldSQL: "SELECT count(*) FROM items"}}}
	if err := ds.Index(); err != nil {
		t.Fatal(err)
	}
	return dir, ds
}

// TestDescriptions: the descriptions are in inspect_schema always, and in
// the prompt only when the server or the episode asks for them.
func TestDescriptions(t *testing.T) {
	const note = "- items.price: Price in euros; values: NULL when not for sale"
	for _, serverDefault := range []bool{false, true} {
		dir, ds := describedShop(t)
		h := startHarness(t, options{cfg: func(c *episodes.Config) { c.PromptDescriptions = serverDefault }}, dir, ds)
		c := h.dial()
		for _, ask := range []*bool{nil, new(true), new(false)} {
			r := reset(t, c, schemas.ResetParams{TaskID: "t/count", Descriptions: ask})
			want := serverDefault
			if ask != nil {
				want = *ask
			}
			user := r.Messages[len(r.Messages)-1].Content
			if got := strings.Contains(user, "Column descriptions from the dataset:\n"+note); got != want || !strings.HasPrefix(user, "How many items are there?") {
				t.Errorf("server %v, episode %v: prompt %q; want descriptions %v, after the question", serverDefault, ask, user, want)
			}
			s := step(t, c, r.EpisodeID, schemas.Action{Tool: "inspect_schema", Arguments: []byte(`{"table":"items"}`)})
			if !strings.Contains(s.Observation.Content, "price REAL  -- Price in euros; values: NULL when not for sale") {
				t.Errorf("inspect_schema items lacks the price's note:\n%s", s.Observation.Content)
			}
		}
	}
}
