package openenv

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// FuzzResetOf: resetOf never panics; what it ignores is exactly the
// object's names sqlgym does not know, sorted; and a reset it takes
// plays the task the URL names, when it names one.
func FuzzResetOf(f *testing.F) {
	for _, s := range []string{``, `null`, `{}`, `{"task_id": "demo/a", "x": 1}`, `{"Task_ID": 1}`, `{"seed": "1"}`,
		`[1]`, `"x"`, `{"a":1}x`, `{"tags": {"k": "v"}, "tags ": 2}`, `{"reward": {"nope": 1}}`, "{\"\xff\": 1}",
		`{"task_id": "demo/b"}`, `{"max_turns": 3, "max_turns": "x"}`, `{"episode_id": null, "": 0}`} {
		f.Add([]byte(s), "")
		f.Add([]byte(s), "demo/a")
	}
	f.Fuzz(func(t *testing.T, data []byte, task string) {
		d, ignored, err := resetOf(data, task)
		if err != nil {
			return
		}
		var fields map[string]json.RawMessage
		if trimmed := strings.TrimSpace(string(data)); trimmed != "" && trimmed != "null" {
			if json.Unmarshal(data, &fields) != nil {
				t.Fatalf("resetOf took %q, which is not an object", data)
			}
		}
		var want []string
		for name := range fields {
			if !resetFields()[name] {
				want = append(want, name)
			}
		}
		slices.Sort(want)
		if !slices.Equal(ignored, want) {
			t.Errorf("resetOf(%q) ignored %q, want %q", data, ignored, want)
		}
		if task != "" && d.TaskID != task {
			t.Errorf("resetOf(%q, %q) plays %q", data, task, d.TaskID)
		}
	})
}

// TestResetFields checks the names a reset's data may carry are
// episode.reset's params and OpenEnv's episode_id, as encoding/json
// names them.
func TestResetFields(t *testing.T) {
	want := []string{"action_format", "dataset", "descriptions", "episode_id", "max_turns", "prompt_style", "reward", "seed", "tags", "task_id", "tools"}
	var got []string
	for name := range resetFields() {
		got = append(got, name)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("reset fields %q, want %q", got, want)
	}
}

// FuzzSplitRoute: a path under /tasks/ is split into a task and the
// route that is its last segment, which put back together are the path;
// any other path is its own route.
func FuzzSplitRoute(f *testing.F) {
	for _, s := range []string{"/mcp", "/tasks/demo/a/mcp", "/tasks/a/ws", "/tasks/", "/tasks//mcp", "/tasks/mcp",
		"/tasks/a/b/c/reset", "/tasksx/a/mcp", "", "/tasks/a/", "//tasks/a/mcp"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		task, route := splitRoute(path)
		switch {
		case !strings.HasPrefix(path, tasksRoute):
			if task != "" || route != path {
				t.Errorf("splitRoute(%q) = %q, %q; want no task and the path", path, task, route)
			}
		case task == "":
			if route != "" {
				t.Errorf("splitRoute(%q) = no task, route %q", path, route)
			}
		case tasksRoute+task+route != path || !strings.HasPrefix(route, "/") || strings.Contains(route[1:], "/"):
			t.Errorf("splitRoute(%q) = %q, %q", path, task, route)
		}
	})
}

// TestSplitRoute pins the splits a base_url .../tasks/{task_id} makes.
func TestSplitRoute(t *testing.T) {
	for _, tt := range []struct{ path, task, route string }{
		{"/mcp", "", "/mcp"},
		{"/tasks/demo/shop-014/mcp", "demo/shop-014", "/mcp"},
		{"/tasks/spider-dev/17/ws", "spider-dev/17", "/ws"},
		{"/tasks/a/b/c/reset", "a/b/c", "/reset"},
		{"/tasks/demo", "", ""},
		{"/tasks//mcp", "", ""},
	} {
		if task, route := splitRoute(tt.path); task != tt.task || route != tt.route {
			t.Errorf("splitRoute(%q) = %q, %q; want %q, %q", tt.path, task, route, tt.task, tt.route)
		}
	}
}
