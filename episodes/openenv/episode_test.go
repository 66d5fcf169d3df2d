package openenv_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// move is one tool call of a scripted episode.
type move struct {
	tool string
	args map[string]any
}

// script is the calls of an episode that ends with a submit of sql.
func script(sql string) []move {
	return []move{
		{schemas.ToolInspectSchema, map[string]any{}},
		{schemas.ToolExecuteSQL, map[string]any{"sql": "SELECT 1"}},
		{schemas.ToolExecuteSQL, map[string]any{"sql": "SELEC nothing"}}, // a syntax error: data, not a failure
		{"no_such_tool", map[string]any{}},
		{schemas.ToolSubmit, map[string]any{"sql": sql}},
	}
}

// outcome is what an episode earned, step by step.
type outcome struct {
	rewards []float64
	done    []bool
	final   string
}

// native plays the moves through sqlgym's own protocol (episodes/client).
func native(t *testing.T, s *surface, taskID string, moves []move) outcome {
	t.Helper()
	ctx := context.Background()
	c := s.Dial(t)
	r, err := c.Reset(ctx, schemas.ResetParams{TaskID: taskID})
	if err != nil {
		t.Fatal(err)
	}
	var o outcome
	for _, m := range moves {
		res, err := c.Step(ctx, r.EpisodeID, client.ToolCall(m.tool, m.args))
		if err != nil {
			t.Fatal(err)
		}
		o.rewards = append(o.rewards, res.Reward)
		o.done = append(o.done, res.Terminated || res.Truncated)
		o.final = res.Info.Outcome
	}
	return o
}

// TestWebSocketEpisodeEqualsNative plays a right and a wrong answer over
// /openenv/ws, message by message as EnvClient and MCPToolClient send
// them, and checks each step's reward and done against the same calls
// through the native protocol, the state, and the episode's record.
func TestWebSocketEpisodeEqualsNative(t *testing.T) {
	s := start(t, nil, nil)
	task := s.Dataset.Tasks[0]
	for _, sql := range []string{task.GoldSQL, "SELECT 42"} {
		want := native(t, s, task.ID, script(sql))
		if right := sql == task.GoldSQL; right != (want.final == schemas.OutcomeCorrect) || want.rewards[4] == 0 {
			t.Fatalf("%s: the native episode ended %s with %v", sql, want.final, want.rewards)
		}
		c := s.dial(t, nil)
		obs := data(t, c.call(reset(map[string]any{"task_id": task.ID, "seed": 7})), "observation")
		ro := obs["observation"].(map[string]any)
		id, _ := ro["episode_id"].(string)
		if ro["task"].(map[string]any)["task_id"] != task.ID || len(ro["messages"].([]any)) == 0 || len(ro["chat_tools"].([]any)) != 3 ||
			obs["done"] != false || obs["reward"] != nil {
			t.Fatalf("reset observation: %v", obs)
		}
		tools := data(t, c.call(listTools()), "observation")["observation"].(map[string]any)["tools"].([]any)
		if len(tools) != 3 || tools[0].(map[string]any)["inputSchema"] == nil {
			t.Fatalf("list_tools: %v", tools)
		}
		var got outcome
		for _, m := range script(sql) {
			d := data(t, c.call(callTool(m.tool, m.args)), "observation")
			got.rewards = append(got.rewards, d["reward"].(float64))
			got.done = append(got.done, d["done"].(bool))
			md := d["observation"].(map[string]any)["metadata"].(map[string]any)
			if md["reward_components"] == nil || md["episode_id"] != id {
				t.Fatalf("step metadata: %v", md)
			}
			if o, _ := md["outcome"].(string); o != "" {
				got.final = o
			}
		}
		if !equalOutcomes(got, want) {
			t.Fatalf("%s: OpenEnv %+v, native %+v", sql, got, want)
		}
		st := data(t, c.call(map[string]any{"type": "state"}), "state")
		if st["episode_id"] != id || st["done"] != true || st["outcome"] != want.final || st["step_count"].(float64) != 5 {
			t.Fatalf("state: %v", st)
		}
		c.disconnect()
		checkOrigin(t, s, id)
	}
}

