package episodes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/schemas"
)

// rawConn is a bare WebSocket for frames no client would send.
type rawConn struct {
	t  testing.TB
	ws *websocket.Conn
}

func (h *harness) raw() *rawConn {
	h.t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(h.url, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { ws.Close() })
	return &rawConn{t: h.t, ws: ws}
}

// roundTrip sends a frame and returns the decoded reply frame.
func (r *rawConn) roundTrip(frame string) json.RawMessage {
	r.t.Helper()
	if err := r.ws.WriteMessage(websocket.TextMessage, []byte(frame)); err != nil {
		r.t.Fatal(err)
	}
	r.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, b, err := r.ws.ReadMessage()
	if err != nil {
		r.t.Fatalf("no reply to %s: %v", frame, err)
	}
	return b
}

func errorOf(t *testing.T, reply json.RawMessage) (int, string, string) {
	t.Helper()
	var r struct {
		ID    json.RawMessage `json:"id"`
		Error *schemas.Error  `json:"error"`
	}
	if err := json.Unmarshal(reply, &r); err != nil || r.Error == nil {
		t.Fatalf("not an error reply: %s", reply)
	}
	return r.Error.Code, r.Error.Message, string(r.ID)
}

func TestProtocolErrors(t *testing.T) {
	h := newHarness(t, options{})
	rc := h.raw()
	tests := []struct {
		frame, wantMsg, wantID string
		code                   int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":`, "not valid JSON", "null", -32700},
		{`not json at all`, "not valid JSON", "null", -32700},
		{`{"jsonrpc":"1.0","id":2,"method":"server.info"}`, `"jsonrpc" must be "2.0"`, "2", -32600},
		{`{"jsonrpc":"2.0","id":3}`, `"method" is missing`, "3", -32600},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"server.info"}`, `"id" must be`, "null", -32600},
		{`[]`, "empty batch", "null", -32600},
		{`42`, "not a JSON-RPC 2.0 request", "null", -32600},
		{`{"jsonrpc":"2.0","id":"x","method":"episode.fly"}`, `"episode.fly"`, `"x"`, -32601},
		{`{"jsonrpc":"2.0","id":5,"method":"episode.reset","params":{"task":"t/count"}}`, `unknown field "task"`, "5", -32602},
		{`{"jsonrpc":"2.0","id":6,"method":"episode.reset","params":{"max_turns":"eight"}}`, "max_turns: expected an integer, got a string", "6", -32602},
		{`{"jsonrpc":"2.0","id":7,"method":"episode.reset","params":{"max_turns":500}}`, "between 1 and 64", "7", -32602},
		{`{"jsonrpc":"2.0","id":8,"method":"episode.reset","params":[1,2]}`, "must be a JSON object", "8", -32602},
		{`{"jsonrpc":"2.0","id":9,"method":"episode.reset","params":{"action_format":"xml"}}`, `"xml"`, "9", -32602},
		{`{"jsonrpc":"2.0","id":10,"method":"episode.reset","params":{"reward":{"final":{"corect":1}}}}`, "corect", "10", -32602},
		{`{"jsonrpc":"2.0","id":11,"method":"episode.reset","params":{"tags":[1]}}`, "tags must be a JSON object", "11", -32602},
		{`{"jsonrpc":"2.0","id":12,"method":"episode.step","params":{"episode_id":"ep_x","action":{}}}`, `needs "tool"`, "12", -32602},
		{`{"jsonrpc":"2.0","id":13,"method":"episode.step","params":{"episode_id":"ep_x","action":{"tool":"submit","text":"x"}}}`, "not both", "13", -32602},
		{`{"jsonrpc":"2.0","id":14,"method":"episode.step","params":{"episode_id":"ep_nope","action":{"text":"x"}}}`, "ep_nope", "14", -32001},
		{`{"jsonrpc":"2.0","id":15,"method":"episode.close","params":{"episode_id":"ep_nope"}}`, "ep_nope", "15", -32001},
		{`{"jsonrpc":"2.0","id":16,"method":"episode.reset","params":{"task_id":"t/none"}}`, `no task "t/none"`, "16", -32004},
		{`{"jsonrpc":"2.0","id":17,"method":"episode.reset","params":{"dataset":"bird"}}`, `no dataset "bird"`, "17", -32004},
		{`{"jsonrpc":"2.0","id":18,"method":"episode.get","params":{}}`, "episode_id is missing", "18", -32602},
	}
	for _, tt := range tests {
		code, msg, id := errorOf(t, rc.roundTrip(tt.frame))
		if code != tt.code || !strings.Contains(msg, tt.wantMsg) || id != tt.wantID {
			t.Errorf("%s\n got code %d id %s %q\nwant code %d id %s, message containing %q", tt.frame, code, id, msg, tt.code, tt.wantID, tt.wantMsg)
		}
	}
	// The connection survives every bad frame.
	if b := rc.roundTrip(`{"jsonrpc":"2.0","id":99,"method":"server.info"}`); !strings.Contains(string(b), `"sqlgym/1"`) {
		t.Errorf("server.info after bad frames: %s", b)
	}
}

func TestBinaryFrameIsRejected(t *testing.T) {
	rc := newHarness(t, options{}).raw()
	rc.ws.WriteMessage(websocket.BinaryMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"server.info"}`))
	_, b, err := rc.ws.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	if code, _, _ := errorOf(t, b); code != schemas.CodeParseError {
		t.Errorf("binary frame: code %d, want -32700", code)
	}
}

