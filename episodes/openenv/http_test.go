package openenv_test

import (
	"net/http"
	"testing"
)

// TestHTTPEpisodeEqualsNative plays a whole episode over POST /reset and
// POST /step (the episode named by episode_id, as docs/protocol.md
// says), and checks the rewards against the native protocol's, GET
// /state, and that the ended episode leaves the session count.
func TestHTTPEpisodeEqualsNative(t *testing.T) {
	s := start(t, nil, nil)
	task := s.Dataset.Tasks[1]
	want := native(t, s, task.ID, script(task.GoldSQL))
	code, res := post(t, s.base+"/reset", map[string]any{"task_id": task.ID}, nil)
	if code != http.StatusOK || res["done"] != false {
		t.Fatalf("reset: %d %v", code, res)
	}
	id := res["observation"].(map[string]any)["episode_id"].(string)
	if s.handler.ActiveSessions() != 1 {
		t.Fatalf("%d sessions after an HTTP reset, want 1", s.handler.ActiveSessions())
	}
	var got outcome
	for _, m := range script(task.GoldSQL) {
		action := map[string]any{"type": "call_tool", "tool_name": m.tool, "arguments": m.args}
		code, res := post(t, s.base+"/step", map[string]any{"action": action, "episode_id": id}, nil)
		if code != http.StatusOK {
			t.Fatalf("step %s: %d %v", m.tool, code, res)
		}
		got.rewards = append(got.rewards, res["reward"].(float64))
		got.done = append(got.done, res["done"].(bool))
		md := res["observation"].(map[string]any)["metadata"].(map[string]any)
		if o, _ := md["outcome"].(string); o != "" {
			got.final = o
		}
	}
	if !equalOutcomes(got, want) {
		t.Fatalf("OpenEnv %+v, native %+v", got, want)
	}
	code, st := get(t, s.base+"/state?episode_id="+id, nil)
	if code != http.StatusOK || st["episode_id"] != id || st["outcome"] != "correct" || st["done"] != true {
		t.Fatalf("state: %d %v", code, st)
	}
	if n := s.handler.ActiveSessions(); n != 0 {
		t.Fatalf("%d sessions after the HTTP episode ended, want 0", n)
	}
	code, res = post(t, s.base+"/step", map[string]any{"action": map[string]any{"type": "list_tools"}, "episode_id": id}, nil)
	if code != http.StatusNotFound || res["code"] != "SESSION_ERROR" {
		t.Fatalf("step of an ended HTTP episode: %d %v", code, res)
	}
	checkOrigin(t, s, id)
}

// TestInfoRoutes checks GET /health, /metadata and /state without an
// episode answer as OpenEnv's http_server.py does.
func TestInfoRoutes(t *testing.T) {
	s := start(t, nil, nil)
	if code, h := get(t, s.base+"/health", nil); code != 200 || h["status"] != "healthy" {
		t.Fatalf("health: %d %v", code, h)
	}
	if code, m := get(t, s.base+"/metadata", nil); code != 200 || m["name"] != "sqlgym" || m["version"] != "test" {
		t.Fatalf("metadata: %d %v", code, m)
	}
	if code, st := get(t, s.base+"/state", nil); code != 200 || st["episode_id"] != nil || st["step_count"] != 0.0 {
		t.Fatalf("state of no episode: %d %v", code, st)
	}
	if code, r := get(t, s.base+"/reset", nil); code != http.StatusMethodNotAllowed {
		t.Fatalf("GET /reset: %d %v", code, r)
	}
	if code, r := get(t, s.base+"/nothing", nil); code != http.StatusNotFound {
		t.Fatalf("GET /nothing: %d %v", code, r)
	}
}
