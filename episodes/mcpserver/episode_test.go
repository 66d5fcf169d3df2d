package mcpserver_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/mcpserver"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// TestToolsListShowsNativeTools lists the tools: the session's four, and
// every episode tool with the native protocol's description and input
// schema, to which episode_id is added.
func TestToolsListShowsNativeTools(t *testing.T) {
	h := start(t, options{})
	got := listTools(t, h.connect(t, ""))
	want := append([]string{mcpserver.ToolListTasks, mcpserver.ToolStartEpisode, mcpserver.ToolGetReward, mcpserver.ToolEndEpisode},
		tools.Names()...)
	if names := slices.Sorted(maps.Keys(got)); !slices.Equal(names, slices.Sorted(slices.Values(want))) {
		t.Fatalf("tools %q, want %q", names, want)
	}
	for _, def := range tools.AllSet().Definitions() {
		tool := got[def.Function.Name]
		if tool.Description != def.Function.Description {
			t.Errorf("%s: description %q, want the native %q", tool.Name, tool.Description, def.Function.Description)
		}
		if a, ok := withoutEpisodeID(t, tool.InputSchema); !ok || a != canonical(t, def.Function.Parameters) {
			t.Errorf("%s: input schema (episode_id %v)\n%s\nwant the native\n%s", tool.Name, ok, a, canonical(t, def.Function.Parameters))
		}
		if _, native := withoutEpisodeID(t, def.Function.Parameters); native {
			t.Errorf("%s: the native tool takes an episode_id of its own", tool.Name)
		}
	}
	params, err := schemas.JSONSchema("episode.reset.params")
	if err != nil {
		t.Fatal(err)
	}
	var reset map[string]any
	json.Unmarshal(params, &reset)
	delete(reset, "$schema")
	if a, b := canonical(t, got[mcpserver.ToolStartEpisode].InputSchema), canonical(t, reset); a != b {
		t.Errorf("start_episode's input schema\n%s\nis not episode.reset's params\n%s", a, b)
	}
}

// withoutEpisodeID is an input schema, canonical, without its
// episode_id property; ok says it had one.
func withoutEpisodeID(t *testing.T, schema any) (string, bool) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(canonical(t, schema)), &m); err != nil {
		t.Fatal(err)
	}
	props, _ := m["properties"].(map[string]any)
	_, ok := props["episode_id"]
	delete(props, "episode_id")
	return canonical(t, m), ok
}

// canonical is v's JSON with object keys sorted.
func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(x)
	return string(b)
}

// play is a script of tool calls on one task.
type play struct {
	task  string
	calls []schemas.Action
}

var (
	goldSQL = "SELECT count(*) FROM books AS b JOIN authors AS a ON a.author_id = b.author_id WHERE a.name = 'Jane Austen'"
	// right and wrong answers of demo/library-001, each after a look at
	// the data, a failing statement and a repeated call.
	rightPlay = play{task: "demo/library-001", calls: []schemas.Action{
		{Tool: schemas.ToolInspectSchema, Arguments: json.RawMessage(`{}`)},
		{Tool: schemas.ToolExecuteSQL, Arguments: json.RawMessage(`{"sql":"SELECT nosuch FROM books"}`)},
		{Tool: schemas.ToolSearchValues, Arguments: json.RawMessage(`{"query":"jane austin"}`)},
		{Tool: schemas.ToolDescribeColumn, Arguments: json.RawMessage(`{"table":"books","column":"title"}`)},
		{Tool: schemas.ToolInspectSchema, Arguments: json.RawMessage(`{}`)},
		{Tool: schemas.ToolSubmit, Arguments: json.RawMessage(`{"sql":"` + goldSQL + `"}`)},
	}}
	wrongPlay = play{task: "demo/library-001", calls: []schemas.Action{
		{Tool: schemas.ToolExecuteSQL, Arguments: json.RawMessage(`{"sql":"SELECT count(*) FROM books"}`)},
		{Tool: schemas.ToolExecuteSQL, Arguments: json.RawMessage(`{"sql":7}`)},
		{Tool: schemas.ToolSubmit, Arguments: json.RawMessage(`{"sql":"SELECT count(*) FROM books"}`)},
	}}
)

// outcome is what an episode earned: each step's reward and components,
// and the summary.
type outcome struct {
	steps   []schemas.StepResult
	summary schemas.CloseResult
}

