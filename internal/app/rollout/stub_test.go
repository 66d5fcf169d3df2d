package rollout_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym/internal/app/rollout"
)

// reply is one scripted answer of the stub model.
type reply struct {
	tool, args string         // a native tool call
	text       string         // a text reply (no call)
	fail       []int          // failures before the answer: an HTTP status, or slow/drop
	usage      map[string]int // the reply's usage; nil: 100 prompt and 10 completion tokens
	calls      int            // how many times the native call is repeated (0: once)
}

// Failures the stub can answer with instead of a reply.
const (
	slow = -1 // no reply until the client gives up (its request timeout)
	drop = -2 // the connection is closed without a reply
)

func call(tool, sql string) reply {
	b, _ := json.Marshal(map[string]string{"sql": sql})
	return reply{tool: tool, args: string(b)}
}

// stubModel is an OpenAI-compatible chat endpoint answering from scripts:
// each new conversation of a task (found by its question) takes the
// task's next script, and each turn answers with the script's next reply.
// It keeps every request body it was sent.
type stubModel struct {
	t   *testing.T
	srv *httptest.Server

	mu        sync.Mutex
	scripts   map[string][][]reply // question -> scripts not yet taken
	convs     map[int][]reply      // script id -> its replies
	failed    map[string]int       // "id/turn" -> failures answered
	next      int
	bodies    [][]byte
	started   int                     // conversations started
	block     func(id, turn int) bool // answers nothing until the client gives up
	blocked   int
	onRequest func() // called as each request comes, before it is answered
}

func newStubModel(t *testing.T, scripts map[string][][]reply) *stubModel {
	m := &stubModel{t: t, scripts: scripts, convs: map[int][]reply{}, failed: map[string]int{}}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *stubModel) url() string { return m.srv.URL + "/v1" }

var marker = regexp.MustCompile(`s(\d+)t`)

func (m *stubModel) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var req rollout.ChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	turn := 0
	for _, msg := range req.Messages {
		if msg.Role == "assistant" {
			turn++
		}
	}
	m.mu.Lock()
	m.bodies = append(m.bodies, body)
	id, rep, failure, block := m.pick(req, turn)
	hook := m.onRequest
	m.mu.Unlock()
	if hook != nil {
		hook()
	}
	switch {
	case block:
		<-r.Context().Done()
		return
	case failure == slow:
		<-r.Context().Done()
		return
	case failure == drop:
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	case failure != 0:
		w.Header().Set("Retry-After", "0")
		http.Error(w, `{"error":{"message":"scripted failure"}}`, failure)
		return
	}
	writeReply(w, id, turn, rep)
}

// pick finds the conversation's script and the reply (or failure) of
// this turn. The caller holds m.mu.
func (m *stubModel) pick(req rollout.ChatRequest, turn int) (int, reply, int, bool) {
	id := -1
	if turn == 0 {
		q := question(req)
		left := m.scripts[q]
		if len(left) == 0 {
			m.t.Errorf("stub: no script left for %q", q)
			return 0, reply{text: "no script"}, 0, false
		}
		// The first request of every sample of a task is the same, so a
		// failure scripted for it is answered before the script is taken.
		key := fmt.Sprintf("%s/%d", q, len(left))
		if n := m.failed[key]; n < len(left[0][0].fail) {
			m.failed[key]++
			return -1, left[0][0], left[0][0].fail[n], false
		}
		id, m.next = m.next, m.next+1
		m.convs[id], m.scripts[q] = left[0], left[1:]
		m.started++
	} else {
		for _, msg := range req.Messages {
			if msg.Role != "assistant" {
				continue
			}
			s := msg.Content
			if len(msg.ToolCalls) > 0 {
				s = msg.ToolCalls[0].ID
			}
			if sm := marker.FindStringSubmatch(s); sm != nil {
				id, _ = strconv.Atoi(sm[1])
			}
			break
		}
	}
	if m.block != nil && m.block(id, turn) {
		m.blocked++
		return id, reply{}, 0, true
	}
	script := m.convs[id]
	if turn >= len(script) {
		m.t.Errorf("stub: script %d has no reply for turn %d", id, turn)
		return id, reply{text: "end of script"}, 0, false
	}
	rep := script[turn]
	key := fmt.Sprintf("%d/%d", id, turn)
	if n := m.failed[key]; turn > 0 && n < len(rep.fail) {
		m.failed[key]++
		return id, rep, rep.fail[n], false
	}
	return id, rep, 0, false
}

// question is the user message of the prompt, up to its evidence.
func question(req rollout.ChatRequest) string {
	for _, msg := range req.Messages {
		if msg.Role == "user" {
			q, _, _ := strings.Cut(msg.Content, "\n\nExternal knowledge:")
			return q
		}
	}
	return ""
}

// writeReply answers with the reply, marked with its script id so that
// the next turns find the script: in the call's id, or in the text.
func writeReply(w http.ResponseWriter, id, turn int, rep reply) {
	msg := map[string]any{"role": "assistant", "content": nil}
	tag := fmt.Sprintf("s%dt%d", id, turn)
	if rep.tool != "" {
		calls := make([]map[string]any, max(rep.calls, 1))
		for i := range calls {
			calls[i] = map[string]any{"id": fmt.Sprintf("%s_%d", tag, i), "type": "function",
				"function": map[string]string{"name": rep.tool, "arguments": rep.args}}
		}
		msg["tool_calls"] = calls
	} else {
		msg["content"] = rep.text + " [" + tag + "]"
	}
	usage := rep.usage
	if usage == nil {
		usage = map[string]int{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
	}
	out := map[string]any{"id": "chatcmpl-" + tag, "object": "chat.completion",
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": "stop"}}, "usage": usage}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// requests returns the bodies of every request the stub was sent.
func (m *stubModel) requests() [][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]byte(nil), m.bodies...)
}

// answered counts the requests answered with a reply.
func (m *stubModel) answered() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, script := range m.convs {
		n += len(script)
	}
	return n
}
