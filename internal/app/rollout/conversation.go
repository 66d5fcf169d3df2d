package rollout

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/schemas"
)

// Ways of talking to the model (--tool-calling).
const (
	ToolCallingNative = "native" // tools in the request, tool_calls in the reply
	ToolCallingText   = "text"   // the whole completion is a text action
)

// conversation is the chat of one episode as the model sees it: the
// prompt (with the teacher's hints, if any), its replies and the
// observations.
type conversation struct {
	native bool
	tools  json.RawMessage // nil in text mode
	msgs   []ChatMessage
	bytes  int64 // of msgs' texts, the size a request grows with
	turn   int
}

// add appends messages to the chat, counting their bytes.
func (c *conversation) add(ms ...ChatMessage) {
	for _, m := range ms {
		c.bytes += messageBytes(m)
	}
	c.msgs = append(c.msgs, ms...)
}

// messageBytes is the bytes a message's texts take (a little under what
// its JSON takes in a request).
func messageBytes(m ChatMessage) int64 {
	n := len(m.Role) + len(m.Content) + len(m.ToolCallID)
	if m.ReasoningContent != nil {
		n += len(*m.ReasoningContent)
	}
	for _, tc := range m.ToolCalls {
		n += len(tc.ID) + len(tc.Type) + len(tc.Function.Name) + len(tc.Function.Arguments)
	}
	return int64(n)
}

// newConversation starts the chat from the episode's prompt; hint, when
// set, is added to the system message the model sees.
func newConversation(r *schemas.ResetResult, native bool, hint string) (*conversation, error) {
	c := &conversation{native: native}
	for _, m := range r.Messages {
		c.msgs = append(c.msgs, ChatMessage{Role: m.Role, Content: m.Content})
	}
	if hint != "" {
		if len(c.msgs) == 0 || c.msgs[0].Role != "system" {
			c.msgs = append([]ChatMessage{{Role: "system"}}, c.msgs...)
		}
		c.msgs[0].Content = strings.TrimSpace(c.msgs[0].Content + "\n\n" + hint)
	}
	for _, m := range c.msgs {
		c.bytes += messageBytes(m)
	}
	if native {
		raw, err := json.Marshal(r.Tools)
		if err != nil {
			return nil, fmt.Errorf("encode tools: %w", err)
		}
		c.tools = raw
	}
	return c, nil
}

// reply records the model's reply and returns the action it makes. In
// native mode that is the whole assistant message (content, reasoning and
// every call), as the chat keeps it: a call the endpoint gave no id or
// type gets call_<turn>_<i> and "function" first, so that the record, the
// episode's tool messages and the next request agree. In text mode it is
// the reply's text.
func (c *conversation) reply(m ChatMessage) schemas.Action {
	c.turn++
	if !c.native {
		c.add(ChatMessage{Role: "assistant", Content: m.Content})
		text := m.Content
		return schemas.Action{Text: &text}
	}
	asst := ChatMessage{Role: "assistant", Content: m.Content, NullContent: m.NullContent,
		ReasoningContent: m.ReasoningContent}
	for i, tc := range m.ToolCalls {
		if tc.ID == "" {
			tc.ID = schemas.CallID(c.turn, i)
		}
		if tc.Type == "" {
			tc.Type = "function"
		}
		asst.ToolCalls = append(asst.ToolCalls, tc)
	}
	c.add(asst)
	return schemas.Action{Message: asst.assistant()}
}

// observe adds what the episode answered the last action: in native mode
// its tool messages, one per call, as the step's observations hold them;
// else (a text action, or a reply with no call) the observation as a user
// message.
func (c *conversation) observe(step *schemas.StepResult) {
	if !c.native || len(step.Observations) == 0 {
		c.add(ChatMessage{Role: "user", Content: step.Observation.Content})
		return
	}
	for _, o := range step.Observations {
		c.add(ChatMessage{Role: "tool", Content: o.Content, ToolCallID: o.ToolCallID})
	}
}
