package rollout_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/app/rollout"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestReplyWithTooManyCallsEndsTheEpisode: a reply of 1,000 tool calls
// is not carried on (each would add a call and a tool message to every
// later request): the episode is closed early, saying why, and the model
// is asked nothing more.
func TestReplyWithTooManyCallsEndsTheEpisode(t *testing.T) {
	w := newWorld(t)
	flood := call("execute_sql", "SELECT 1")
	flood.calls = 1000
	m := newStubModel(t, map[string][][]reply{w.question(t, taskA): {{flood}}})
	var res rollout.Result
	sum := rollout.Run(context.Background(), rollout.Config{Env: w.env, Chat: m.chat(t), Run: "flood", Model: "stub-model",
		OnResult: func(r rollout.Result) { res = r }}, rollout.Plan([]string{taskA}, 1, nil))
	if sum.Failed != 1 || res.Err == nil || !strings.Contains(res.Err.Error(), "1000 tool calls, more than 64 (--max-reply-calls)") {
		t.Fatalf("summary %+v, result error %v; want the episode closed early naming --max-reply-calls", sum, res.Err)
	}
	if n := len(m.requests()); n != 1 {
		t.Errorf("%d requests, want the one that got the flood", n)
	}
	for _, ep := range w.episodes(t, "flood", false) {
		if ep.Outcome != schemas.OutcomeNoSubmit || len(ep.Steps) != 0 {
			t.Errorf("%s: %s after %d steps, want closed early before stepping the flood", ep.EpisodeID, ep.Outcome, len(ep.Steps))
		}
	}
}

// TestConversationBytesAreBounded: replies of 100 KB fill a chat bounded
// to 256 KiB; the episode is then closed early, saying why, and no
// request ever carried much more than the bound.
func TestConversationBytesAreBounded(t *testing.T) {
	const bound = 256 << 10
	w := newWorld(t)
	long := reply{text: strings.Repeat("I keep thinking. ", 100<<10/17)}
	script := []reply{long, long, long, long, long, long, long, long}
	m := newStubModel(t, map[string][][]reply{w.question(t, taskA): {script}})
	var res rollout.Result
	cfg := rollout.Config{Env: w.env, Chat: m.chat(t), Run: "long", Model: "stub-model", ToolCalling: rollout.ToolCallingText,
		ActionFormat: schemas.FormatHermes, MaxTurns: 8, MaxConversationBytes: bound, OnResult: func(r rollout.Result) { res = r }}
	sum := rollout.Run(context.Background(), cfg, rollout.Plan([]string{taskA}, 1, nil))
	if sum.Failed != 1 || res.Err == nil || !strings.Contains(res.Err.Error(), "--max-conversation-bytes") {
		t.Fatalf("summary %+v, result error %v; want the episode closed early naming --max-conversation-bytes", sum, res.Err)
	}
	reqs := m.requests()
	for i, body := range reqs {
		if len(body) > bound+16<<10 {
			t.Errorf("request %d carried %d bytes, past the bound %d", i+1, len(body), bound)
		}
	}
	eps := w.episodes(t, "long", false)
	if len(eps) != 1 || len(eps[0].Steps) != len(reqs) || len(reqs) < 2 || len(reqs) >= len(script) {
		t.Fatalf("%d requests, episodes %d; want a few, each a recorded step, and fewer than the turns", len(reqs), len(eps))
	}
}
