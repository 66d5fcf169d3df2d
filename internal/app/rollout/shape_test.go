package rollout_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	jsv "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sqlgym/sqlgym/internal/app/rollout"
)

// checkRequestShapes validates every request body against the OpenAI
// chat-completions request shape (testdata), and checks what a schema
// cannot: each tool message answers a call of the assistant turn just
// before it, and every call is answered before the next turn.
func checkRequestShapes(t *testing.T, bodies [][]byte) {
	t.Helper()
	sch := compileRequestSchema(t)
	sawCalls, sawTools := false, false
	for i, b := range bodies {
		doc, err := jsv.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("request %d is not JSON: %v", i, err)
		}
		if err := sch.Validate(doc); err != nil {
			t.Fatalf("request %d does not fit the chat-completions shape: %v\n%s", i, err, b)
		}
		var req rollout.ChatRequest
		json.Unmarshal(b, &req)
		calls, results := checkCallsAnswered(t, i, req.Messages)
		sawCalls, sawTools = sawCalls || calls, sawTools || results
	}
	if len(bodies) > 0 && (!sawCalls || !sawTools) {
		t.Errorf("no request held both tool calls (%v) and tool results (%v): the check checked little", sawCalls, sawTools)
	}
}

func compileRequestSchema(t *testing.T) *jsv.Schema {
	t.Helper()
	f, err := os.Open("testdata/chat_completions_request.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsv.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsv.NewCompiler()
	if err := c.AddResource("mem://chat_request.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem://chat_request.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// checkCallsAnswered checks the pairing of calls and tool messages.
func checkCallsAnswered(t *testing.T, i int, msgs []rollout.ChatMessage) (calls, results bool) {
	t.Helper()
	open := map[string]bool{}
	for j, m := range msgs {
		switch m.Role {
		case "assistant":
			if len(open) > 0 {
				t.Errorf("request %d message %d: calls %v of the last turn unanswered", i, j, open)
			}
			open = map[string]bool{}
			for _, c := range m.ToolCalls {
				open[c.ID], calls = true, true
			}
		case "tool":
			if !open[m.ToolCallID] {
				t.Errorf("request %d message %d: tool message answers %q, no open call of the turn before", i, j, m.ToolCallID)
			}
			delete(open, m.ToolCallID)
			results = true
		default:
			if len(open) > 0 && j > 1 {
				t.Errorf("request %d message %d: a %s message while calls %v are unanswered", i, j, m.Role, open)
			}
		}
	}
	return calls, results
}
