package openenv_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/openenv"
	"github.com/sqlgym/sqlgym/schemas"
)

// ignoredFields is the ignored_fields list of a reset's metadata (nil
// when it has none).
func ignoredFields(md map[string]any) []string {
	var out []string
	for _, f := range asSlice(md["ignored_fields"]) {
		out = append(out, f.(string))
	}
	return out
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// TestUnknownResetFieldsAreDroppedAndListed sends resets carrying fields
// sqlgym does not know, on every path a reset takes, as OpenEnv's own
// server takes them: its ResetRequest allows extra fields (model_config
// extra="allow", src/openenv/core/env_server/types.py), and
// HTTPEnvServer._get_valid_kwargs passes reset only the keyword arguments
// the environment's reset takes, dropping the others without a word, for
// POST /reset and the WebSocket's reset alike (http_server.py's
// reset_handler and websocket_endpoint, meta-pytorch/OpenEnv
// 685de411e5f7). Each reset plays the task it names, and its answer lists
// what was dropped. A name matches as a Python keyword does, exactly:
// Task_ID is not task_id.
func TestUnknownResetFieldsAreDroppedAndListed(t *testing.T) {
	s := start(t, nil, nil)
	task := s.Dataset.Tasks[3]
	kw := map[string]any{"task_id": task.ID, "seed": 3, "difficulty": "hard", "Task_ID": "demo/none", "split": nil}
	want := []string{"Task_ID", "difficulty", "split"}
	c := s.dial(t, nil)
	obs := data(t, c.call(reset(kw)), "observation")["observation"].(map[string]any)
	if got := ignoredFields(obs["metadata"].(map[string]any)); !slices.Equal(got, want) || obs["task"].(map[string]any)["task_id"] != task.ID {
		t.Fatalf("WebSocket reset: task %v, ignored %v; want %s, %v", obs["task"], got, task.ID, want)
	}
	code, res := post(t, s.base+"/reset", kw, nil)
	if code != http.StatusOK {
		t.Fatalf("POST /reset: %d %v", code, res)
	}
	if got := ignoredFields(res["observation"].(map[string]any)["metadata"].(map[string]any)); !slices.Equal(got, want) {
		t.Fatalf("POST /reset: ignored %v, want %v", got, want)
	}
	_, res = post(t, s.base+"/mcp", jsonRPC(1, "openenv/session/create", kw), nil)
	r, _ := res["result"].(map[string]any)
	if got := ignoredFields(r); !slices.Equal(got, want) || r["task_id"] != task.ID {
		t.Fatalf("session/create: %v; want task %s, ignored %v", res, task.ID, want)
	}
	rec, err := s.trajectory(r["session_id"].(string))
	if err != nil || rec.Task.TaskID != task.ID {
		t.Fatalf("session/create's episode: %v %v", rec, err)
	}
	md := data(t, c.call(reset(map[string]any{"task_id": task.ID})), "observation")["observation"].(map[string]any)["metadata"].(map[string]any)
	if _, ok := md["ignored_fields"]; ok {
		t.Fatalf("a reset with known fields only lists ignored fields: %v", md)
	}
}

// TestKnownResetFieldsAreStillChecked checks that dropping the unknown
// fields does not loosen the known ones: a wrong type, or a value out of
// range, is still VALIDATION_ERROR beside an unknown field.
func TestKnownResetFieldsAreStillChecked(t *testing.T) {
	s := start(t, nil, nil)
	c := s.dial(t, nil)
	for _, frame := range []string{
		`{"type": "reset", "data": {"max_turns": "3", "extra": 1}}`,
		`{"type": "reset", "data": {"task_id": 7, "extra": 1}}`,
		`{"type": "reset", "data": {"max_turns": 0, "extra": 1}}`,
		`{"type": "reset", "data": {"tags": [1], "extra": 1}}`,
		`{"type": "reset", "data": ["task_id"]}`,
	} {
		if got := errCode(t, c.raw([]byte(frame))); got != openenv.CodeValidation {
			t.Errorf("%s: %s, want %s", frame, got, openenv.CodeValidation)
		}
	}
}

// TestRefusedResetKeepsTheEpisode sends a socket that plays an episode
// resets the server refuses; after each the state is the episode's as it
// was, and the episode then plays on to its submit, paid as the native
// protocol pays the same calls.
func TestRefusedResetKeepsTheEpisode(t *testing.T) {
	s := start(t, nil, nil)
	task := s.Dataset.Tasks[0]
	moves := []move{{schemas.ToolInspectSchema, map[string]any{}}, {schemas.ToolSubmit, map[string]any{"sql": task.GoldSQL}}}
	want := native(t, s, task.ID, moves)
	c := s.dial(t, nil)
	id := data(t, c.call(reset(map[string]any{"task_id": task.ID})), "observation")["observation"].(map[string]any)["episode_id"]
	data(t, c.call(callTool(moves[0].tool, moves[0].args)), "observation")
	for _, frame := range []string{
		`{"type": "reset", "data": {"task_id": "demo/none"}}`,
		`{"type": "reset", "data": {"dataset": "nope"}}`,
		`{"type": "reset", "data": {"max_turns": 0}}`,
		`{"type": "reset", "data": {"tags": [1]}}`,
		`{"type": "reset", "data": {"task_id": 7}}`,
		`{"type": "reset", "data": "x"}`,
		`{"type": "reset", "data": {"episode_id": "` + strings.Repeat("x", 256) + `"}}`,
	} {
		if got := errCode(t, c.raw([]byte(frame))); got != openenv.CodeValidation {
			t.Errorf("%s: %s, want %s", frame, got, openenv.CodeValidation)
		}
		st := data(t, c.call(map[string]any{"type": "state"}), "state")
		if st["episode_id"] != id || st["turn"] != 1.0 || st["done"] != false {
			t.Fatalf("state after %s: %v, want episode %v at turn 1", frame, st, id)
		}
	}
	d := data(t, c.call(callTool(moves[1].tool, moves[1].args)), "observation")
	md := d["observation"].(map[string]any)["metadata"].(map[string]any)
	if d["reward"] != want.rewards[1] || md["turn"] != 2.0 || md["outcome"] != want.final {
		t.Fatalf("the submit after the refused resets: %v; native %+v", d, want)
	}
}

// TestResetAtTheEpisodeBound: with --max-episodes 1, a socket whose
// episode holds the one place can still reset (its episode gives the
// place to the next, and is recorded no_submit), while another socket's
// reset gets CAPACITY_REACHED and leaves the first socket's episode be.
func TestResetAtTheEpisodeBound(t *testing.T) {
	s := startWith(t, func(c *episodes.Config, _ string) { c.MaxEpisodes = 1 }, nil, nil)
	task := s.Dataset.Tasks[0].ID
	c := s.dial(t, nil)
	first := data(t, c.call(reset(map[string]any{"task_id": task})), "observation")["observation"].(map[string]any)["episode_id"].(string)
	second := data(t, c.call(reset(map[string]any{"task_id": task})), "observation")["observation"].(map[string]any)["episode_id"].(string)
	if rec, err := s.trajectory(first); err != nil || rec.Outcome != schemas.OutcomeNoSubmit {
		t.Fatalf("the episode the reset replaced: %v %v", rec, err)
	}
	other := s.dial(t, nil)
	if got := errCode(t, other.call(reset(map[string]any{"task_id": task}))); got != openenv.CodeCapacityReached {
		t.Fatalf("another socket's reset at the bound: %s, want %s", got, openenv.CodeCapacityReached)
	}
	if st := data(t, c.call(map[string]any{"type": "state"}), "state"); st["episode_id"] != second || st["done"] != false {
		t.Fatalf("state of the first socket after the other's refused reset: %v", st)
	}
}
