package export

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// Message is one chat message in the OpenAI chat shape, which OpenAI
// fine-tuning files, TRL's trainers and LLaMA-Factory's openai format
// all take; the targets differ in the arguments of a call (see
// FunctionCall) and in Name.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// Name is the tool a tool turn answers, for the trl target (TRL's
	// dataset-formats doc gives it); empty, and left out, otherwise.
	Name string `json:"name,omitempty"`
}

// ToolCall is one call of an assistant message.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // always "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall names the tool and carries its arguments: a JSON string
// holding the object for the openai target, the object itself for trl
// and llamafactory.
type FunctionCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// SFTExample is one line of an sft export.
type SFTExample struct {
	Messages []Message      `json:"messages"`
	Tools    []schemas.Tool `json:"tools"`
}

// ChatOptions say how steps become messages.
type ChatOptions struct {
	// Target is the consumer the messages are shaped for (Target*);
	// empty means TargetOpenAI.
	Target string
	// NoTextCalls leaves tool_calls off the assistant turns of text
	// actions, whose content already holds the call as the model wrote
	// it: chat templates that render tool_calls would show it twice. The
	// observation stays a tool turn with its tool_call_id, which chat
	// templates accept (OpenAI's file validation does not).
	NoTextCalls bool
}

// SFT turns an episode into a chat: the prompt's system and user
// messages, then the Completion.
func SFT(rec *trajlog.Record, o ChatOptions) SFTExample {
	return SFTExample{Messages: append(Prompt(rec), Completion(rec, o)...), Tools: tools.Recorded(rec.Tools).Definitions()}
}

// Prompt is the episode's prompt as chat messages.
func Prompt(rec *trajlog.Record) []Message {
	out := make([]Message, len(rec.Messages))
	for i, m := range rec.Messages {
		out[i] = Message{Role: m.Role, Content: m.Content}
	}
	return out
}

// Completion is what followed the prompt, up to and including the last
// action: for each step, the assistant turn (the raw text of a text
// action, and the call it held as tool_calls with id "call_<turn>") and
// the observation as a tool turn answering that id. A step with no call
// (a text without one) has no tool_calls, and its observation comes
// back as a user turn, since a tool turn must answer a call.
//
// The observation after the last action is left out: it is the
// environment's verdict ("Submitted. Correct.") or the last result before
// the turns ran out, which no trainer learns from, and a chat that ends
// on it ends on a turn the model did not write.
func Completion(rec *trajlog.Record, o ChatOptions) []Message {
	out := make([]Message, 0, 2*len(rec.Steps))
	for i := range rec.Steps {
		st := &rec.Steps[i]
		asst := Message{Role: "assistant"}
		if st.Action.Text != nil {
			asst.Content = *st.Action.Text
		}
		id := "call_" + strconv.Itoa(st.Turn)
		called := st.Tool != "" && !(st.Action.Text != nil && o.NoTextCalls)
		if called {
			asst.ToolCalls = []ToolCall{{ID: id, Type: "function",
				Function: FunctionCall{Name: st.Tool, Arguments: arguments(st, o.Target)}}}
		}
		out = append(out, asst)
		if i == len(rec.Steps)-1 {
			break
		}
		obs := Message{Role: "tool", Content: st.Observation, ToolCallID: id}
		if o.Target == TargetTRL {
			obs.Name = st.Tool
		}
		if st.Tool == "" {
			obs = Message{Role: "user", Content: st.Observation}
		}
		out = append(out, obs)
	}
	return out
}

// arguments is the call's arguments as compact JSON, "{}" when it had
// none (or none that decode): the object itself, or for the openai
// target a JSON string holding it. They are encoded again, so that <, >
// and & read as themselves: recorded JSON may hold them as \u003c, and a
// model trained on an arguments string would learn to write that.
func arguments(st *schemas.StepRecord, target string) json.RawMessage {
	raw := st.Arguments
	if len(raw) == 0 {
		raw = st.Action.Arguments
	}
	text := "{}"
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) == nil && v != nil {
		text = string(encode(v))
	}
	if target != TargetOpenAI && target != "" {
		return json.RawMessage(text)
	}
	return encode(text)
}

// encode is v as compact JSON with <, > and & as they are (json.Marshal
// would escape them, and SQL is full of them).
func encode(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // decoded JSON and strings always encode
	return bytes.TrimRight(b.Bytes(), "\n")
}
