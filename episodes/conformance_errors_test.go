package episodes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/schemas"
)

// conformErrors checks error replies, and that the schemas refuse what
// the server refuses: params (-32602) and envelopes.
func conformErrors(w *wire) {
	t := w.v.t
	w.fails("episode.reset", `{"task_id":"t/none"}`, schemas.CodeTaskNotFound)
	w.fails("episode.reset", `{"dataset":"none"}`, schemas.CodeTaskNotFound)
	w.fails("tasks.list", `{"dataset":"none"}`, schemas.CodeTaskNotFound)
	w.fails("tasks.schema", `{"task_id":"t/none"}`, schemas.CodeTaskNotFound)
	w.fails("tasks.schema", `{"task_id":"none/count"}`, schemas.CodeTaskNotFound)
	w.fails("episode.step", stepParams("ep_none", toolAction("submit", sqlArgs("SELECT 1"))), schemas.CodeEpisodeNotFound)
	w.fails("episode.close", `{"episode_id":"ep_none"}`, schemas.CodeEpisodeNotFound)
	w.fails("episode.get", `{"episode_id":"ep_none"}`, schemas.CodeEpisodeNotFound)

	refused := []struct{ method, params string }{
		{"server.info", `{"verbose":true}`},
		{"tasks.list", `{"limit":10001}`},
		{"tasks.list", `{"offset":-1}`},
		{"tasks.list", `{"limit":"5"}`},
		{"tasks.list", `{"datset":"t"}`},
		{"tasks.schema", `{}`},
		{"tasks.schema", `{"task_id":7}`},
		{"tasks.schema", `{"task_id":"t/count","tables":true}`},
		{"episode.reset", `{"tags":[1]}`},
		{"episode.reset", `{"reward":{"final":{"corect":1}}}`},
		{"episode.reset", `{"reward":{"match":"fuzzy"}}`},
		{"episode.reset", `{"reward":{"turn":{"cap":-1}}}`},
		{"episode.reset", `{"action_format":"xml"}`},
		{"episode.reset", `{"max_turns":-1}`},
		{"episode.reset", `{"seed":"7"}`},
		{"episode.step", `{"episode_id":"ep_x"}`},
		{"episode.step", `{"episode_id":"ep_x","action":{}}`},
		{"episode.step", `{"episode_id":"ep_x","action":{"tool":"submit","text":"x"}}`},
		{"episode.step", `{"episode_id":"ep_x","action":{"text":"x","arguments":{}}}`},
		{"episode.step", `{"episode_id":"ep_x","action":{"tool":"submit","arguments":[1]}}`},
		{"episode.step", `{"episode_id":"ep_x","action":{"tool":"submit","args":{}}}`},
		{"episode.step", `{"episode_id":"","action":{"tool":"submit"}}`},
		{"episode.close", `{}`},
		{"episode.close", `{"episode_id":7}`},
		{"episode.get", `{"episode_id":"ep_x","steps":true}`},
	}
	for _, tt := range refused {
		w.v.rejects(tt.method+".params", []byte(tt.params))
		w.sendRaw(tt.method, tt.params)
		if _, _, rpcErr := w.receive(); rpcErr == nil || rpcErr.Code != schemas.CodeInvalidParams {
			t.Errorf("%s %s: error %v, want -32602", tt.method, tt.params, rpcErr)
		}
	}
	w.sendRaw("episode.undo", `{}`)
	if _, _, rpcErr := w.receive(); rpcErr == nil || rpcErr.Code != schemas.CodeMethodNotFound {
		t.Errorf("unknown method: error %v, want -32601", rpcErr)
	}
	conformEnvelopes(w)
}

// conformEnvelopes sends frames that are not valid requests.
func conformEnvelopes(w *wire) {
	t := w.v.t
	frames := []struct {
		frame string
		code  int
	}{
		{`{"jsonrpc":"2.0","id":1,`, schemas.CodeParseError},
		{`{"jsonrpc":"1.0","id":1,"method":"server.info"}`, schemas.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":2}`, schemas.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"server.info"}`, schemas.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":3,"method":"server.info","params":[1]}`, schemas.CodeInvalidParams},
	}
	for _, tt := range frames {
		if json.Valid([]byte(tt.frame)) {
			w.v.rejects("rpc.request", []byte(tt.frame))
		}
		_, _, rpcErr := w.v.reply(w.rc.roundTrip(tt.frame), nil)
		if rpcErr == nil || rpcErr.Code != tt.code {
			t.Errorf("frame %s: error %v, want %d", tt.frame, rpcErr, tt.code)
		}
	}
	calls := []string{frame(901, "server.info", ""), `{"jsonrpc":"2.0","method":"server.info"}`, frame(902, "episode.undo", "")}
	for _, c := range calls {
		w.v.check("rpc.request", []byte(c))
	}
	batch := "[" + strings.Join(calls, ",") + "]"
	var replies []json.RawMessage
	if err := json.Unmarshal(w.rc.roundTrip(batch), &replies); err != nil || len(replies) != 2 {
		t.Fatalf("batch reply: %d replies, %v; want 2", len(replies), err)
	}
	for _, r := range replies {
		w.v.reply(r, map[int]string{901: "server.info"})
	}
}

// conformLimits checks, on a server of one episode with one waiting step
// and an idle timeout on a clock moved by hand: capacity, busy, abandoned,
// and the internal error of a step whose record cannot be written.
func conformLimits(t *testing.T, v *validator, seen *coverage) {
	const idle = time.Second
	clock := clockwork.NewFakeClock()
	h := newHarness(t, options{engines: func(e *stack.EngineConfig) {
		shortTimeouts(e)
		// Steps long enough that the third is sure to arrive while two are in.
		e.Runner.QueryTimeout = time.Second
	}, cfg: func(c *episodes.Config) {
		c.MaxEpisodes, c.StepQueue, c.IdleTimeout, c.Clock = 1, 1, idle, clock
	}})
	w := newWire(v, h)
	var a schemas.ResetResult
	w.ok("episode.reset", `{"task_id":"t/count"}`, &a)
	w.fails("episode.reset", `{"task_id":"t/count"}`, schemas.CodeCapacity)

	slow := stepParams(a.EpisodeID, toolAction("execute_sql", sqlArgs(neverEnds)))
	w.send("episode.step", slow) // runs
	w.send("episode.step", slow) // waits
	refused := w.send("episode.step", slow)
	for range 3 {
		id, _, rpcErr := w.receive()
		if (id == refused) != (rpcErr != nil && rpcErr.Code == schemas.CodeEpisodeBusy) {
			t.Errorf("pipelined step %d: error %v; want -32005 for the third only", id, rpcErr)
		}
	}

	// Every reply is written after its step has let go of the queue and
	// started the idle clock, so the episode is idle now.
	clock.Advance(idle + time.Nanosecond)
	h.mgr.Expire(context.Background())
	var g schemas.Trajectory
	w.ok("episode.get", fmt.Sprintf(`{"episode_id":%q}`, a.EpisodeID), &g)
	if g.Outcome != schemas.OutcomeAbandoned {
		t.Fatalf("episode not abandoned after its idle timeout: outcome %q", g.Outcome)
	}
	w.fails("episode.step", slow, schemas.CodeEpisodeEnded)
	conformLog(v, h, seen)

	var b schemas.ResetResult
	w.ok("episode.reset", `{"task_id":"t/count"}`, &b)
	h.log.Close() // every write from now on fails
	w.fails("episode.step", stepParams(b.EpisodeID, toolAction("submit", sqlArgs("SELECT 4"))), schemas.CodeInternal)
}
