package mcpserver_test

import (
	"encoding/json"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/mcpserver"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestArgumentErrorsInTheToolsWords calls tools with arguments their
// schemas refuse: each answer is a tool error naming the argument and
// what it takes, in the tool's words, not a decoder's.
func TestArgumentErrorsInTheToolsWords(t *testing.T) {
	h := start(t, options{})
	cs := h.connect(t, "")
	resetArgs := "its arguments are: action_format (string), dataset (string), descriptions (boolean), max_turns (integer), prompt_style (string), " +
		"reward (object or string), seed (integer), tags (object), task_id (string), tools (array)"
	tests := []struct {
		tool string
		args any
		want string
	}{
		{mcpserver.ToolStartEpisode, map[string]any{"task_id": 7}, `start_episode: the argument "task_id" must be a string, not a number`},
		{mcpserver.ToolStartEpisode, map[string]any{"seed": 1.5}, `start_episode: the argument "seed" must be an integer, not a number`},
		{mcpserver.ToolStartEpisode, map[string]any{"seed": json.RawMessage("100000000000000000000000")},
			`start_episode: the argument "seed" must be an integer, not 100000000000000000000000 (out of range)`},
		{mcpserver.ToolStartEpisode, map[string]any{"tools": []any{"execute_sql", 1}},
			`start_episode: the argument "tools" must be an array of strings, not an array`},
		{mcpserver.ToolStartEpisode, map[string]any{"descriptions": "yes"}, `start_episode: the argument "descriptions" must be a boolean, not a string`},
		{mcpserver.ToolStartEpisode, map[string]any{"tags": "run=1"}, `start_episode: the argument "tags" must be an object, not a string`},
		{mcpserver.ToolStartEpisode, map[string]any{"task": "demo/library-001"}, `start_episode does not take the argument "task"; ` + resetArgs},
		{mcpserver.ToolListTasks, map[string]any{"limit": "ten"}, `list_tasks: the argument "limit" must be an integer, not a string`},
		{mcpserver.ToolGetReward, map[string]any{"x": 1}, `get_reward does not take the argument "x"; its arguments are: episode_id (string)`},
		{mcpserver.ToolGetReward, map[string]any{"episode_id": 5},
			`get_reward: the argument "episode_id" must be a string (the id start_episode returned), not a number`},
		{mcpserver.ToolEndEpisode, map[string]any{"episode_id": ""},
			`end_episode: the argument "episode_id" is empty: give the id start_episode returned, or leave it out for the session's episode`},
		{schemas.ToolExecuteSQL, map[string]any{"sql": "SELECT 1", "episode_id": []int{1}},
			`execute_sql: the argument "episode_id" must be a string (the id start_episode returned), not an array`},
	}
	for _, tt := range tests {
		res := call(t, cs, tt.tool, tt.args)
		if got := text(res); !res.IsError || got != tt.want {
			t.Errorf("%s %v: isError %v\n got %s\nwant %s", tt.tool, tt.args, res.IsError, got, tt.want)
		}
	}
}
