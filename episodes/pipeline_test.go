package episodes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/schemas"
)

// TestPipelining writes 200 requests on one socket before reading any
// reply: 100 resets, then a step of each episode, all in flight at once.
// Every reply must come back with its own id.
func TestPipelining(t *testing.T) {
	h := newHarness(t, options{})
	rc := h.raw()
	const n = 100
	for i := 0; i < n; i++ {
		frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"episode.reset","params":{"task_id":"t/count"}}`, i)
		rc.ws.WriteMessage(websocket.TextMessage, []byte(frame))
	}
	for i := 0; i < n; i++ {
		rc.ws.WriteMessage(websocket.TextMessage, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"info-%d","method":"server.info"}`, i)))
	}
	seen := map[string]bool{}
	var episodes []string
	rc.ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	for len(seen) < 2*n {
		_, b, err := rc.ws.ReadMessage()
		if err != nil {
			t.Fatalf("after %d replies: %v", len(seen), err)
		}
		var r struct {
			ID     json.RawMessage      `json:"id"`
			Result *schemas.ResetResult `json:"result"`
			Error  *schemas.Error       `json:"error"`
		}
		if err := json.Unmarshal(b, &r); err != nil || r.Error != nil {
			t.Fatalf("reply %s: %v", b, err)
		}
		if seen[string(r.ID)] {
			t.Fatalf("id %s answered twice", r.ID)
		}
		seen[string(r.ID)] = true
		if r.Result.EpisodeID != "" {
			episodes = append(episodes, r.Result.EpisodeID)
		}
	}
	// Now 100 steps of 100 episodes in flight at once, on the same socket.
	for i, id := range episodes {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1000 + i, "method": "episode.step",
			"params": map[string]any{"episode_id": id, "action": submitSQL("SELECT count(*) FROM items")}})
		rc.ws.WriteMessage(websocket.TextMessage, b)
	}
	for i := range episodes {
		_, b, err := rc.ws.ReadMessage()
		if err != nil {
			t.Fatalf("step reply %d: %v", i, err)
		}
		var r struct {
			Result *schemas.StepResult `json:"result"`
		}
		if json.Unmarshal(b, &r); r.Result == nil || r.Result.Info.Outcome != "correct" {
			t.Fatalf("step reply %s", b)
		}
	}
}

// TestStepsOfOneEpisodeRunInArrivalOrder pipelines several steps of one
// episode: their turns must follow the order they were sent in.
func TestStepsOfOneEpisodeRunInArrivalOrder(t *testing.T) {
	h := newHarness(t, options{})
	c := h.dial()
	r := reset(t, c, schemas.ResetParams{TaskID: "t/count", MaxTurns: new(20)})
	rc := h.raw()
	for i := 1; i <= 10; i++ {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i, "method": "episode.step",
			"params": map[string]any{"episode_id": r.EpisodeID, "action": execSQL(fmt.Sprintf("SELECT %d", i))}})
		rc.ws.WriteMessage(websocket.TextMessage, b)
	}
	for i := 0; i < 10; i++ {
		rc.ws.ReadMessage()
	}
	g, err := c.Episode(context.Background(), r.EpisodeID)
	if err != nil || len(g.Steps) != 10 {
		t.Fatalf("episode = %+v, %v", g, err)
	}
	for i, s := range g.Steps {
		if want := fmt.Sprintf(`{"sql":"SELECT %d"}`, i+1); string(s.Arguments) != want || s.Turn != i+1 {
			t.Errorf("turn %d ran %s, want %s", s.Turn, s.Arguments, want)
		}
	}
}

// TestResumeOnAnotherSocket drops the socket that started an episode and
// goes on with it from a new one.
func TestResumeOnAnotherSocket(t *testing.T) {
	h := newHarness(t, options{})
	first := h.dial()
	r := reset(t, first, schemas.ResetParams{TaskID: "t/count"})
	step(t, first, r.EpisodeID, execSQL("SELECT count(*) FROM items"))
	first.Close()

	second := h.dial()
	s := step(t, second, r.EpisodeID, submitSQL("SELECT count(*) FROM items"))
	if s.Info.Turn != 2 || s.Info.Outcome != "correct" {
		t.Fatalf("resumed step = %+v", s.Info)
	}
}

// TestPipelinedStepsAnswerTheirOwnFrames sends many steps at once on one
// socket, each with its own id and its own query, while the server reads
// frames into buffers it reuses once a frame's job has run: every reply
// must carry its request's id and that request's result.
func TestPipelinedStepsAnswerTheirOwnFrames(t *testing.T) {
	h := newHarness(t, options{})
	c := h.dial()
	const episodes, rounds = 16, 8
	var ids []string
	for range episodes {
		ids = append(ids, reset(t, c, schemas.ResetParams{TaskID: "t/count", MaxTurns: new(rounds + 1)}).EpisodeID)
	}
	rc := h.raw()
	for r := range rounds {
		for e, id := range ids {
			n := r*episodes + e
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("q%06d", n), "method": "episode.step",
				"params": map[string]any{"episode_id": id, "action": execSQL(fmt.Sprintf("SELECT %d AS n", n))}})
			rc.ws.WriteMessage(websocket.TextMessage, b)
		}
	}
	rc.ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	seen := map[string]bool{}
	for len(seen) < rounds*episodes {
		_, b, err := rc.ws.ReadMessage()
		if err != nil {
			t.Fatalf("after %d replies: %v", len(seen), err)
		}
		var r struct {
			ID     string              `json:"id"`
			Result *schemas.StepResult `json:"result"`
		}
		if err := json.Unmarshal(b, &r); err != nil || r.Result == nil || r.Result.Info.Result == nil {
			t.Fatalf("reply %s: %v", b, err)
		}
		var n int
		fmt.Sscanf(r.ID, "q%d", &n)
		if seen[r.ID] || len(r.Result.Info.Result.Rows) != 1 || fmt.Sprint(r.Result.Info.Result.Rows[0][0]) != fmt.Sprint(n) {
			t.Fatalf("reply to %s (seen before: %v) holds %v, want [[%d]]", r.ID, seen[r.ID], r.Result.Info.Result.Rows, n)
		}
		seen[r.ID] = true
	}
}
