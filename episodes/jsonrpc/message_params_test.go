package jsonrpc

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestMessageActionsTakeTheStrictDecoder: the fast path reads no message
// action, so a message goes through encoding/json's strict decoder, which
// keeps each call's arguments byte for byte as sent.
func TestMessageActionsTakeTheStrictDecoder(t *testing.T) {
	raw := `{"episode_id":"ep_1","action":{"message":{"role":"assistant","content":null,"reasoning_content":"r",` +
		`"tool_calls":[{"id":"c1","type":"function","function":{"name":"execute_sql","arguments":"{\"sql\": \"SELECT 1\"}"}},` +
		`{"function":{"name":"submit","arguments":{ "sql" : "SELECT 2" }}}]}},"usage":{"completion_tokens":3,"prompt_tokens":9},"finish_reason":"tool_calls"}`
	if _, ok := fastStep([]byte(raw)); ok {
		t.Fatal("the fast path read a message action")
	}
	p, e := decodeFast([]byte(raw), fastStep)
	if e != nil {
		t.Fatalf("decode: %s", e.Message)
	}
	var want schemas.StepParams
	if e := decodeStrict([]byte(raw), &want); e != nil || !reflect.DeepEqual(p, want) {
		t.Fatalf("decodeFast = %s, strict = %s (%v)", show(p), show(want), e)
	}
	m := p.Action.Message
	if m == nil || m.Content != nil || *m.ReasoningContent != "r" || len(m.ToolCalls) != 2 {
		t.Fatalf("message = %s", show(m))
	}
	if a, b := string(m.ToolCalls[0].Function.Arguments), string(m.ToolCalls[1].Function.Arguments); a != `"{\"sql\": \"SELECT 1\"}"` || b != `{ "sql" : "SELECT 2" }` {
		t.Fatalf("arguments not kept as sent: %s and %s", a, b)
	}
	usage := `{"episode_id":"ep_1","action":{"tool":"submit"},"usage":{"completion_tokens":3,"prompt_tokens":9},"finish_reason":"stop"}`
	if !agreeParams(t, []byte(usage), fastStep) {
		t.Errorf("the fast path declined %s", usage)
	}
	if p.Usage.PromptTokens != 9 || p.FinishReason != "tool_calls" || checkAction(&p.Action) != nil || episodes.CheckStepParams(&p) != nil {
		t.Fatalf("params = %s", show(p))
	}
}

// TestMessageActionShapes checks the shapes episode.step refuses, each
// with a message that says what was wrong.
func TestMessageActionShapes(t *testing.T) {
	for _, tt := range []struct{ action, want string }{
		{`{"tool":"submit","message":{"role":"assistant","content":null}}`, "exactly one of tool (with arguments), text or message"},
		{`{"text":"x","message":{"role":"assistant","content":"x"}}`, "exactly one of"},
		{`{"message":{"role":"user","content":"x"}}`, `role must be "assistant", got "user"`},
		{`{"message":{"content":"x"}}`, `role must be "assistant", got ""`},
		{`{"message":{"role":"assistant","content":null,"tool_calls":[{"type":"tool","function":{"name":"submit"}}]}}`, `tool_calls[0].type must be "function"`},
		{`{"message":{"role":"assistant","content":null,"tool_calls":[{"function":{"name":"submit","arguments":5}}]}}`, "tool_calls[0].function.arguments must be a JSON string"},
		{`{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"a","function":{"name":"x"}},{"id":"a","function":{"name":"y"}}]}}`, `tool_calls[1].id "a" is tool_calls[0]'s too`},
		{`{"message":{"role":"assistant","content":null,"refusal":null}}`, `unknown field "refusal"`},
		{`{"message":{"role":"assistant","content":5}}`, "action.message.content: expected a string, got number"},
	} {
		raw := `{"episode_id":"ep_1","action":` + tt.action + `}`
		p, e := decodeFast([]byte(raw), fastStep)
		if e == nil {
			e = checkAction(&p.Action)
		}
		if e == nil || e.Code != schemas.CodeInvalidParams || !strings.Contains(e.Message, tt.want) {
			t.Errorf("%s: error %+v, want -32602 containing %q", tt.action, e, tt.want)
		}
	}
	many := `{"message":{"role":"assistant","content":null,"tool_calls":[` + strings.Repeat(`{"function":{"name":"x"}},`, 1024) + `{"function":{"name":"x"}}]}}`
	p, e := decodeFast([]byte(`{"episode_id":"e","action":`+many+`}`), fastStep)
	if e == nil {
		e = checkAction(&p.Action)
	}
	if e == nil || !strings.Contains(e.Message, "holds 1025 calls; a message may hold at most 1024") {
		t.Errorf("1025 calls: error %+v", e)
	}
}

// TestStepExtrasBounds: what a step carries beside its action is
// refused past its bounds, before the step takes a place in its queue.
func TestStepExtrasBounds(t *testing.T) {
	for _, tt := range []struct {
		p    schemas.StepParams
		want string
	}{
		{schemas.StepParams{EpisodeID: "e", Action: schemas.Action{Tool: "submit"}, Usage: &schemas.Usage{PromptTokens: -1}}, "usage.prompt_tokens must be from 0 to 16777216, got -1"},
		{schemas.StepParams{EpisodeID: "e", Action: schemas.Action{Tool: "submit"}, Usage: &schemas.Usage{CompletionTokens: 1 << 25}}, "usage.completion_tokens must be from 0"},
		{schemas.StepParams{EpisodeID: "e", Action: schemas.Action{Tool: "submit"}, FinishReason: strings.Repeat("x", 65)}, "finish_reason holds 65 bytes; at most 64"},
	} {
		raw, _ := json.Marshal(tt.p)
		_, _, e := handleStep(nil, raw)
		if e == nil || !strings.Contains(e.Message, tt.want) {
			t.Errorf("%s: error %+v, want %q", raw, e, tt.want)
		}
	}
}
