package openenv_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/episodes/openenv"
	"github.com/sqlgym/sqlgym/episodes/transport"
)

// TestHostileFramesGetErrorsAndTheSocketLives sends what no OpenEnv
// client sends: a binary frame, JSON nested past encoding/json's depth,
// wrong types, and a step whose arguments are not an object. Each gets an
// error naming what was wrong, and the socket still plays.
func TestHostileFramesGetErrorsAndTheSocketLives(t *testing.T) {
	s := start(t, nil, nil)
	c := s.dial(t, nil)
	if err := c.conn.WriteMessage(websocket.BinaryMessage, []byte(`{"type": "state"}`)); err != nil {
		t.Fatal(err)
	}
	var reply map[string]any
	if err := c.conn.ReadJSON(&reply); err != nil {
		t.Fatal(err)
	}
	if got := errCode(t, reply); got != openenv.CodeInvalidJSON {
		t.Fatalf("binary frame: %s, want %s", got, openenv.CodeInvalidJSON)
	}
	deep := `{"type": "reset", "data": {"tags": ` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}}`
	taskID := s.Dataset.Tasks[0].ID
	for _, tt := range []struct {
		name, frame, code string
	}{
		{"nested past the depth", deep, openenv.CodeInvalidJSON},
		{"type a number", `{"type": 5}`, openenv.CodeInvalidJSON},
		{"data a string", `{"type": "reset", "data": "x"}`, openenv.CodeValidation},
		{"task_id a number", `{"type": "reset", "data": {"task_id": 7}}`, openenv.CodeValidation},
		// OpenEnv's ResetRequest: episode_id max_length=255
		// (meta-pytorch/OpenEnv, src/openenv/core/env_server/types.py).
		{"episode_id past 255 characters", `{"type": "reset", "data": {"episode_id": "` + strings.Repeat("é", 256) + `"}}`, openenv.CodeValidation},
	} {
		reply := c.raw([]byte(tt.frame))
		if got := errCode(t, reply); got != tt.code {
			t.Errorf("%s: code %s, want %s (%v)", tt.name, got, tt.code, reply)
		}
	}
	data(t, c.call(reset(map[string]any{"task_id": taskID, "episode_id": strings.Repeat("é", 255)})), "observation")
	for _, args := range []string{`[1]`, `"SELECT 1"`, `{"sql": 5}`} {
		frame := `{"type": "step", "data": {"type": "call_tool", "tool_name": "execute_sql", "arguments": ` + args + `}}`
		obs, _ := data(t, c.raw([]byte(frame)), "observation")["observation"].(map[string]any)
		e, _ := obs["error"].(map[string]any)
		if msg, _ := e["message"].(string); e["error_type"] != "invalid_args" || !strings.Contains(msg, "argument") {
			t.Errorf("arguments %s: observation %v, want an invalid_args error naming the arguments", args, obs)
		}
	}
	data(t, c.call(map[string]any{"type": "state"}), "state")
}

// TestEveryRouteNeedsTheToken sends each route of the surface without the
// token, with a wrong one, and with the right one in the URL (never
// read): each gets 401.
func TestEveryRouteNeedsTheToken(t *testing.T) {
	s := start(t, nil, func(c *transport.ServerConfig) { c.Token = "sekret" })
	routes := []struct{ method, path string }{
		{"GET", "/health"}, {"GET", "/schema"}, {"GET", "/metadata"}, {"GET", "/state"},
		{"POST", "/reset"}, {"POST", "/step"}, {"POST", "/mcp"}, {"GET", "/nowhere"},
	}
	for _, rt := range routes {
		for name, h := range map[string]http.Header{"none": nil, "wrong": {"Authorization": {"Bearer sekreT"}},
			"not bearer": {"Authorization": {"Basic sekret"}}, "in the URL": nil} {
			url := s.base + rt.path
			if name == "in the URL" {
				url += "?token=sekret&access_token=sekret"
			}
			req, _ := http.NewRequest(rt.method, url, strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
			for k, v := range h {
				req.Header[k] = v
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s %s, token %s: %d, want 401", rt.method, rt.path, name, resp.StatusCode)
			}
		}
	}
	mcpWS := strings.TrimSuffix(s.ws, "/ws") + "/mcp"
	for _, u := range []string{s.ws + "?token=sekret", mcpWS, mcpWS + "?token=sekret"} {
		if _, resp, err := websocket.DefaultDialer.Dial(u, nil); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("upgrade %s without the header: %v %v, want 401", u, err, resp)
		}
	}
}

// TestPagesOfOtherOriginsAreRefused sends, to a server without a token,
// each state-changing route from a page of another origin and addressed
// to a rebound host name: each gets 403, and no session is held.
func TestPagesOfOtherOriginsAreRefused(t *testing.T) {
	s := start(t, nil, nil)
	for _, path := range []string{"/reset", "/step", "/mcp"} {
		for _, ct := range []string{"application/json", "text/plain"} {
			req, _ := http.NewRequest("POST", s.base+path, strings.NewReader(`{}`))
			req.Header.Set("Content-Type", ct)
			req.Header.Set("Origin", "http://evil.example")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("POST %s (%s) from another origin: %d, want 403", path, ct, resp.StatusCode)
			}
		}
		req, _ := http.NewRequest("POST", s.base+path, strings.NewReader(`{}`))
		req.Header.Set("Content-Type", "application/json")
		req.Host = "rebound.example:80"
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s addressed to a rebound name: %d, want 403", path, resp.StatusCode)
		}
	}
	mcpWS := strings.TrimSuffix(s.ws, "/ws") + "/mcp"
	if _, resp, err := websocket.DefaultDialer.Dial(mcpWS, http.Header{"Origin": {"null"}}); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("upgrade of /mcp from an opaque origin: %v %v, want 403", err, resp)
	}
	if n := s.handler.ActiveSessions(); n != 0 {
		t.Fatalf("%d sessions held after refused requests", n)
	}
}