// checkOrigin checks the episode is recorded with origin=openenv.
func checkOrigin(t *testing.T, s *surface, id string) {
	t.Helper()
	rec, err := s.trajectory(id)
	if err != nil {
		t.Fatal(err)
	}
	var tags map[string]string
	if err := json.Unmarshal(rec.Tags, &tags); err != nil || tags["origin"] != "openenv" {
		t.Fatalf("tags %s (%v), want origin=openenv", rec.Tags, err)
	}
}

// trajectory is the episode's trajectory as the Manager holds it.
func (s *surface) trajectory(id string) (*schemas.Trajectory, error) {
	snap, err := s.Manager.Get(id)
	if err != nil {
		return nil, err
	}
	return snap.Trajectory()
}

func equalOutcomes(a, b outcome) bool {
	if a.final != b.final || len(a.rewards) != len(b.rewards) {
		return false
	}
	for i := range a.rewards {
		if a.rewards[i] != b.rewards[i] || a.done[i] != b.done[i] {
			return false
		}
	}
	return true
}

// TestResetChoosesLikeEpisodeReset checks a reset's data choose the
// episode as episode.reset's params do: a seed draws the same task each
// time, tools narrow the episode's tools (submit always among them), and
// max_turns sets the budget the state reports.
func TestResetChoosesLikeEpisodeReset(t *testing.T) {
	s := start(t, nil, nil)
	c := s.dial(t, nil)
	taskOf := func(kw map[string]any) map[string]any {
		return data(t, c.call(reset(kw)), "observation")["observation"].(map[string]any)
	}
	a, b := taskOf(map[string]any{"seed": 11}), taskOf(map[string]any{"seed": 11})
	if a["task"].(map[string]any)["task_id"] != b["task"].(map[string]any)["task_id"] || a["episode_id"] == b["episode_id"] {
		t.Fatalf("two resets with seed 11: %v and %v", a["task"], b["task"])
	}
	obs := taskOf(map[string]any{"task_id": s.Dataset.Tasks[0].ID, "tools": []string{"execute_sql"}, "max_turns": 3})
	if n := len(obs["chat_tools"].([]any)); n != 2 || obs["max_turns"] != 3.0 {
		t.Fatalf("tools [execute_sql], max_turns 3: %d tools, %v turns", n, obs["max_turns"])
	}
	tools := data(t, c.call(listTools()), "observation")["observation"].(map[string]any)["tools"].([]any)
	if len(tools) != 2 {
		t.Fatalf("list_tools of an episode offering execute_sql: %v", tools)
	}
	st := data(t, c.call(map[string]any{"type": "state"}), "state")
	if st["turns_left"] != 3.0 || st["turn"] != 0.0 || st["done"] != false {
		t.Fatalf("state of a fresh 3-turn episode: %v", st)
	}
}

// TestResetPromptIsNative: an OpenEnv reset that names no prompt style
// gets the native prompt (no call syntax, no tool list; the tools are in
// chat_tools), recorded as native; one that asks for text gets text.
func TestResetPromptIsNative(t *testing.T) {
	s := start(t, nil, nil)
	c := s.dial(t, nil)
	obsOf := func(kw map[string]any) map[string]any {
		return data(t, c.call(reset(kw)), "observation")["observation"].(map[string]any)
	}
	system := func(obs map[string]any) string {
		return obs["messages"].([]any)[0].(map[string]any)["content"].(string)
	}
	obs := obsOf(map[string]any{"task_id": s.Dataset.Tasks[0].ID})
	if sys := system(obs); strings.Contains(sys, "<tool_call>") || strings.Contains(sys, "execute_sql") || len(obs["chat_tools"].([]any)) != 3 {
		t.Errorf("default reset: the system prompt names tools or a call syntax, or chat_tools lack them:\n%s", sys)
	}
	traj, err := s.trajectory(obs["episode_id"].(string))
	if err != nil || traj.PromptStyle != schemas.PromptStyleNative {
		t.Errorf("recorded prompt_style %q (%v), want native", traj.PromptStyle, err)
	}
	if sys := system(obsOf(map[string]any{"task_id": s.Dataset.Tasks[0].ID, "prompt_style": "text"})); !strings.Contains(sys, "<tool_call>") {
		t.Errorf("prompt_style text: the system prompt lacks the call syntax:\n%s", sys)
	}
}
