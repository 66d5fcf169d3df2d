package pgstore_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/internal/testkit/testserver"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/pgstore"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

const shopSQL = `
CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL);
INSERT INTO items VALUES (1,'pen',1.5),(2,'desk',120.0),(3,'lamp',35.0);
`

// serve runs a real episode server over a SQLite file, recording into w,
// and returns a connected client and the manager.
func serve(t *testing.T, w trajlog.Writer) (*client.Client, *episodes.Manager) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shop.sqlite")
	if err := sqlite.Build(ctx, path, shopSQL); err != nil {
		t.Fatal(err)
	}
	ds := &env.Dataset{Name: "t", Dialect: "sqlite", DBs: map[string]string{"shop": path}, Tasks: []env.Task{
		{ID: "t/count", Dataset: "t", DBID: "shop", Question: "How many items?", GoldSQL: "SELECT count(*) FROM items"},
	}}
	if err := ds.Index(); err != nil {
		t.Fatal(err)
	}
	st := stack.New(stack.EngineConfig{Runner: tools.Config{QueryTimeout: time.Second}}, nil, ds)
	t.Cleanup(func() { st.Close() }) // the catalog; the test closes w
	cfg := st.Config()
	cfg.Recorder, cfg.Version, cfg.MaxTurns = w, "test", 3
	ts := testserver.Start(t, cfg, testserver.Options{})
	return ts.Dial(t), ts.Manager
}

// TestServerRecordsIntoPostgres drives a real server whose recorder is the
// store and reads the episodes back: each equals what episode.get said.
func TestServerRecordsIntoPostgres(t *testing.T) {
	s := open(t, pgstore.Config{})
	c, _ := serve(t, s)
	ctx := context.Background()
	text := `<tool_call>{"name": "submit", "arguments": {"sql": "SELECT count(*) FROM items"}}</tool_call>`
	scripts := [][]schemas.Action{
		{client.ToolCall("submit", map[string]any{"sql": "SELECT count(*) FROM items"})},
		{client.ToolCall("execute_sql", map[string]any{"sql": "SELECT nope"}), client.Text(text)},
		{client.Text("no call at all"), client.ToolCall("inspect_schema", nil), client.ToolCall("inspect_schema", nil)},
		{client.ToolCall("execute_sql", map[string]any{"sql": "SELECT 1"})}, // closed early below
	}
	var ids []string
	for i, script := range scripts {
		r, err := c.Reset(ctx, schemas.ResetParams{TaskID: "t/count", Tags: []byte(`{"run":"pg","i":` + string(rune('0'+i)) + `}`)})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range script {
			if _, err := c.Step(ctx, r.EpisodeID, a); err != nil {
				t.Fatalf("episode %d: %v", i, err)
			}
		}
		if i == len(scripts)-1 {
			if _, err := c.CloseEpisode(ctx, r.EpisodeID); err != nil {
				t.Fatal(err)
			}
		}
		ids = append(ids, r.EpisodeID)
	}
	got := readAll(t, s, trajlog.Filter{Tags: map[string]string{"run": "pg"}})
	if len(got) != len(ids) {
		t.Fatalf("read %d episodes back, want %d", len(got), len(ids))
	}
	wantOutcomes := []string{"correct", "correct", "no_submit", "no_submit"}
	for i, rec := range got {
		want, err := c.Episode(ctx, ids[i])
		if err != nil {
			t.Fatal(err)
		}
		if rec.EpisodeID != ids[i] || rec.Outcome != wantOutcomes[i] || !rec.Complete {
			t.Errorf("episode %d: %s %s complete=%v, want %s %s complete", i, rec.EpisodeID, rec.Outcome, rec.Complete, ids[i], wantOutcomes[i])
		}
		if g, w := canon(t, &rec.Trajectory), canon(t, want); g != w {
			t.Errorf("episode %d read back differs from episode.get:\n got %s\nwant %s", i, g, w)
		}
	}
}