func TestCapacityError(t *testing.T) {
	c := newHarness(t, options{cfg: func(c *episodes.Config) { c.MaxEpisodes = 2 }}).dial()
	a := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
	reset(t, c, schemas.ResetParams{TaskID: "t/count"})
	_, err := c.Reset(context.Background(), schemas.ResetParams{TaskID: "t/count"})
	if rpcCode(err) != schemas.CodeCapacity || !strings.Contains(err.Error(), "--max-episodes") {
		t.Fatalf("third reset: %v, want -32003", err)
	}
	c.CloseEpisode(context.Background(), a.EpisodeID)
	reset(t, c, schemas.ResetParams{TaskID: "t/count"}) // room again
}

func TestBusyError(t *testing.T) {
	h := newHarness(t, options{cfg: func(c *episodes.Config) { c.StepQueue = 1 }})
	c := h.dial()
	r := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
	slow := execSQL("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r")
	rc := h.raw()
	frame := func(id int) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "episode.step",
			"params": map[string]any{"episode_id": r.EpisodeID, "action": slow}})
		return string(b)
	}
	// One step runs, one may wait (StepQueue 1), the third is refused.
	rc.ws.WriteMessage(websocket.TextMessage, []byte(frame(1)))
	rc.ws.WriteMessage(websocket.TextMessage, []byte(frame(2)))
	code, msg, id := errorOf(t, rc.roundTrip(frame(3)))
	if code != schemas.CodeEpisodeBusy || id != "3" || !strings.Contains(msg, "waiting") {
		t.Fatalf("third pipelined step: code %d id %s %q, want -32005", code, id, msg)
	}
	for i := 0; i < 2; i++ {
		rc.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, b, err := rc.ws.ReadMessage(); err != nil || !strings.Contains(string(b), `"timeout"`) {
			t.Fatalf("reply %d of the running and waiting steps: %s, %v", i+1, b, err)
		}
	}
}

func TestInternalErrorWhenRecordFails(t *testing.T) {
	var rec *filelog.Log
	h := newHarness(t, options{cfg: fileLogged(t, &rec)})
	c := h.dial()
	r := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
	rec.Close() // every write from now on fails
	_, err := c.Step(context.Background(), r.EpisodeID, submitSQL("SELECT 4"))
	if rpcCode(err) != schemas.CodeInternal || !strings.Contains(err.Error(), "record episode") {
		t.Fatalf("submit with a broken log: %v, want -32603 naming the record", err)
	}
	info, _ := c.Info(context.Background())
	if info.Stats.WriteErrors != 2 {
		t.Errorf("write_errors = %d, want 2 (the step and the end)", info.Stats.WriteErrors)
	}
	g, err := c.Episode(context.Background(), r.EpisodeID)
	if err != nil || g.Outcome != "mismatch" {
		t.Errorf("the episode itself still ended: %+v, %v", g, err)
	}
}

func TestBatch(t *testing.T) {
	rc := newHarness(t, options{}).raw()
	b := rc.roundTrip(`[{"jsonrpc":"2.0","id":1,"method":"server.info"},{"jsonrpc":"2.0","method":"server.info"},` +
		`{"jsonrpc":"2.0","id":2,"method":"nope"}]`)
	var replies []schemas.Response
	if err := json.Unmarshal(b, &replies); err != nil || len(replies) != 2 {
		t.Fatalf("batch reply %s: %v", b, err)
	}
	got := fmt.Sprintf("%s:%v %s:%v", replies[0].ID, replies[0].Error == nil, replies[1].ID, replies[1].Error != nil)
	if got != "1:true 2:true" {
		t.Errorf("batch replies = %s", got)
	}
}
