package rollout

import (
	"encoding/json"

	"github.com/sqlgym/sqlgym/schemas"
)

// ChatMessage is one message of a chat-completions request or reply.
// Content is a plain string; NullContent says it was (and is sent as)
// null, as an assistant message that only calls tools has it.
type ChatMessage struct {
	Role    string
	Content string
	// NullContent: the content is null, not "".
	NullContent bool
	// ReasoningContent is the model's reasoning, when the endpoint
	// returns it apart from the content (reasoning_content, or
	// reasoning); sent back as reasoning_content.
	ReasoningContent *string
	ToolCalls        []ToolCall
	ToolCallID       string
}

// chatMessageJSON is ChatMessage on the wire.
type chatMessageJSON struct {
	Role             string     `json:"role"`
	Content          *string    `json:"content"`
	ReasoningContent *string    `json:"reasoning_content,omitempty"`
	Reasoning        *string    `json:"reasoning,omitempty"` // read only: newer servers' name of reasoning_content
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
}

// MarshalJSON writes the message in the OpenAI shape.
func (m ChatMessage) MarshalJSON() ([]byte, error) {
	w := chatMessageJSON{Role: m.Role, ReasoningContent: m.ReasoningContent, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID}
	if !m.NullContent {
		w.Content = &m.Content
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads a message in the OpenAI shape.
func (m *ChatMessage) UnmarshalJSON(b []byte) error {
	var w chatMessageJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = ChatMessage{Role: w.Role, NullContent: w.Content == nil, ReasoningContent: w.ReasoningContent,
		ToolCalls: w.ToolCalls, ToolCallID: w.ToolCallID}
	if w.Content != nil {
		m.Content = *w.Content
	}
	if m.ReasoningContent == nil {
		m.ReasoningContent = w.Reasoning
	}
	return nil
}

// assistant is the message as an episode.step action takes it: role,
// content (null kept), reasoning and every call as the endpoint returned
// them.
func (m ChatMessage) assistant() *schemas.AssistantMessage {
	out := &schemas.AssistantMessage{Role: "assistant", ReasoningContent: m.ReasoningContent}
	if !m.NullContent {
		content := m.Content
		out.Content = &content
	}
	for _, tc := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, schemas.ToolCall{ID: tc.ID, Type: tc.Type,
			Function: schemas.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
	}
	return out
}

// ToolCall is one call of an assistant message, in the OpenAI shape.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the tool called and carries its arguments as the
// endpoint gave them: a string holding JSON (the OpenAI shape; from a
// model that got it wrong, something else), or an object from a server
// that sends one.
type FunctionCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ChatRequest is the body of POST <base>/chat/completions.
type ChatRequest struct {
	Model       string          `json:"model"`
	Messages    []ChatMessage   `json:"messages"`
	Tools       json.RawMessage `json:"tools,omitempty"`
	Temperature *float64        `json:"temperature,omitempty"`
	TopP        *float64        `json:"top_p,omitempty"`
	MaxTokens   int             `json:"max_tokens,omitempty"`
}

// ChatResponse is the part of a chat-completions reply that is read.
type ChatResponse struct {
	Choices []Choice `json:"choices"`
	Usage   Usage    `json:"usage"`
}

// Choice is one choice of a reply: the message, and why it ended
// (stop, tool_calls, length, ...).
type Choice struct {
	Message      ChatMessage `json:"message"`
	FinishReason string      `json:"finish_reason"`
}

// Usage counts the tokens of requests, as the endpoint reports them.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Add adds u to the count.
func (c *Usage) Add(u Usage) {
	c.PromptTokens += u.PromptTokens
	c.CompletionTokens += u.CompletionTokens
}
