package episodes_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/schemas"
)

func TestServerInfo(t *testing.T) {
	h := newHarness(t, options{})
	info, err := h.dial().Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.Protocol != "sqlgym/1" || info.Name != "sqlgym" {
		t.Errorf("protocol, name = %q, %q", info.Protocol, info.Name)
	}
	if len(info.Datasets) != 1 || info.Datasets[0].Name != "t" || info.Datasets[0].Tasks != len(shopTasks) ||
		info.Datasets[0].Dialect != "sqlite" {
		t.Errorf("datasets = %+v", info.Datasets)
	}
	var names []string
	for _, tool := range info.Tools {
		names = append(names, tool.Function.Name)
	}
	if got := strings.Join(names, ","); got != "inspect_schema,execute_sql,submit" {
		t.Errorf("tools = %s", got)
	}
	if info.Reward.Match != "bird" || info.Limits.MaxTurns != 8 {
		t.Errorf("reward.match = %q, limits.max_turns = %d", info.Reward.Match, info.Limits.MaxTurns)
	}
}

func TestTasksList(t *testing.T) {
	c := newHarness(t, options{}).dial()
	tests := []struct {
		p         schemas.TasksListParams
		wantIDs   string
		wantTotal int
	}{
		{schemas.TasksListParams{}, "t/count,t/names,t/broken,t/slow,t/answer", 5},
		{schemas.TasksListParams{Dataset: "t", Offset: 1, Limit: 2}, "t/names,t/broken", 5},
		{schemas.TasksListParams{Offset: 10}, "", 5},
	}
	for _, tt := range tests {
		r, err := c.Tasks(context.Background(), tt.p)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, task := range r.Tasks {
			ids = append(ids, task.TaskID)
		}
		if got := strings.Join(ids, ","); got != tt.wantIDs || r.Total != tt.wantTotal {
			t.Errorf("tasks.list %+v = %s (total %d), want %s (total %d)", tt.p, got, r.Total, tt.wantIDs, tt.wantTotal)
		}
	}
	r, _ := c.Tasks(context.Background(), schemas.TasksListParams{Limit: 1})
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), "SELECT") {
		t.Errorf("tasks.list leaks the gold: %s", b)
	}
}

func TestResetStepCloseGet(t *testing.T) {
	h := newHarness(t, options{})
	c := h.dial()
	ctx := context.Background()
	r := reset(t, c, schemas.ResetParams{TaskID: "t/count", Tags: json.RawMessage(`{"policy":"step-1","group":7}`)})
	if r.Task.TaskID != "t/count" || r.Task.DBID != "shop" || r.Task.Dialect != "sqlite" || r.MaxTurns != 8 ||
		r.ActionFormat != "hermes" || len(r.Tools) != 3 {
		t.Fatalf("reset = %+v", r)
	}
	if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[1].Role != "user" ||
		!strings.Contains(r.Messages[1].Content, "How many items") {
		t.Fatalf("messages = %+v", r.Messages)
	}
	s := step(t, c, r.EpisodeID, inspectCall(""))
	if s.Info.Turn != 1 || s.Info.TurnsLeft != 7 || !strings.Contains(s.Observation.Content, "items") ||
		s.Observation.Role != "tool" || s.Observation.Name != "inspect_schema" {
		t.Fatalf("inspect step = %+v", s)
	}
	s = step(t, c, r.EpisodeID, execSQL("SELECT count(*) FROM items"))
	if s.Info.Result == nil || s.Info.Result.RowCount != 1 || !strings.Contains(s.Observation.Content, "5") ||
		!strings.Contains(s.Observation.Content, "6 turns left") {
		t.Fatalf("execute step = %+v", s)
	}
	g, err := c.Episode(ctx, r.EpisodeID)
	if err != nil || len(g.Steps) != 2 || g.Outcome != "" || string(g.Tags) != `{"policy":"step-1","group":7}` {
		t.Fatalf("episode.get live = %+v, %v", g, err)
	}
	cl, err := c.CloseEpisode(ctx, r.EpisodeID)
	if err != nil || cl.Outcome != "no_submit" || cl.Turns != 2 || cl.FinalReward != -0.2 {
		t.Fatalf("close = %+v, %v", cl, err)
	}
	g, err = c.Episode(ctx, r.EpisodeID)
	if err != nil || g.Outcome != "no_submit" || g.EndedAt == nil || g.RewardSpecHash == "" {
		t.Fatalf("episode.get ended = %+v, %v", g, err)
	}
	if !strings.Contains(string(h.recorded()), r.EpisodeID) {
		t.Error("closed episode not in the trajectory log")
	}
}

func inspectCall(table string) schemas.Action {
	args := map[string]any{}
	if table != "" {
		args["table"] = table
	}
	b, _ := json.Marshal(args)
	return schemas.Action{Tool: schemas.ToolInspectSchema, Arguments: b}
}

func TestResetBySeedIsDeterministic(t *testing.T) {
	c := newHarness(t, options{}).dial()
	for seed := int64(0); seed < 5; seed++ {
		a := reset(t, c, schemas.ResetParams{Seed: &seed})
		b := reset(t, c, schemas.ResetParams{Dataset: "t", Seed: &seed})
		if a.Task.TaskID != b.Task.TaskID {
			t.Errorf("seed %d gave %s then %s", seed, a.Task.TaskID, b.Task.TaskID)
		}
	}
}

func TestRewardOverrideAndSpecHash(t *testing.T) {
	c := newHarness(t, options{}).dial()
	ctx := context.Background()
	r := reset(t, c, schemas.ResetParams{TaskID: "t/count", Reward: json.RawMessage(`{"final":{"correct":2.5}}`)})
	s := step(t, c, r.EpisodeID, submitSQL("SELECT count(*) FROM items"))
	if s.Reward != 2.5 || s.Info.RewardComponents["final.correct"] != 2.5 {
		t.Fatalf("overridden reward = %v %v", s.Reward, s.Info.RewardComponents)
	}
	g, _ := c.Episode(ctx, r.EpisodeID)
	d := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
	c.CloseEpisode(ctx, d.EpisodeID)
	gd, _ := c.Episode(ctx, d.EpisodeID)
	if g.RewardSpec.Final.Correct != 2.5 || g.RewardSpec.Final.NoSubmit != -0.2 || g.RewardSpecHash == gd.RewardSpecHash {
		t.Errorf("spec %+v hash %s vs default hash %s", g.RewardSpec.Final, g.RewardSpecHash, gd.RewardSpecHash)
	}
	if g.RewardSpecHash != reward.Hash(g.RewardSpec) || gd.RewardSpecHash != reward.Hash(gd.RewardSpec) {
		t.Errorf("hashes %s, %s are not those of the specs recorded", g.RewardSpecHash, gd.RewardSpecHash)
	}
}
