package rollout_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym/internal/app/rollout"
	"github.com/sqlgym/sqlgym/schemas"
)

// The replies of messageModel, turn by turn: text, reasoning and two
// calls (the second without an id), then reasoning and a submit with a
// null content. Each is the choice's JSON as an endpoint sends it.
var messageReplies = []string{
	`{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant",` +
		`"content":"I will look at the loans table, then count the loans still out.",` +
		`"reasoning_content":"A loan still out has no return_date.","tool_calls":[` +
		`{"id":"call_look","type":"function","function":{"name":"inspect_schema","arguments":"{\"table\": \"loans\"}"}},` +
		`{"type":"function","function":{"name":"execute_sql","arguments":"{\"sql\": \"SELECT count(*) FROM loans WHERE return_date IS NULL\"}"}}]}}`,
	`{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,` +
		`"reasoning_content":"The count is the answer.","tool_calls":[` +
		`{"id":"call_submit","type":"function","function":{"name":"submit","arguments":"{\"sql\": \"SELECT count(*) FROM loans WHERE return_date IS NULL\"}"}}]}}`,
}

// messageModel is an OpenAI-compatible endpoint that answers the n-th
// request with messageReplies[n], with usage, and keeps every request.
type messageModel struct {
	mu       sync.Mutex
	requests []rollout.ChatRequest
}

func (m *messageModel) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req rollout.ChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.requests = append(m.requests, req)
	n := len(m.requests) - 1
	m.mu.Unlock()
	if n >= len(messageReplies) {
		http.Error(w, "no reply scripted", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","choices":[`+messageReplies[n]+`],`+
		`"usage":{"prompt_tokens":321,"completion_tokens":45,"total_tokens":366}}`)
}

// TestNativeToolCallingRecordsTheWholeReply: with --tool-calling native,
// a reply's content, reasoning, every call, finish reason and usage reach
// the trajectory, and the next request shows the model exactly the
// recorded assistant message and the episode's tool messages; the
// episode's prompt is native (no call syntax: the tools go in the
// request). In process and over a socket alike.
func TestNativeToolCallingRecordsTheWholeReply(t *testing.T) {
	for _, w := range []*world{newWorld(t), newServedWorld(t)} {
		m := &messageModel{}
		srv := httptest.NewServer(http.HandlerFunc(m.serve))
		t.Cleanup(srv.Close)
		chat, err := rollout.NewChat(rollout.ChatConfig{BaseURL: srv.URL + "/v1", Model: "stub-model"})
		if err != nil {
			t.Fatal(err)
		}
		sum := rollout.Run(context.Background(), rollout.Config{Env: w.env, Chat: chat, Run: "whole", Model: "stub-model"},
			rollout.Plan([]string{taskB}, 1, nil))
		eps := w.episodes(t, "whole", false)
		m.mu.Lock()
		reqs := m.requests
		m.mu.Unlock()
		if sum.Finished != 1 || len(eps) != 1 || eps[0].Outcome != schemas.OutcomeCorrect || len(reqs) != 2 {
			t.Fatalf("summary %+v, %d episodes, %d requests; want one correct episode of two requests", sum, len(eps), len(reqs))
		}
		ep := eps[0]
		if ep.PromptStyle != schemas.PromptStyleNative || strings.Contains(ep.Messages[0].Content, "<tool_call>") || len(reqs[0].Tools) == 0 {
			t.Errorf("prompt_style %q, %d tools in the request; want native and the tools:\n%s", ep.PromptStyle, len(reqs[0].Tools), ep.Messages[0].Content)
		}
		checkRecordedReply(t, ep)
		checkNextRequest(t, ep, reqs[1])
	}
}

// checkRecordedReply checks the first step's record against the first
// reply: the message as the endpoint sent it (the missing id filled in),
// its content, each call with its tool message, the finish reason and
// the usage.
func checkRecordedReply(t *testing.T, ep *schemas.Trajectory) {
	t.Helper()
	st := ep.Steps[0]
	var choice struct {
		Message schemas.AssistantMessage `json:"message"`
	}
	if err := json.Unmarshal([]byte(messageReplies[0]), &choice); err != nil {
		t.Fatal(err)
	}
	want := choice.Message
	want.ToolCalls[1].ID = "call_1_1"
	if !reflect.DeepEqual(st.Action.Message, &want) {
		got, _ := json.Marshal(st.Action.Message)
		t.Errorf("recorded message\n%s\nwant the reply's\n%s", got, messageReplies[0])
	}
	if st.Content == nil || *st.Content != *want.Content || st.FinishReason != "tool_calls" ||
		st.Usage == nil || *st.Usage != (schemas.Usage{CompletionTokens: 45, PromptTokens: 321}) {
		t.Errorf("recorded content %v, finish_reason %q, usage %+v", st.Content, st.FinishReason, st.Usage)
	}
	if len(st.Calls) != 2 || st.Calls[0].ID != "call_look" || st.Calls[1].ID != "call_1_1" ||
		st.Calls[0].Tool != schemas.ToolInspectSchema || st.Calls[1].Tool != schemas.ToolExecuteSQL || st.Calls[1].Error != nil {
		t.Errorf("recorded calls %+v", st.Calls)
	}
	if last := ep.Steps[1]; last.Action.Message == nil || last.Action.Message.Content != nil ||
		*last.Action.Message.ReasoningContent != "The count is the answer." || last.Outcome != schemas.OutcomeCorrect {
		t.Errorf("second step recorded as %+v", last)
	}
}

// checkNextRequest checks that the second request held the prompt, the
// recorded assistant message exactly, and a tool message per recorded
// call with its id and observation.
func checkNextRequest(t *testing.T, ep *schemas.Trajectory, req rollout.ChatRequest) {
	t.Helper()
	st := ep.Steps[0]
	if len(req.Messages) != len(ep.Messages)+1+len(st.Calls) {
		t.Fatalf("the second request holds %d messages, want the prompt's %d, the reply, and %d tool messages",
			len(req.Messages), len(ep.Messages), len(st.Calls))
	}
	for i, p := range ep.Messages {
		if req.Messages[i].Role != p.Role || req.Messages[i].Content != p.Content {
			t.Errorf("request message %d is not the recorded prompt's", i)
		}
	}
	sent, _ := json.Marshal(req.Messages[len(ep.Messages)])
	recorded, _ := json.Marshal(st.Action.Message)
	if !sameJSON(t, sent, recorded) {
		t.Errorf("the model was shown its reply as\n%s\nrecorded as\n%s", sent, recorded)
	}
	for i, c := range st.Calls {
		got := req.Messages[len(ep.Messages)+1+i]
		if got.Role != "tool" || got.ToolCallID != c.ID || got.Content != c.Observation {
			t.Errorf("tool message %d sent as %+v, recorded call %+v", i, got, c)
		}
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		t.Fatalf("not JSON: %s / %s", a, b)
	}
	return reflect.DeepEqual(x, y)
}