// TestRewardsEqualNative plays a right and a wrong answer through MCP and
// through the native protocol (episodes/client): every step's reward,
// components, observation and error, and the outcome and totals, agree.
func TestRewardsEqualNative(t *testing.T) {
	h := start(t, options{})
	cs := h.connect(t, "")
	native := h.demo.Dial(t)
	for name, p := range map[string]play{"right": rightPlay, "wrong": wrongPlay} {
		var viaMCP outcome
		ep := startEpisode(t, cs, p.task)
		for _, a := range p.calls {
			res := call(t, cs, a.Tool, a.Arguments)
			var sr schemas.StepResult
			structured(t, res, &sr)
			if text(res) != sr.Observation.Content || res.IsError != (sr.Info.Error != nil) {
				t.Errorf("%s %s: text %q, isError %v, for step %+v", name, a.Tool, text(res), res.IsError, sr)
			}
			viaMCP.steps = append(viaMCP.steps, sr)
		}
		r := call(t, cs, mcpserver.ToolGetReward, nil)
		b, _ := json.Marshal(r.StructuredContent)
		viaMCP.summary = rewardSummary(t, b)
		viaNative, id := playNative(t, native, p)
		compare(t, name, viaMCP, viaNative, ep.EpisodeID, id)
	}
}

// rewardSummary reads get_reward's structured content as the summary
// episode.close returns.
func rewardSummary(t *testing.T, raw json.RawMessage) schemas.CloseResult {
	t.Helper()
	var rw mcpserver.Reward
	if err := json.Unmarshal(raw, &rw); err != nil {
		t.Fatalf("get_reward %s: %v", raw, err)
	}
	return schemas.CloseResult{EpisodeID: rw.EpisodeID, Outcome: rw.Outcome, FinalReward: rw.FinalReward,
		TotalReward: rw.TotalReward, Turns: rw.Turns, RewardComponents: rw.RewardComponents}
}

// playNative plays p over the native protocol and returns what it
// earned and the episode's id.
func playNative(t *testing.T, native *client.Client, p play) (outcome, string) {
	t.Helper()
	ctx := context.Background()
	var o outcome
	nr, err := native.Reset(ctx, schemas.ResetParams{TaskID: p.task})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range p.calls {
		sr, err := native.Step(ctx, nr.EpisodeID, a)
		if err != nil {
			t.Fatal(err)
		}
		o.steps = append(o.steps, *sr)
	}
	sum, err := native.CloseEpisode(ctx, nr.EpisodeID)
	if err != nil {
		t.Fatal(err)
	}
	o.summary = *sum
	return o, nr.EpisodeID
}

// compare fails the test where two plays of one script earned differently.
func compare(t *testing.T, name string, a, b outcome, idA, idB string) {
	t.Helper()
	wantOutcome := map[string]string{"right": schemas.OutcomeCorrect, "wrong": schemas.OutcomeMismatch}[name]
	if a.summary.Outcome != wantOutcome || b.summary.Outcome != wantOutcome {
		t.Errorf("%s: outcomes %q (mcp) and %q (native), want %q", name, a.summary.Outcome, b.summary.Outcome, wantOutcome)
	}
	for i := range a.steps {
		x, y := a.steps[i], b.steps[i]
		x.Info.Result, y.Info.Result = nil, nil // elapsed times differ
		if canonical(t, x) != canonical(t, y) {
			t.Errorf("%s step %d:\nmcp    %s\nnative %s", name, i+1, canonical(t, x), canonical(t, y))
		}
	}
	a.summary.EpisodeID, b.summary.EpisodeID = "", ""
	if canonical(t, a.summary) != canonical(t, b.summary) {
		t.Errorf("%s summary:\nmcp    %+v\nnative %+v", name, a.summary, b.summary)
	}
	if a.summary.TotalReward == 0 && name == "right" {
		t.Errorf("a right answer earned nothing")
	}
}

// TestEpisodeRecordedWithOrigin shows an MCP episode is recorded as
// native ones are, its tags holding the client's and origin=mcp.
func TestEpisodeRecordedWithOrigin(t *testing.T) {
	h := start(t, options{})
	cs := h.connect(t, "")
	res := call(t, cs, mcpserver.ToolStartEpisode, map[string]any{"task_id": "demo/library-001", "tags": map[string]any{"run": "r1", "origin": "other"}})
	var ep schemas.ResetResult
	structured(t, res, &ep)
	call(t, cs, schemas.ToolSubmit, map[string]any{"sql": goldSQL})
	traj, err := h.trajectory(ep.EpisodeID)
	if err != nil {
		t.Fatal(err)
	}
	var tags map[string]string
	if err := json.Unmarshal(traj.Tags, &tags); err != nil || tags["origin"] != "mcp" || tags["run"] != "r1" {
		t.Errorf("tags %s (%v), want run=r1 and origin=mcp", traj.Tags, err)
	}
	if traj.Outcome != schemas.OutcomeCorrect || len(traj.Steps) != 1 {
		t.Errorf("trajectory: outcome %q, %d steps", traj.Outcome, len(traj.Steps))
	}
}

