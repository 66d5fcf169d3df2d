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

// notRunNote answers the calls of a reply after its first, which do not
// run: every call of an assistant turn needs a tool message.
const notRunNote = "Not run: only the first call of a reply runs, one call per turn."

// conversation is the chat of one episode as the model sees it: the
// prompt (with the teacher's hints, if any), its replies and the
// observations.
type conversation struct {
	native  bool
	tools   json.RawMessage // nil in text mode
	msgs    []ChatMessage
	bytes   int64    // of msgs' texts, the size a request grows with
	pending []string // ids of the last reply's calls, the first one run
	turn    int
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

// reply records the model's reply and returns the action it makes: its
// first tool call in native mode, else its whole text.
func (c *conversation) reply(m ChatMessage) schemas.Action {
	c.turn++
	asst := ChatMessage{Role: "assistant", Content: m.Content}
	c.pending = nil
	if !c.native || len(m.ToolCalls) == 0 {
		c.add(asst)
		text := m.Content
		return schemas.Action{Text: &text}
	}
	for i, tc := range m.ToolCalls {
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call_%d_%d", c.turn, i)
		}
		tc.Type = "function"
		asst.ToolCalls = append(asst.ToolCalls, tc)
		c.pending = append(c.pending, tc.ID)
	}
	c.add(asst)
	return callAction(asst.ToolCalls[0].Function)
}

// observe adds the observation of the last action: a tool message
// answering its call (and a note for each call that did not run), or a
// user message when the reply held no call.
func (c *conversation) observe(content string) {
	if len(c.pending) == 0 {
		c.add(ChatMessage{Role: "user", Content: content})
		return
	}
	for i, id := range c.pending {
		text := content
		if i > 0 {
			text = notRunNote
		}
		c.add(ChatMessage{Role: "tool", Content: text, ToolCallID: id})
	}
}

// callAction is the action of a native call. Arguments that are JSON go
// as they are (the episode checks the tool and the arguments' schema);
// arguments that are not JSON go as the hermes text of the call, which
// the episode answers with a format error, as it would in text mode.
func callAction(f FunctionCall) schemas.Action {
	args := strings.TrimSpace(f.Arguments)
	if args == "" {
		args = "{}"
	}
	if json.Valid([]byte(args)) {
		return schemas.Action{Tool: f.Name, Arguments: json.RawMessage(args)}
	}
	name, _ := json.Marshal(f.Name)
	text := fmt.Sprintf("<tool_call>\n{\"name\": %s, \"arguments\": %s}\n</tool_call>", name, f.Arguments)
	return schemas.Action{Text: &text}
}
