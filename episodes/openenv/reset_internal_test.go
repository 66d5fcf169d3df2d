package openenv

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// FuzzResetOf: resetOf never panics, and what it ignores is exactly the
// object's names sqlgym does not know, sorted.
func FuzzResetOf(f *testing.F) {
	for _, s := range []string{``, `null`, `{}`, `{"task_id": "demo/a", "x": 1}`, `{"Task_ID": 1}`, `{"seed": "1"}`,
		`[1]`, `"x"`, `{"a":1}x`, `{"tags": {"k": "v"}, "tags ": 2}`, `{"reward": {"nope": 1}}`, "{\"\xff\": 1}",
		`{"task_id": "demo/b"}`, `{"max_turns": 3, "max_turns": "x"}`, `{"episode_id": null, "": 0}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, ignored, err := resetOf(data)
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
	})
}

// TestResetFields checks the names a reset's data may carry are
// episode.reset's params and OpenEnv's episode_id, as encoding/json
// names them.
func TestResetFields(t *testing.T) {
	want := []string{"action_format", "dataset", "descriptions", "episode_id", "max_turns", "reward", "seed", "tags", "task_id", "tools"}
	var got []string
	for name := range resetFields() {
		got = append(got, name)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("reset fields %q, want %q", got, want)
	}
}
