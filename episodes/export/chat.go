package export

import (
	"encoding/json"
	"errors"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// Message is one chat message in the OpenAI chat shape, which OpenAI
// fine-tuning files, Hugging Face chat templates (through TRL) and
// LLaMA-Factory's converters all start from.
type Message struct {
	Role string `json:"role"`
	// Content is always a string, "" for a turn of calls only: chat
	// templates concatenate it (gpt-oss, GLM-4-MoE and DeepSeek-V3 fail
	// or print "None" on null).
	Content string `json:"content"`
	// ReasoningContent is the model's reasoning, when its reply carried
	// it apart from the content (trl and llamafactory; OpenAI's format
	// has no field for it). Qwen3's and GLM-4-MoE's templates render it
	// as their <think> block.
	ReasoningContent string `json:"reasoning_content,omitempty"`
	// Thinking holds the reasoning instead when ChatOptions.ReasoningKey
	// is thinking: the key gpt-oss's and LFM2.5's templates read.
	Thinking string `json:"thinking,omitempty"`
	// ToolCalls is left out, not empty, on a turn without calls: the
	// Llama-3.x, gpt-oss and DeepSeek-V3 templates test for the key.
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// Name is the tool a tool turn answers, for trl (TRL's
	// dataset-formats doc gives it); empty, and left out, otherwise.
	Name string `json:"name,omitempty"`
}

// ToolCall is one call of an assistant message.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // always "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall names the tool and carries its arguments, in the shape
// ChatOptions.Arguments says: the JSON object, or a JSON string holding
// it.
type FunctionCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// errUnrenderable marks an episode a target cannot write as the model
// made it (see DropUnrenderable).
var errUnrenderable = errors.New("unrenderable")

// Prompt is the episode's prompt as chat messages.
func Prompt(rec *trajlog.Record) []Message {
	out := make([]Message, len(rec.Messages))
	for i, m := range rec.Messages {
		out[i] = Message{Role: m.Role, Content: m.Content}
	}
	return out
}

// Completion is what followed the prompt, up to and including the last
// assistant message: each step as its assistant message (or messages:
// see ChatOptions.SplitCalls) and what came back, as turnMessages writes
// them. o must be resolved (ChatOptions.Resolve).
//
// What came back after the last assistant message is left out: it is the
// environment's verdict ("Submitted. Correct.") or the last result
// before the turns ran out, which no trainer learns from, and a chat
// that ends on it ends on a turn the model did not write.
//
// The error is errUnrenderable for a call whose arguments are not a
// JSON object: neither OpenAI's format nor a chat template takes it.
func Completion(rec *trajlog.Record, o ChatOptions) ([]Message, error) {
	out := make([]Message, 0, 2*len(rec.Steps))
	for i := range rec.Steps {
		var err error
		out, err = turnMessages(out, readTurn(&rec.Steps[i], rec.ActionFormat, o), i == len(rec.Steps)-1, o)
		if err != nil {
			return nil, err
		}
	}
	fitTemplate(out, o)
	return out, nil
}

// turnMessages appends one turn: a turn written as text is one assistant
// message without tool_calls, then the observation as a user turn (a
// tool turn must answer a call); a turn of calls is one assistant
// message holding them all (or, with SplitCalls, one per call), then one
// tool message per call, answering its id. last leaves out what came
// back after the turn's last assistant message.
func turnMessages(out []Message, t turn, last bool, o ChatOptions) ([]Message, error) {
	head := withReasoning(Message{Role: "assistant", Content: t.content}, t.reasoning, o)
	if t.calls == nil {
		out = append(out, head)
		if !last {
			out = append(out, Message{Role: "user", Content: t.observation})
		}
		return out, nil
	}
	calls := make([]ToolCall, len(t.calls))
	for i, c := range t.calls {
		args, err := callArguments(c.Arguments, o.Arguments)
		if err != nil {
			return nil, err
		}
		calls[i] = ToolCall{ID: c.ID, Type: "function", Function: FunctionCall{Name: c.Tool, Arguments: args}}
	}
	groups := [][]ToolCall{calls}
	if o.SplitCalls {
		groups = make([][]ToolCall, len(calls))
		for i := range calls {
			groups[i] = calls[i : i+1]
		}
	}
	n := 0 // calls written so far
	for g, group := range groups {
		m := Message{Role: "assistant", ToolCalls: group}
		if g == 0 {
			m.Content, m.ReasoningContent, m.Thinking = head.Content, head.ReasoningContent, head.Thinking
		}
		out = append(out, m)
		if last && g == len(groups)-1 {
			break
		}
		for range group {
			out = append(out, toolMessage(t.calls[n], o))
			n++
		}
	}
	return out, nil
}

// toolMessage is the tool turn answering call c.
func toolMessage(c schemas.CallRecord, o ChatOptions) Message {
	m := Message{Role: "tool", Content: c.Observation, ToolCallID: c.ID}
	if o.Target == TargetTRL {
		m.Name = c.Tool
	}
	return m
}

// hasCalls reports whether any of msgs holds a tool call.
func hasCalls(msgs ...[]Message) bool {
	for _, list := range msgs {
		for _, m := range list {
			if len(m.ToolCalls) > 0 {
				return true
			}
		}
	}
	return false
}
