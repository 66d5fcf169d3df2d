package schemas

import "encoding/json"

// Tool describes one tool in the OpenAI function-calling shape, ready for a
// chat template's tools= argument.
type Tool struct {
	Type     string       `json:"type"`
	Function ToolFunction `json:"function"`
}

// ToolFunction is the function part of a Tool.
type ToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Tool names of protocol sqlgym/1: the first three are its default set;
// search_values and describe_column are offered when a server, dataset or
// episode chooses them.
const (
	ToolInspectSchema  = "inspect_schema"
	ToolExecuteSQL     = "execute_sql"
	ToolSubmit         = "submit"
	ToolSearchValues   = "search_values"
	ToolDescribeColumn = "describe_column"
)

// Action formats for text actions.
const (
	FormatHermes = "hermes" // <tool_call>{"name": ..., "arguments": {...}}</tool_call>
	FormatTags   = "tags"   // <sql>...</sql> and <solution>...</solution>
)

// Prompt styles: how an episode's system prompt is written.
//
//   - text: it lists the tools and says how to call them in the
//     episode's action format (<tool_call> blocks, or <sql> and
//     <solution> tags), for a client that sends the model's whole
//     completion as action.text;
//   - native: it states the task and the environment's rules only, and
//     leaves the tools and their call syntax to the chat template the
//     client renders with tools=, for a client whose model calls tools
//     natively (action.message, action.tool).
const (
	PromptStyleText   = "text"
	PromptStyleNative = "native"
)

// PromptStyles lists the prompt styles, the default first.
func PromptStyles() []string { return []string{PromptStyleText, PromptStyleNative} }

// Message is one chat message of an episode's prompt.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}
