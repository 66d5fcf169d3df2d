package schemas

import "encoding/json"

// AssistantMessage is a model's reply as a chat endpoint returns it, in
// the OpenAI chat shape: text (Content, possibly null), an optional
// separate ReasoningContent, and any number of tool calls. A step whose
// Action carries one runs every call, in order.
type AssistantMessage struct {
	Role             string     `json:"role" jsonschema:"enum=assistant"`
	Content          *string    `json:"content" jsonschema_description:"The text of the reply; null when the model only called tools."`
	ReasoningContent *string    `json:"reasoning_content,omitempty" jsonschema_description:"The model's reasoning, when the endpoint returns it apart from the content."`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty" jsonschema_description:"The calls of the reply, run in order."`
}

// ToolCall is one call of an AssistantMessage.
type ToolCall struct {
	ID       string       `json:"id,omitempty" jsonschema_description:"The call's id; the server assigns call_<turn>_<i> when it is empty."`
	Type     string       `json:"type,omitempty" jsonschema:"enum=function"`
	Function FunctionCall `json:"function"`
}

// FunctionCall is the function a ToolCall names and its arguments, kept
// exactly as sent: a JSON string holding an object (the OpenAI shape) or
// an object.
type FunctionCall struct {
	Name      string          `json:"name" jsonschema_description:"The tool called; a name the episode does not offer (or none) makes the call fail with unknown_tool, not the step."`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// ToolMessage is the answer to one call of a turn, as the model sees it
// next.
type ToolMessage struct {
	Role       string `json:"role" jsonschema:"enum=tool"`
	ToolCallID string `json:"tool_call_id"`
	Name       string `json:"name"`
	Content    string `json:"content"`
}

// CallInfo is the machine-readable side of one call of a turn, as a
// step's info.calls lists them: which call earned which reward
// components, and what it got.
type CallInfo struct {
	ID               string             `json:"id" jsonschema_description:"The call's id: the model's, or call_<turn>_<i> when it gave none."`
	Tool             string             `json:"tool" jsonschema_description:"The tool called; empty when the call could not be read."`
	Error            *ToolError         `json:"error,omitempty"`
	Result           *ResultInfo        `json:"result,omitempty"`
	RewardComponents map[string]float64 `json:"reward_components,omitempty" jsonschema_description:"What this call earned; left out for a call that did not run. The step's reward_components are their sums."`
}

// CallRecord is one call of a recorded turn and what it got. Its
// Arguments are decoded: the object a JSON string held, {} for none, and
// as sent only when they are not an object (the call then failed with
// bad_arguments). A call that did not run has the error not_run and no
// reward components.
type CallRecord struct {
	ID               string             `json:"id"`
	Tool             string             `json:"tool"`
	Arguments        json.RawMessage    `json:"arguments,omitempty"`
	Observation      string             `json:"observation"`
	Error            *ToolError         `json:"error,omitempty"`
	ResultMeta       *ResultMeta        `json:"result_meta,omitempty"`
	RewardComponents map[string]float64 `json:"reward_components,omitempty"`
	ElapsedMS        float64            `json:"elapsed_ms"`
}
