package episodes_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/env/valueindex"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/examples/demo"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

func toolNames(ts []schemas.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Function.Name)
	}
	return out
}

// demoHarness serves the demo dataset offering every tool, search_values
// reading a real value index.
func demoHarness(t *testing.T, datasetTools map[string]tools.Set) *harness {
	t.Helper()
	dir := t.TempDir()
	ds, err := demo.Load(context.Background(), filepath.Join(dir, "demo"), sqlite.Build)
	if err != nil {
		t.Fatal(err)
	}
	store, err := valueindex.New(valueindex.Config{Dir: filepath.Join(dir, "value-index")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return startHarness(t, options{engines: func(e *stack.EngineConfig) {
		e.Runner = tools.Config{QueryTimeout: 10 * time.Second, Values: store}
	}, cfg: func(c *episodes.Config) {
		c.Tools, c.DatasetTools = tools.AllSet(), datasetTools
	}}, dir, ds)
}

// TestEpisodeChoosesTools resets episodes with and without a tools list:
// the reply's tools, the prompt, server.info and the trajectory follow.
func TestEpisodeChoosesTools(t *testing.T) {
	h := demoHarness(t, nil)
	c := h.dial()
	ctx := context.Background()
	info, err := c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(info.Tools); !slices.Equal(got, tools.Names()) {
		t.Errorf("server.info tools %q, want every tool", got)
	}
	all := reset(t, c, schemas.ResetParams{TaskID: "demo/library-001"})
	if got := toolNames(all.Tools); !slices.Equal(got, tools.Names()) {
		t.Errorf("reset without tools offers %q, want the dataset's", got)
	}
	r := reset(t, c, schemas.ResetParams{TaskID: "demo/library-001", Tools: []string{"search_values"}})
	if got := toolNames(r.Tools); !slices.Equal(got, []string{"submit", "search_values"}) {
		t.Errorf("reset tools %q, want submit and search_values", got)
	}
	if sys := r.Messages[0].Content; strings.Contains(sys, "inspect_schema") || !strings.Contains(sys, "search_values {") {
		t.Errorf("prompt does not follow the tools:\n%s", sys)
	}
	res := step(t, c, r.EpisodeID, schemas.Action{Tool: "execute_sql", Arguments: json.RawMessage(`{"sql":"SELECT 1"}`)})
	if res.Info.Error == nil || res.Info.Error.Code != schemas.ErrCodeUnknownTool {
		t.Errorf("a tool not offered: %+v", res.Info.Error)
	}
	res = step(t, c, r.EpisodeID, schemas.Action{Tool: "search_values", Arguments: json.RawMessage(`{"query":"jane austin"}`)})
	if !strings.Contains(res.Observation.Content, "authors.name = 'Jane Austen' (1 row)") {
		t.Errorf("search_values observation:\n%s", res.Observation.Content)
	}
	traj, err := c.Episode(ctx, r.EpisodeID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(traj.Tools, []string{"submit", "search_values"}) {
		t.Errorf("trajectory tools %q", traj.Tools)
	}
}

func TestResetToolsRefused(t *testing.T) {
	only, err := tools.NewSet([]string{"execute_sql"})
	if err != nil {
		t.Fatal(err)
	}
	h := demoHarness(t, map[string]tools.Set{"demo": only})
	c := h.dial()
	for _, names := range [][]string{{"bogus"}, {"search_values"}} {
		_, err := c.Reset(context.Background(), schemas.ResetParams{TaskID: "demo/library-001", Tools: names})
		var rpcErr *schemas.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != schemas.CodeInvalidParams || !strings.Contains(rpcErr.Message, "tools:") {
			t.Errorf("tools %q: %v, want -32602 about tools", names, err)
		}
	}
	r := reset(t, c, schemas.ResetParams{TaskID: "demo/library-001"})
	if got := toolNames(r.Tools); !slices.Equal(got, []string{"execute_sql", "submit"}) {
		t.Errorf("dataset tools %q, want execute_sql and submit", got)
	}
}

// TestDescribeColumnStep profiles a column through a real socket; a
// repeat of the same call is paid as a repeat.
func TestDescribeColumnStep(t *testing.T) {
	h := demoHarness(t, nil)
	c := h.dial()
	r := reset(t, c, schemas.ResetParams{TaskID: "demo/library-001"})
	a := schemas.Action{Tool: "describe_column", Arguments: json.RawMessage(`{"table":"authors","column":"country"}`)}
	res := step(t, c, r.EpisodeID, a)
	if !strings.Contains(res.Observation.Content, "Rows: 23; NULL: 0 (0.0%); distinct values: 11") {
		t.Errorf("describe_column observation:\n%s", res.Observation.Content)
	}
	res = step(t, c, r.EpisodeID, a)
	if _, ok := res.Info.RewardComponents["turn.repeat"]; !ok {
		t.Errorf("repeated call paid %v, want turn.repeat", res.Info.RewardComponents)
	}
}

// TestDefaultToolsUnchanged: a server with no tools configured offers
// protocol v1's three and records no tools in the trajectory.
func TestDefaultToolsUnchanged(t *testing.T) {
	h := newHarness(t, options{})
	c := h.dial()
	r := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
	if got := toolNames(r.Tools); !slices.Equal(got, tools.DefaultNames()) {
		t.Errorf("tools %q, want the default", got)
	}
	traj, err := c.Episode(context.Background(), r.EpisodeID)
	if err != nil {
		t.Fatal(err)
	}
	if traj.Tools != nil {
		t.Errorf("trajectory tools %q, want none", traj.Tools)
	}

}
