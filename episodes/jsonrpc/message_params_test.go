package jsonrpc

import (
	"reflect"
	"strings"
	"testing"

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
	if p.Usage.PromptTokens != 9 || p.FinishReason != "tool_calls" {
		t.Fatalf("params = %s", show(p))
	}
}

// TestMessageActionDecodeErrors checks the message shapes episode.step's
// decoder refuses, each with a message that says what was wrong (the
// domain checks the rest: episodes' checkStep).
func TestMessageActionDecodeErrors(t *testing.T) {
	for _, tt := range []struct{ action, want string }{
		{`{"message":{"role":"assistant","content":null,"refusal":null}}`, `unknown field "refusal"`},
		{`{"message":{"role":"assistant","content":5}}`, "action.message.content: expected a string, got number"},
	} {
		raw := `{"episode_id":"ep_1","action":` + tt.action + `}`
		_, e := decodeFast([]byte(raw), fastStep)
		if e == nil || e.Code != schemas.CodeInvalidParams || !strings.Contains(e.Message, tt.want) {
			t.Errorf("%s: error %+v, want -32602 containing %q", tt.action, e, tt.want)
		}
	}
}