// TestSessionEpisodeLifecycle covers a session's episode: tools before
// start_episode, list_tasks, a start that replaces a live episode, a call
// after the end, end_episode and bad arguments.
func TestSessionEpisodeLifecycle(t *testing.T) {
	h := start(t, options{})
	cs := h.connect(t, "")
	if res := call(t, cs, schemas.ToolExecuteSQL, map[string]any{"sql": "SELECT 1"}); !res.IsError || !strings.Contains(text(res), "start_episode") {
		t.Errorf("a tool before start_episode: %v %q", res.IsError, text(res))
	}
	list := call(t, cs, mcpserver.ToolListTasks, map[string]any{"limit": 2})
	var tl schemas.TasksListResult
	structured(t, list, &tl)
	if len(tl.Tasks) != 2 || tl.Total != len(h.demo.Dataset.Tasks) || !strings.Contains(text(list), tl.Tasks[0].Question) {
		t.Errorf("list_tasks: %d tasks of %d\n%s", len(tl.Tasks), tl.Total, text(list))
	}
	if res := call(t, cs, mcpserver.ToolListTasks, map[string]any{"limit": 2, "colour": "red"}); !res.IsError || !strings.Contains(text(res), "colour") {
		t.Errorf("an unknown argument: %v %q", res.IsError, text(res))
	}
	first := startEpisode(t, cs, "demo/library-001")
	second := call(t, cs, mcpserver.ToolStartEpisode, map[string]any{"task_id": "demo/library-002"})
	if !strings.Contains(text(second), first.EpisodeID+", had not ended") {
		t.Errorf("second start does not say the first was closed:\n%s", text(second))
	}
	if traj, err := h.trajectory(first.EpisodeID); err != nil || traj.Outcome != schemas.OutcomeNoSubmit {
		t.Errorf("the replaced episode: %v %v", traj, err)
	}
	end := call(t, cs, mcpserver.ToolEndEpisode, nil)
	var sum schemas.CloseResult
	structured(t, end, &sum)
	if sum.Outcome != schemas.OutcomeNoSubmit {
		t.Errorf("end_episode: %+v", sum)
	}
	after := call(t, cs, schemas.ToolExecuteSQL, map[string]any{"sql": "SELECT 1"})
	if !after.IsError || !strings.Contains(text(after), "ended") {
		t.Errorf("a call after the end: %v %q", after.IsError, text(after))
	}
	if res := call(t, cs, mcpserver.ToolStartEpisode, map[string]any{"task_id": "demo/nosuch"}); !res.IsError || !strings.Contains(text(res), "nosuch") {
		t.Errorf("an unknown task: %v %q", res.IsError, text(res))
	}
	if res := call(t, cs, mcpserver.ToolStartEpisode, map[string]any{"max_turns": 0}); !res.IsError ||
		!strings.Contains(text(res), "max_turns") || strings.Contains(text(res), "rpc error") {
		t.Errorf("max_turns 0: %v %q", res.IsError, text(res))
	}
	if res := call(t, cs, mcpserver.ToolStartEpisode, map[string]any{"tags": []int{1}}); !res.IsError || !strings.Contains(text(res), `"tags" must be an object`) {
		t.Errorf("tags not an object: %v %q", res.IsError, text(res))
	}
}

// TestEpisodePromptIsNative: start_episode without a prompt style starts
// an episode whose prompt is native (its tools come with the MCP tools,
// not in the prompt), recorded so; prompt_style text asks for the other.
func TestEpisodePromptIsNative(t *testing.T) {
	h := start(t, options{})
	cs := h.connect(t, "")
	ep := startEpisode(t, cs, "demo/library-001")
	if sys := ep.Messages[0].Content; strings.Contains(sys, "<tool_call>") || strings.Contains(sys, "execute_sql") {
		t.Errorf("the default prompt names tools or a call syntax:\n%s", sys)
	}
	traj, err := h.trajectory(ep.EpisodeID)
	if err != nil || traj.PromptStyle != schemas.PromptStyleNative {
		t.Errorf("recorded prompt_style %q (%v), want native", traj.PromptStyle, err)
	}
	res := call(t, cs, mcpserver.ToolStartEpisode, map[string]any{"task_id": "demo/library-001", "prompt_style": "text"})
	var text schemas.ResetResult
	structured(t, res, &text)
	if !strings.Contains(text.Messages[0].Content, "<tool_call>") {
		t.Errorf("prompt_style text: the prompt lacks the call syntax:\n%s", text.Messages[0].Content)
	}
}
